"""`docs-mcp add pypi:NAME[==VERSION]`, `docs-mcp add npm:NAME[@VERSION]` and `docs-mcp sync [PROJECT_DIR]`.

Options in, one call, output out: results on stdout, progress on stderr (a bar on a terminal,
one line per dependency otherwise).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.indexer.sources.commands import MODEL_HELP
from docs_mcp.tables import table_lines

if TYPE_CHECKING:
    from rich.progress import Progress  # imported when a bar is drawn (_Progress): the command starts without it

INDEX_HELP = "Index folder to add the documentation to (created if needed)."


def register_packages(app: typer.Typer, add: typer.Typer) -> None:
    """Add `add pypi:...`, `add npm:...` (to the `add` group) and `sync` (to the root app)."""
    add.command(
        "pypi", help="pypi:NAME[==VERSION] — a PyPI package's documentation at that version (default: its newest)."
    )(add_pypi)
    add.command(
        "npm", help="npm:NAME[@VERSION] — an npm package's documentation at that version (default: its newest)."
    )(add_npm)
    app.command("sync")(sync)


def add_pypi(
    spec: str = typer.Argument(..., metavar="pypi:NAME[==VERSION]", help="The package, e.g. pypi:requests==2.31.0."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
) -> None:
    """Index a PyPI package's documentation at one version as the library pypi/NAME/vVERSION."""
    _add("pypi", spec, index, model)


def add_npm(
    spec: str = typer.Argument(
        ..., metavar="npm:NAME[@VERSION]", help="The package, e.g. npm:react@18.2.0 or npm:@types/node."
    ),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
) -> None:
    """Index an npm package's documentation at one version as the library npm/NAME/vVERSION."""
    _add("npm", spec, index, model)


def _add(ecosystem: str, spec: str, index: Path, model: str | None) -> None:
    from docs_mcp.indexer.build_summary import problem_lines
    from docs_mcp.indexer.sources.package import UNCHANGED, add_package
    from docs_mcp.indexer.sources.packages.refs import parse_package_spec
    from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings

    ref = parse_package_spec(spec if spec.startswith(f"{ecosystem}:") else f"{ecosystem}:{spec}")
    client = RegistryClient(RegistrySettings.for_index(index))
    try:
        added = add_package(index, ref, client, model=model)
    finally:
        client.close()
    for line in problem_lines(added.problems):  # as `add github` lists them: each page skipped or cut short, and why
        typer.echo(line, err=True)
    verb = "already indexed" if added.status == UNCHANGED else "added"
    also = f" and {added.richer}" if added.richer else ""
    cached = (
        f" (from the library cache: nothing downloaded, {added.embedded} windows embedded)" if added.from_cache else ""
    )
    typer.echo(
        f"{verb} {added.library_id}: {added.documents} documents, {added.chunks} chunks in {added.seconds:.1f} s, from {added.source}{also}{cached}"
    )
    for note in added.notes:
        typer.echo(f"note: {note}", err=True)


def sync(
    project: Path = typer.Argument(
        Path("."), help="The project folder (its pyproject.toml, uv.lock, package.json, lock files...)."
    ),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would be fetched and indexed; change nothing."),
    include_dev: bool = typer.Option(
        True, "--dev/--no-dev", help="Include development dependencies (devDependencies, dependency groups)."
    ),
    workers: int = typer.Option(6, "--workers", min=1, max=16, help="Downloads at once."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    model: str | None = typer.Option(None, "--model", help=MODEL_HELP),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Exit with an error (1) when any dependency could not be indexed; the others are still indexed.",
    ),
) -> None:
    """Index the documentation of every direct dependency of a project at the version its lock files pin."""
    from docs_mcp.errors import UsageError
    from docs_mcp.indexer.errors import SyncIncompleteError
    from docs_mcp.indexer.sources.packages.manifests import read_project
    from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings
    from docs_mcp.indexer.sources.packages.sync import (
        FAILED,
        FETCH,
        UNRESOLVED,
        SyncInterrupted,
        mark_cached,
        plan_sync,
        run_sync,
    )

    if not project.is_dir():
        raise UsageError(
            f"{project} is not a folder.", "Pass the folder that holds the project's pyproject.toml or package.json."
        )
    found = read_project(project)
    for problem in found.problems:
        typer.echo(f"warning: {problem}", err=True)
    if not found.dependencies:
        raise UsageError(
            f"No dependencies found in {project.resolve()}.",
            "sync reads pyproject.toml, uv.lock, poetry.lock, requirements*.txt, package.json and its lock files.",
        )
    client = RegistryClient(RegistrySettings.for_index(index))
    try:
        items = plan_sync(found, index, client, include_dev=include_dev)
        if dry_run:
            items = mark_cached(items, index, client, model)
        else:
            with _Progress(sum(item.status == FETCH for item in items)) as progress:
                items = run_sync(items, index, client, workers=workers, report=progress.report, model=model)
    except SyncInterrupted as stopped:
        _print_outcome(stopped.done, found.files, dry_run=False, as_json=as_json)
        _exit_interrupted(f"{_count(stopped.done, 'dependency', 'dependencies')} done (listed above), {len(stopped.left)} not: "
                          f"{', '.join(item.label for item in stopped.left)}. What is indexed stays: run docs-mcp sync again to do the rest.")  # fmt: skip
    except KeyboardInterrupt:
        _exit_interrupted("nothing was indexed (sync was reading the registries): run docs-mcp sync again.")
    finally:
        client.close()
    _print_outcome(items, found.files, dry_run=dry_run, as_json=as_json)
    missing = [item for item in items if item.status in (FAILED, UNRESOLVED)]
    if missing and strict:
        labels = ", ".join(item.label for item in missing)
        raise SyncIncompleteError(
            f"{_count(missing, 'dependency has', 'dependencies have')} no documentation in the index: {labels}.",
            "Each one's reason is in the table above (DETAIL); fix those, or run sync without --strict to accept the others alone.",
        )
    if missing:
        typer.echo(
            f"{len(missing)} dependencies have no documentation in the index (see above); the others are indexed.",
            err=True,
        )


def _count(items: list, one: str, many: str) -> str:
    return f"{len(items)} {one if len(items) == 1 else many}"


def _exit_interrupted(what: str) -> NoReturn:
    """Say what Ctrl-C left, then end at once: the downloads still under way are abandoned (each would hold the
    process for up to its time limit), and nothing is being written: the index writes run on this thread."""
    typer.echo(f"interrupted: {what}", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


class _Progress:
    """One line per finished dependency on stderr; a bar too when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self._total = total
        self._done = 0
        self._bar: Progress | None = None

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty() and self._total:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("sync"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
            )
            self._bar.start()
            self._task = self._bar.add_task("sync", total=self._total)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def report(self, item) -> None:
        from docs_mcp.indexer.sources.packages.sync import ADDED

        line = f"{item.status:<10} {item.label}" + (
            f"  {item.added.chunks} chunks, {item.seconds:.1f} s"
            + (", from the library cache" if item.added.from_cache else "")
            if item.added
            else f"  {item.detail}"
            if item.detail
            else ""
        )
        if item.status == ADDED:
            self._done += 1
        if self._bar is not None:
            self._bar.console.print(line, highlight=False, markup=False)
            self._bar.update(self._task, completed=self._done)
        else:
            typer.echo(line, err=True)


def _status(item, dry_run: bool) -> str:
    """An item's status as printed: a dry run says what would happen to a dependency to fetch."""
    from docs_mcp.indexer.sources.packages.sync import FETCH

    if not dry_run or item.status != FETCH:
        return item.status
    return "would reuse" if item.cached else "would fetch"


def _print_outcome(items, files, *, dry_run: bool, as_json: bool) -> None:
    from docs_mcp.indexer.build_summary import problem_lines

    if as_json:
        import orjson

        rows = [
            {"ecosystem": i.dependency.ecosystem, "name": i.dependency.name, "library_id": i.ref.library_id if i.ref else None,
             "version": i.ref.version if i.ref else None, "status": _status(i, dry_run),
             "detail": i.detail, "documents": i.added.documents if i.added else None, "chunks": i.added.chunks if i.added else None,
             "seconds": round(i.seconds, 2), "download_seconds": round(i.download_seconds, 2), "source": i.added.source if i.added else None,
             "richer_source": i.added.richer if i.added else None, "notes": list(i.added.notes) if i.added else [],
             "from_cache": bool(i.added and i.added.from_cache or i.cached), "embedded": i.added.embedded if i.added else 0,
             "problems": [{"severity": p.severity, "path": p.path, "message": p.message} for p in (i.added.problems if i.added else ())]}
            for i in items
        ]  # fmt: skip
        typer.echo(orjson.dumps({"files": list(files), "dependencies": rows}, option=orjson.OPT_INDENT_2).decode())
        return
    table: list[tuple[str, ...]] = [("STATUS", "LIBRARY", "DOCS", "CHUNKS", "SECONDS", "DETAIL")]
    for i in items:
        detail = "from the library cache: nothing to download or embed" if i.cached else i.detail
        table.append((_status(i, dry_run), i.ref.library_id if i.ref else i.label, str(i.added.documents) if i.added else "", str(i.added.chunks) if i.added else "",
                     f"{i.seconds:.1f}" if i.added else "", i.added.source if i.added else detail))  # fmt: skip
    typer.echo(f"read {', '.join(files)}")
    for line in table_lines(table, right_aligned={2, 3, 4}):
        typer.echo(line)
    # Which pages a library was indexed without (or cut short), and why a library holds only its README (its docs
    # site serves another release, its repository cannot be read...): what `add` prints, each under its library.
    for i in items:
        for line in problem_lines(i.added.problems, library=i.added.library_id) if i.added else ():
            typer.echo(line, err=True)
        for note in i.added.notes if i.added else ():
            typer.echo(f"note: {i.added.library_id}: {note}", err=True)
