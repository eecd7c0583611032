"""Helpers of the `docs-mcp setup` tests: plant files (and links, and FIFOs), snapshot folders, run the CLI."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from docs_mcp import cli

if not any(command.name == "setup" for command in cli.app.registered_commands):
    cli._mount()

SERVE = f"{shlex.quote(sys.executable)} -m docs_mcp"


@dataclass(frozen=True)
class Link:
    """A symbolic link to plant, pointing at ``target`` (relative to the link's folder, or absolute)."""

    target: str


FIFO = object()  # a named pipe to plant: reading it would block for ever


def plant(root: Path, files: dict[str, str | Link | object]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        elif content is FIFO:
            os.mkfifo(path)
        else:
            path.write_bytes(str(content).encode())


def tree(*roots: Path) -> dict[str, bytes | None]:
    """Every file (bytes), folder (None) and link ('-> target', not followed) under the roots."""
    found: dict[str, bytes | None] = {}
    for root in roots:
        for folder, folders, files in os.walk(root):
            for name in sorted(folders + files):
                path = Path(folder) / name
                if path.is_symlink():
                    found[str(path)] = b"-> " + os.readlink(path).encode()
                elif path.is_file():
                    found[str(path)] = path.read_bytes()
                else:
                    found[str(path)] = None
    return dict(sorted(found.items()))


def run_setup(project: Path, index: Path, *args: str, ok: bool = True):
    """`docs-mcp setup ARGS` in this process (typer's runner), the command being this Python's."""
    done = CliRunner().invoke(
        cli.app, ["setup", *args, "--project", str(project), "--index", str(index), "--command", SERVE]
    )
    if ok:
        assert done.exit_code == 0, done.output
    return done


def run_command(
    project: Path, *args: str, program: tuple[str, ...] = (sys.executable, "-m", "docs_mcp"), env=None
) -> subprocess.CompletedProcess:
    """`docs-mcp ARGS` as a user runs it (exit status, stderr), in ``project`` with the sandbox's HOME."""
    return subprocess.run(
        [*program, *args], cwd=project, capture_output=True, text=True, env=env or os.environ, timeout=120
    )


def list_tools(command: str, args: list[str], cwd: Path, errlog: Path, path: str = "") -> set[str]:
    """The tools of the server a client starts with ``command`` and ``args`` (``path``: its PATH)."""
    env = {"DOCS_MCP_CURATED_LIBRARIES": "0", **({"PATH": path} if path else {})}
    params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env)
    with errlog.open("w") as log, start_blocking_portal() as portal:
        client = Client(stdio_client(params, errlog=log), mode="legacy")
        with portal.wrap_async_context_manager(client):
            return {tool.name for tool in portal.call(lambda: client.list_tools(cache_mode="refresh")).tools}
