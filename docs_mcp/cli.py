"""The root `docs-mcp` command: mounts each area's commands and maps errors to exit codes."""

from __future__ import annotations

import sys

import typer

from docs_mcp import __version__
from docs_mcp.environment import default_variable
from docs_mcp.errors import DocsMcpError

app = typer.Typer(
    name="docs-mcp",
    help="Index markdown documentation and serve it to AI coding agents over MCP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"docs-mcp {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Index markdown documentation and serve it to AI coding agents over MCP."""


def _mount(command: str | None = None) -> None:
    # Each area registers its own commands; imports stay inside so `--help` is cheap.
    if command == "serve":
        # An agent spawns `serve` for each session and waits for its first answer: it mounts alone, without
        # the other commands' imports and their 30-odd click commands (0.05-0.1 CPU-s of the start).
        from docs_mcp.server.commands import register_serve

        register_serve(app)
        return
    from docs_mcp.eval.commands import register as register_eval
    from docs_mcp.indexer.commands import register as register_indexer
    from docs_mcp.server.commands import register as register_server

    register_indexer(app)
    register_server(app)
    register_eval(app)


def main() -> None:
    """Entry point of the `docs-mcp` console script."""
    # Our matrix products are small (one query against all chunks): threaded BLAS only
    # adds contention with the embedding model and concurrent requests. Set before numpy loads.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        default_variable(variable, "1")
    _mount(sys.argv[1] if len(sys.argv) > 1 else None)
    try:
        app()
    except KeyboardInterrupt:
        # A command that says more about what Ctrl-C left (index) has said it already; every other one says this.
        typer.echo("interrupted.", err=True)
        sys.exit(130)
    except DocsMcpError as error:
        typer.secho(f"error: {error.message}", err=True, fg=typer.colors.RED)
        if error.hint:
            typer.echo(f"hint: {error.hint}", err=True)
        sys.exit(error.exit_code)
