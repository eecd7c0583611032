"""`docs-mcp libraries` (list an index's libraries) and `docs-mcp libraries remove ID`: options in, one call, output out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.tables import table_lines

INDEX_HELP = "Index folder built by `docs-mcp index`."


def register_libraries(app: typer.Typer) -> None:
    """Add the `libraries` command group to the root `docs-mcp` app."""
    listing_group(app, "libraries", "List the libraries an index holds (see `docs-mcp index --library`), or remove one.",
                  libraries, {"remove": remove})  # fmt: skip


def listing_group(
    app: typer.Typer,
    name: str,
    help_text: str,
    listing: Callable[..., None],
    commands: Mapping[str, Callable[..., None]],
) -> None:
    """Add a command group to ``app`` that lists when called alone (``listing``) and has ``commands``."""
    group = typer.Typer(name=name, help=help_text, invoke_without_command=True, rich_markup_mode=None)
    group.callback()(listing)
    for command, run in commands.items():
        group.command(command)(run)
    app.add_typer(group, name=name)


def libraries(
    ctx: typer.Context,
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
) -> None:
    """List the libraries of an index: ID, name, version, documents, chunks, languages, source, when indexed, stale pages."""
    if ctx.invoked_subcommand is not None:
        return
    import orjson

    from docs_mcp.indexer.libraries.ops import list_libraries

    listed = list_libraries(index)
    if as_json:
        typer.echo(orjson.dumps([item.listing() for item in listed], option=orjson.OPT_INDENT_2).decode())
        return
    rows = [("ID", "NAME", "VERSION", "DOCS", "CHUNKS", "LANGUAGES", "SOURCE", "INDEXED", "STALE")]
    rows += [
        (item.library_id, item.name + (" (unnamed corpus)" if item.implicit else ""), item.version + (" (pinned)" if item.pinned else ""),
         str(item.documents), str(item.chunks), ", ".join(item.languages), ", ".join(str(s.get("kind", "")) for s in item.sources),
         item.indexed_at, str(item.stale_pages()))
        for item in listed
    ]  # fmt: skip
    for line in table_lines(rows, right_aligned={3, 4, 8}):
        typer.echo(line)


def remove(
    library_id: str = typer.Argument(..., help="ID of the library to remove (see `docs-mcp libraries`)."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
) -> None:
    """Remove one library from an index; the others stay as they are (nothing is re-embedded)."""
    from docs_mcp.indexer.libraries.ops import remove_library

    report = remove_library(index, library_id)
    typer.echo(
        f"removed {library_id}: the index now holds {report.files} files, {report.chunks} chunks ({report.reused_embeddings} vectors reused)"
    )
