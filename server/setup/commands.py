"""`docs-mcp setup CLIENT`: register the server with a coding agent and tell the agent when to use it."""

from __future__ import annotations

import difflib
import shutil
import sys
from enum import StrEnum
from pathlib import Path

import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR


class ClientName(StrEnum):
    claude = "claude"
    cursor = "cursor"
    vscode = "vscode"
    windsurf = "windsurf"
    codex = "codex"


class ScopeName(StrEnum):
    project = "project"
    user = "user"


def register_setup(app: typer.Typer) -> None:
    """Add `docs-mcp setup` to the root app."""
    app.command("setup")(setup)


def setup(
    client: ClientName = typer.Argument(
        ..., help="The coding agent: claude (Claude Code), cursor, vscode (GitHub Copilot), windsurf or codex."
    ),
    scope: ScopeName = typer.Option(
        ScopeName.project,
        "--scope",
        help="project: this project's files (share them with your team); user: your own config, for every project.",
    ),
    project: Path = typer.Option(
        Path("."), "--project", show_default=False, help="The project folder (default: the current folder)."
    ),
    index: Path | None = typer.Option(
        None, "--index", help=f"The index to serve (default: {DEFAULT_INDEX_DIR} in the project folder)."
    ),
    name: str = typer.Option("docs-mcp", "--name", help="Name of the server entry, the rule file and the skill."),
    command: str | None = typer.Option(
        None,
        "--command",
        help="Command that runs docs-mcp (default: this installation's absolute path in a virtual environment, else 'docs-mcp' when PATH finds it).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the changes as a diff; write nothing."),
    remove: bool = typer.Option(
        False, "--remove", help="Take out what setup wrote: the entry, the rule block, the files it created."
    ),
) -> None:
    """Register the server with a coding agent and add a rule saying when to search these docs.

    Writes the client's MCP server entry (project scope by default), an agent rule in the file the
    client reads (inside a marked block; your own text is never touched) and, for Claude Code, a
    skill that searches through the command line. Running it again changes nothing; --remove gives
    back the original files.
    """
    import shlex

    from docs_mcp.indexer import open_index
    from docs_mcp.server.instructions import IndexSummary
    from docs_mcp.server.setup.clients import CLIENTS, Scope
    from docs_mcp.server.setup.config_writer import locked
    from docs_mcp.server.setup.plan import SetupRequest, apply, plan, roots

    project = project.expanduser().resolve()
    index_dir = (index.expanduser() if index else project / DEFAULT_INDEX_DIR).resolve()
    if remove:
        summary = IndexSummary((), "")  # the texts do not matter: removal finds our blocks by their markers
    else:
        with open_index(index_dir) as reader:  # refuses a folder without an index, with the command that builds one
            summary = IndexSummary.from_metadata(reader.metadata)
    request = SetupRequest(
        client=CLIENTS[client.value],
        scope=Scope(scope.value),
        project=project,
        home=Path.home(),
        index=index_dir,
        name=name,
        command=tuple(shlex.split(command)) if command else _this_docs_mcp(),
        summary=summary,
    )
    with locked(roots(request)):  # another run's change lands before this one reads, not between its read and write
        target, changes = plan(request, remove=remove)
        if not dry_run:
            apply(changes)
    if dry_run:
        _show_diff(changes)
    for change in changes:
        action = f"would be {change.action}" if dry_run and change.changed else change.action
        typer.echo(f"{action}: {change.path} ({change.what})", err=True)
    where = f"{target.client.title} ({target.scope.value} scope)"
    if not any(change.changed for change in changes):
        typer.echo(f"{where}: nothing to change.", err=True)
    elif dry_run:
        typer.echo(f"{where}: dry run, nothing written.", err=True)
    elif remove:
        typer.echo(f"{where}: {name} removed.", err=True)
    else:
        typer.echo(f"{where}: set up. {target.client.restart}", err=True)
        for note in target.notes:
            typer.echo(f"note: {note}", err=True)


def _this_docs_mcp() -> tuple[str, ...]:
    """The command that runs this installation, for a client started from any shell.

    Its absolute path when it runs from a virtual environment (which another shell has not activated)
    or is not what PATH finds; ``docs-mcp`` when it is installed outside one and PATH finds this very
    program, so a project file shared with the team names no path of this machine.
    """
    running = Path(sys.argv[0]).absolute() if sys.argv and Path(sys.argv[0]).name == "docs-mcp" else None
    if running is None:
        return (sys.executable, "-m", "docs_mcp")
    found = shutil.which("docs-mcp")
    in_virtual_environment = sys.prefix != sys.base_prefix
    if not in_virtual_environment and found and Path(found).resolve() == running.resolve():
        return ("docs-mcp",)
    return (str(running),)


def _show_diff(changes) -> None:
    for change in changes:
        if not change.changed:
            continue
        before = (change.before or "").splitlines(keepends=True)
        after = (change.after or "").splitlines(keepends=True)
        old = str(change.path) if change.before is not None else "/dev/null"
        new = str(change.path) if change.after is not None else "/dev/null"
        typer.echo("".join(difflib.unified_diff(before, after, old, new)).rstrip("\n"))
