"""`docs-mcp upstream add/list/remove`: options in, one config-file edit, a line out."""

from __future__ import annotations

from pathlib import Path

import typer

from docs_mcp.environment import variable
from docs_mcp.errors import UsageError

upstream_app = typer.Typer(
    help="Upstream MCP servers whose tools the gateway offers (tool_discovery / tool_execute).", no_args_is_help=True
)
_CONFIG = typer.Option(None, "--config", help="Config file to edit (default: $DOCS_MCP_CONFIG, else ./docs-mcp.toml).")


def register_gateway(app: typer.Typer) -> None:
    """Add `docs-mcp upstream ...` to the root app."""
    app.add_typer(upstream_app, name="upstream")


def config_file(config: Path | None) -> Path:
    """The file `upstream` edits and `serve` reads: --config, else $DOCS_MCP_CONFIG, else ./docs-mcp.toml."""
    from docs_mcp.server.team.server_settings import CONFIG_ENV, CONFIG_FILE

    return config or Path(variable(CONFIG_ENV) or CONFIG_FILE)


@upstream_app.command("add")
def add(
    name: str = typer.Argument(..., help="Short name; tool keys read NAME:tool."),
    command: list[str] | None = typer.Argument(
        None, help="After --: the command that starts a stdio server, with its arguments."
    ),
    url: str | None = typer.Option(None, "--url", help="A streamable-HTTP server's URL instead of a command."),
    env: list[str] = typer.Option(
        [], "--env", help="KEY=VALUE for the server's environment (repeatable); stored in the config file."
    ),
    disabled: bool = typer.Option(False, "--disabled", help="Add it switched off (enabled = false)."),
    config: Path | None = _CONFIG,
) -> None:
    """Add an upstream server: `upstream add NAME -- COMMAND [ARGS...]` or `upstream add NAME --url URL`."""
    from docs_mcp.server.gateway.config_file import add_upstream
    from docs_mcp.server.gateway.records import UpstreamSpec

    if bool(command) == bool(url):
        raise UsageError(
            "Give either a command (after --) or --url, not both and not neither.",
            "Example: docs-mcp upstream add github -- npx -y @modelcontextprotocol/server-github",
        )
    variables = dict(_pair(item) for item in env)
    argv = command or [""]
    spec = UpstreamSpec(name, command=argv[0], args=tuple(argv[1:]), env=variables, url=url or "", enabled=not disabled)
    path = config_file(config)
    add_upstream(path, spec)
    typer.echo(f"added upstream {name} ({spec.transport}: {spec.describe()}) to {path}", err=True)


@upstream_app.command("list")
def list_upstreams(config: Path | None = _CONFIG) -> None:
    """List the configured upstream servers (environment values are not shown)."""
    from docs_mcp.server.gateway.gateway_config import load_gateway_config

    path = config_file(config)
    upstreams = load_gateway_config(path).upstreams
    if not upstreams:
        typer.echo(f"no upstream servers in {path}; add one with `docs-mcp upstream add NAME -- COMMAND`", err=True)
        return
    typer.echo(f"{'name':<20}{'transport':<11}{'enabled':<9}target")
    for spec in upstreams:
        env = f"  (env: {', '.join(sorted(spec.env))})" if spec.env else ""
        typer.echo(f"{spec.name:<20}{spec.transport:<11}{'yes' if spec.enabled else 'no':<9}{spec.describe()}{env}")


@upstream_app.command("remove")
def remove(name: str = typer.Argument(..., help="The upstream to remove."), config: Path | None = _CONFIG) -> None:
    """Remove an upstream server from the config file."""
    from docs_mcp.server.gateway.config_file import remove_upstream

    path = config_file(config)
    remove_upstream(path, name)
    typer.echo(f"removed upstream {name} from {path}", err=True)


def _pair(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise UsageError(f"--env {item!r} is not KEY=VALUE.", "Example: --env GITHUB_TOKEN=...")
    return key, value
