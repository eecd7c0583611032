"""`docs-mcp add llms-txt|site|github:...` and `docs-mcp refresh [LIBRARY]`: options in, one service call, output out.

`docs-mcp add github:OWNER/REPO[@REF]` is written with the repository in place of a sub-command name:
the `add` group sends an argument ``SCHEME:...`` to its command named SCHEME.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.redact import redact

if TYPE_CHECKING:  # typer vendors click (typer._click): its groups take and give that copy's classes, not click's
    from typer._click import Command, Context

INDEX_HELP = "Index folder to add the library to (created if needed)."
MODEL_HELP = "Embedding model for a new index (as `docs-mcp index --model`); an existing index keeps its own."


class SchemeGroup(TyperGroup):
    """A command group whose commands may also be named by a scheme: `add github:acme/widget` runs `add github github:acme/widget`."""

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        scheme, colon, _ = args[0].partition(":") if args else ("", "", "")
        if colon and scheme in self.commands:
            return scheme, self.commands[scheme], args
        return super().resolve_command(ctx, args)


def register_sources(app: typer.Typer) -> typer.Typer:
    """Add the `add` group and the `refresh` command to the root `docs-mcp` app; the `add` group, for other sources' commands."""
    group = typer.Typer(
        name="add", cls=SchemeGroup, no_args_is_help=True,
        help="Add a library whose documentation lives on the web: an llms.txt, a docs site, a GitHub repository, a PyPI or npm package.",
    )  # fmt: skip
    group.command("llms-txt")(add_llms_txt)
    group.command("site")(add_site)
    group.command("github")(add_github)
    app.add_typer(group, name="add")
    app.command("refresh")(refresh)
    return group


def add_llms_txt(
    url: str = typer.Argument(..., help="URL of the library's llms.txt, e.g. https://docs.example.com/llms.txt."),
    library: str = typer.Option(..., "--library", help="Library ID (org/project)."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    name: str | None = typer.Option(None, "--name", help="Library name [default: the llms.txt title]."),
    description: str | None = typer.Option(
        None, "--description", help="One sentence about the library [default: the llms.txt summary]."
    ),
    languages: list[str] = typer.Option([], "--language", help="Programming language the library is for (repeatable)."),
    ttl_hours: float = typer.Option(
        24.0, "--ttl-hours", min=0.0, help="How long fetched pages stay fresh before they are revalidated."
    ),
) -> None:
    """Fetch an llms.txt, index it as a library (its pages are fetched and indexed when first read)."""
    from docs_mcp.indexer.libraries.spec import check_library_id
    from docs_mcp.indexer.sources.known_libraries import LLMS_TXT, RegisteredLibrary
    from docs_mcp.indexer.sources.llms_txt import add_llms_txt
    from docs_mcp.indexer.sources.source_settings import source_settings

    registered = RegisteredLibrary(
        library_id=check_library_id(library),
        name=name or "",
        kind=LLMS_TXT,
        llms_txt_url=url,
        description=description or "",
        languages=tuple(lang.strip() for lang in languages if lang.strip()),
        ttl_hours=ttl_hours,
    )
    llms = add_llms_txt(source_settings(index), registered)
    typer.echo(
        f"added {library} ({llms.title}): {len(llms.entries)} pages in {len(llms.sections)} sections, from {redact(url)}"
    )
    typer.echo(f"  index: {index}; pages are fetched and indexed when first read (read_page, get_docs)")


def refresh(
    library: str | None = typer.Argument(None, help="Library ID to refresh [default: every web library of the index]."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help="Index folder whose web libraries to refresh."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Revalidate web libraries now: llms.txt pages and crawled sites with conditional GETs, repositories by their ref; re-index what changed."""
    from docs_mcp.errors import UsageError
    from docs_mcp.indexer.index_file import current_generation
    from docs_mcp.indexer.sources.kinds import Refreshing, RefreshOutcome, kind_of
    from docs_mcp.indexer.sources.service import SourceService
    from docs_mcp.indexer.sources.source_settings import source_settings

    current_generation(index)  # a mistyped --index is an error, not "0 URLs"
    service = SourceService(source_settings(index))
    outcomes: list[RefreshOutcome] = []
    try:
        entries = service.entries()
        # The registry's llms.txt libraries may be refreshed by name before they are indexed (that fetches them).
        listed = {lib_id: lib.kind for lib_id, lib in service.llms_libraries().items()}
        refreshed = {lib_id for lib_id, entry in entries.items() if _refresh_of(kind_of(entry.origin))}
        known = sorted({*listed, *refreshed})
        if library and library not in known:
            raise UsageError(f"No web library '{library}' in {index}.",
                             f"Known: {', '.join(known) or 'none'}; add one with `docs-mcp add llms-txt|site|github:...`.")  # fmt: skip
        # The llms.txt libraries first (in the index's order), then the others by ID.
        chosen = [lib_id for lib_id in listed if lib_id == library or (library is None and lib_id in entries)]
        chosen += [lib_id for lib_id in sorted(refreshed) if lib_id not in listed and library in (None, lib_id)]
        refreshing = Refreshing(service.settings, service, quiet=quiet)
        for lib_id in chosen:
            entry = entries.get(lib_id)
            outcomes.extend(_refresh_of(kind_of(entry.origin if entry else listed[lib_id]))(refreshing, lib_id, entry))
    finally:
        service.close()
    for outcome in outcomes:
        detail = f": {outcome.detail}" if outcome.detail else ""
        typer.echo(f"{outcome.status:<10}{outcome.library_id}  {redact(outcome.url)}{detail}")
    counts = {status: sum(o.status == status for o in outcomes) for status in ("updated", "unchanged", "failed")}
    # One outcome per library (its llms.txt, site or repository), not per URL fetched.
    libraries = f"{len(outcomes)} {'library' if len(outcomes) == 1 else 'libraries'}"
    typer.echo(f"{libraries}: {counts['updated']} updated, {counts['unchanged']} unchanged, {counts['failed']} failed")
    if counts["failed"]:
        raise typer.Exit(1)


def add_site(
    url: str = typer.Argument(
        ...,
        help="The documentation's start URL; the crawl stays under its folder, e.g. https://docs.example.com/en/latest/.",
    ),
    library: str = typer.Option(..., "--library", help="Library ID (org/project)."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    name: str | None = typer.Option(None, "--name", help="Library name [default: the start page's title]."),
    description: str | None = typer.Option(None, "--description", help="One sentence about the library."),
    languages: list[str] = typer.Option([], "--language", help="Programming language the library is for (repeatable)."),
    max_pages: int = typer.Option(
        1000,
        "--max-pages",
        min=1,
        max=100_000,
        help="Most URLs the crawl may take (pages, duplicates and skipped ones).",
    ),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=16, help="Requests in flight to the site at once."),
    rate: float = typer.Option(
        8.0,
        "--rate",
        min=0.1,
        max=100.0,
        help="Most requests per second to the site (its robots.txt may ask for fewer).",
    ),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Crawl a documentation website (sitemap, then links; robots.txt honoured) and index it as a library; run again to resume or refresh."""
    from docs_mcp.indexer.libraries.spec import check_library_id
    from docs_mcp.indexer.sources.site import SiteRequest
    from docs_mcp.indexer.sources.site import add_site as crawl_and_index
    from docs_mcp.indexer.sources.source_settings import source_settings
    from docs_mcp.indexer.sources.web.crawl_display import CrawlDisplay
    from docs_mcp.indexer.sources.web.crawler import CrawlLimits

    request = SiteRequest(check_library_id(library), url, name or "", description or "", _languages(languages),
                          CrawlLimits(max_pages=max_pages, concurrency=concurrency, rate=rate))  # fmt: skip
    display = CrawlDisplay(quiet=quiet)
    try:
        result = _interruptible(lambda: crawl_and_index(source_settings(index), request, embeddings=model, progress=display.show,
                                                        build_progress=display.build), display,
                                "the pages crawled so far are kept: run the same command to resume.")  # fmt: skip
    finally:
        display.close()
    crawl = result.crawl
    typer.echo(f"added {library}: {crawl.pages} pages from {redact(crawl.scope)} in {crawl.seconds:.1f} s "
               f"({crawl.fetched} downloaded, {crawl.not_modified} not modified, {crawl.duplicates} duplicates, "
               f"{crawl.skipped} skipped, {crawl.failed} failed{', resumed' if crawl.resumed else ''})")  # fmt: skip
    _print_written(result.report, index)


def add_github(
    repository: str = typer.Argument(..., help="github:OWNER/REPO or github:OWNER/REPO@REF (a branch, tag or commit)."),
    library: str | None = typer.Option(None, "--library", help="Library ID (org/project) [default: OWNER/REPO]."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    name: str | None = typer.Option(None, "--name", help="Library name [default: the repository's name]."),
    description: str | None = typer.Option(
        None, "--description", help="One sentence about the library [default: the repository's description]."
    ),
    languages: list[str] = typer.Option([], "--language", help="Programming language the library is for (repeatable)."),
    include: list[str] = typer.Option(
        [], "--include", help="Index only the repository's files matching this glob (repeatable), e.g. 'docs/**'."
    ),
    exclude: list[str] = typer.Option(
        [], "--exclude", help="Skip the repository's files matching this glob (repeatable)."
    ),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Index a GitHub repository's documentation (README, docs/, every page) at a ref; GITHUB_TOKEN for private ones, DOCS_MCP_GITHUB_API for GitHub Enterprise."""
    from docs_mcp.environment import environment
    from docs_mcp.indexer.corpus.file_rules import FileRules
    from docs_mcp.indexer.display import BuildDisplay
    from docs_mcp.indexer.sources.github import RepositoryRequest, add_repository
    from docs_mcp.indexer.sources.github_api import GitHubSettings
    from docs_mcp.indexer.sources.source_settings import source_settings

    request = RepositoryRequest(repository.strip(), library or "", name or "", description or "", _languages(languages),
                                FileRules(tuple(include), tuple(exclude)))  # fmt: skip
    settings = source_settings(index)
    with BuildDisplay(quiet=quiet) as display:  # the build after the download: silent for minutes before
        result = add_repository(settings, GitHubSettings.from_environment(environment()), request, embeddings=model,
                                build_progress=display.show)  # fmt: skip
    resolved = result.resolved
    typer.echo(
        f"added {result.library_id}: github:{resolved.spec.full_name}@{resolved.ref} at commit {resolved.commit[:12]}"
    )
    _print_written(result.report, index)


def _refresh_of(kind: Any) -> Any:
    """A kind's refresh (None for a kind that is added again, never refreshed, and for no kind)."""
    return kind.refresh if kind is not None else None


def _languages(values: list[str]) -> tuple[str, ...]:
    return tuple(value.strip() for value in values if value.strip())


def _interruptible(run: Any, display: Any, resume: str) -> Any:
    try:
        return run()
    except KeyboardInterrupt:
        display.close()
        typer.echo(f"interrupted: {resume}", err=True)
        raise typer.Exit(130) from None


def _print_written(report: Any, index: Path) -> None:
    from docs_mcp.indexer.build_summary import problem_lines, summary

    if report is None:
        typer.echo(f"  index: {index} unchanged (every page as indexed)")
        return
    for line in problem_lines(report.problems):  # the summary counts them "listed above"
        typer.echo(line, err=True)
    typer.echo(summary(report, "none" if report.model is None else report.model.name))
