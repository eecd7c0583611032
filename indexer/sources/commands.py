"""`docs-mcp add llms-txt URL --library ID` and `docs-mcp refresh [LIBRARY]`: options in, one service call, output out."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.redact import redact

INDEX_HELP = "Index folder to add the library to (created if needed)."


def register_sources(app: typer.Typer) -> None:
    """Add the `add` group and the `refresh` command to the root `docs-mcp` app."""
    group = typer.Typer(name="add", help="Register a library whose documentation lives on the web.", no_args_is_help=True)
    group.command("llms-txt")(add_llms_txt)
    app.add_typer(group, name="add")
    app.command("refresh")(refresh)


def add_llms_txt(
    url: str = typer.Argument(..., help="URL of the library's llms.txt, e.g. https://docs.example.com/llms.txt."),
    library: str = typer.Option(..., "--library", help="Library ID (org/project)."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    name: Optional[str] = typer.Option(None, "--name", help="Library name [default: the llms.txt title]."),
    description: Optional[str] = typer.Option(None, "--description", help="One sentence about the library [default: the llms.txt summary]."),
    languages: list[str] = typer.Option([], "--language", help="Programming language the library is for (repeatable)."),
    ttl_hours: float = typer.Option(24.0, "--ttl-hours", min=0.0, help="How long fetched pages stay fresh before they are revalidated."),
) -> None:
    """Fetch an llms.txt, index it as a library (its pages are fetched and indexed when first read)."""
    from docs_mcp.indexer.libraries.spec import check_library_id
    from docs_mcp.indexer.sources.config import source_settings
    from docs_mcp.indexer.sources.registry import LLMS_TXT, RegisteredLibrary
    from docs_mcp.indexer.sources.service import SourceService

    registered = RegisteredLibrary(
        library_id=check_library_id(library),
        name=name or "",
        kind=LLMS_TXT,
        llms_txt_url=url,
        description=description or "",
        languages=tuple(lang.strip() for lang in languages if lang.strip()),
        ttl_hours=ttl_hours,
    )
    service = SourceService(source_settings(index))
    try:
        llms = service.add(registered)
    finally:
        service.close()
    typer.echo(f"added {library} ({llms.title}): {len(llms.entries)} pages in {len(llms.sections)} sections, from {redact(url)}")
    typer.echo(f"  index: {index}; pages are fetched and indexed when first read (read_page, get_docs)")


def refresh(
    library: Optional[str] = typer.Argument(None, help="Library ID to refresh [default: every llms.txt library of the index]."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help="Index folder whose llms.txt libraries to refresh."),
) -> None:
    """Revalidate llms.txt libraries now (conditional GETs), re-indexing what changed; failed sources keep their cached copy."""
    from docs_mcp.errors import UsageError
    from docs_mcp.indexer.index_file import current_generation
    from docs_mcp.indexer.sources.config import source_settings
    from docs_mcp.indexer.sources.service import SourceService

    current_generation(index)  # a mistyped --index is an error, not "0 URLs"
    service = SourceService(source_settings(index))
    try:
        known = sorted(service.llms_libraries())
        if library and library not in known:
            raise UsageError(f"No llms.txt library '{library}' in {index}.", f"Known: {', '.join(known) or 'none'}; add one with `docs-mcp add llms-txt URL --library ID`.")
        outcomes = service.refresh(library)
    finally:
        service.close()
    for outcome in outcomes:
        detail = f": {outcome.detail}" if outcome.detail else ""
        typer.echo(f"{outcome.status:<10}{outcome.library_id}  {redact(outcome.url)}{detail}")
    counts = {status: sum(o.status == status for o in outcomes) for status in ("updated", "unchanged", "failed")}
    typer.echo(f"{len(outcomes)} URLs: {counts['updated']} updated, {counts['unchanged']} unchanged, {counts['failed']} failed")
    if counts["failed"]:
        raise typer.Exit(1)
