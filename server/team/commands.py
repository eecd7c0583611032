"""`docs-mcp keys create|list|revoke` and `docs-mcp config example|show`: administration of a team server."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from docs_mcp.indexer.schema import CURRENT_FILE
from docs_mcp.server.team.keys import ApiKey, KeyStore
from docs_mcp.server.team.postgres_keys import PostgresKeyStore
from docs_mcp.server.team.server_settings import MAX_RATE, TeamSettings, example_toml, load_settings
from docs_mcp.tables import table_lines

keys_app = typer.Typer(
    help="Create, list and revoke the API keys of a team server (HTTP mode).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
config_app = typer.Typer(
    help="Show the team-mode configuration (docs-mcp.toml, DOCS_MCP_*).", no_args_is_help=True, rich_markup_mode=None
)

_INDEX = typer.Option(None, "--index", help="Index directory whose keys.sqlite holds the keys (default: .docs-mcp).")
_STORE = typer.Option(
    None,
    "--store",
    help="Key store: a file, or a postgresql:// URL (a fleet), instead of keys.sqlite in the index directory.",
)
_CONFIG = typer.Option(None, "--config", help="Config file (default: $DOCS_MCP_CONFIG or ./docs-mcp.toml).")


def register_team(app: typer.Typer) -> None:
    """Add the `keys` and `config` command groups to the root app."""
    app.add_typer(keys_app, name="keys")
    app.add_typer(config_app, name="config")


def _store(index: Path | None, store: str | None, config: Path | None) -> KeyStore | PostgresKeyStore:
    flags = {"server.index": _text(index), "keys.store": store}
    settings = load_settings(flags, config_file=config)
    if settings.key_store_url:
        return PostgresKeyStore(settings.key_store_url)
    if not settings["keys.store"] and not (settings.index / CURRENT_FILE).is_file():
        # Keys may come before the first build, but a mistyped --index must not go unnoticed.
        typer.echo(
            f"note: {settings.index} holds no index yet; `docs-mcp serve --index {settings.index}` finds these keys "
            f"once `docs-mcp index DOCS_DIR --out {settings.index}` has built one there.",
            err=True,
        )
    return KeyStore(settings.key_store)


def _text(path: Path | None) -> str | None:
    return str(path) if path is not None else None


@keys_app.command("create")
def create(
    name: str = typer.Argument(..., help="Who the key is for, e.g. alice or ci-bot (shown in logs)."),
    rate: int | None = typer.Option(
        None, "--rate", min=1, max=MAX_RATE, help="Requests per minute (default: rate_limit.requests_per_minute)."
    ),
    burst: int | None = typer.Option(
        None, "--burst", min=1, max=MAX_RATE, help="Requests at once (default: rate_limit.burst)."
    ),
    project: str | None = typer.Option(
        None, "--project", help="Project whose [tool_permissions.PROJECT] rules apply to gateway tools."
    ),
    index: Path | None = _INDEX,
    store: str | None = _STORE,
    config: Path | None = _CONFIG,
) -> None:
    """Create a key and print it once on stdout; only its SHA-256 digest is stored."""
    key_store = _store(index, store, config)
    record, key = key_store.create(name, rate=rate, burst=burst, project=project)
    typer.echo(key)
    limits = f"rate {_or_default(record.rate, '/min')}, burst {_or_default(record.burst, '')}"
    limits += f", project {record.project}" if record.project else ""
    typer.echo(f"Created key '{record.name}' ({limits}) in {key_store.path}.", err=True)
    typer.echo("This is the only time the key is shown: hand it to its owner now.", err=True)


@keys_app.command("list")
def list_keys(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array instead of a table."),
    index: Path | None = _INDEX,
    store: str | None = _STORE,
    config: Path | None = _CONFIG,
) -> None:
    """List every key (active and revoked): name, key prefix, limits, dates. Keys themselves are never shown."""
    records = _store(index, store, config).list()
    if as_json:
        typer.echo(orjson.dumps([_as_dict(record) for record in records], option=orjson.OPT_INDENT_2).decode())
        return
    if not records:
        typer.echo("No keys yet. Create one with `docs-mcp keys create NAME`.", err=True)
        return
    rows: list[tuple[str | None, ...]] = [("NAME", "KEY", "PROJECT", "RATE/MIN", "BURST", "CREATED", "STATUS")]
    rows += [
        (
            r.name,
            r.hint + "...",
            r.project,
            _or_default(r.rate, ""),
            _or_default(r.burst, ""),
            r.created_at,
            f"revoked {r.revoked_at}" if r.revoked_at else "active",
        )
        for r in records
    ]
    for line in table_lines(rows):
        typer.echo(line)


@keys_app.command("revoke")
def revoke(
    name: str = typer.Argument(..., help="Name of the key to revoke."),
    index: Path | None = _INDEX,
    store: str | None = _STORE,
    config: Path | None = _CONFIG,
) -> None:
    """Revoke a key; running servers refuse it from their next request on."""
    record = _store(index, store, config).revoke(name)
    typer.echo(f"Revoked key '{record.name}' ({record.hint}...).", err=True)


@config_app.command("example")
def example() -> None:
    """Print a docs-mcp.toml documenting every team-mode key with its default and environment variable (gateway keys: see the gateway guide)."""
    typer.echo(example_toml(), nl=False)


@config_app.command("show")
def show(config: Path | None = _CONFIG) -> None:
    """Print the effective configuration and where each value comes from (default, file, env); secrets show as ***."""
    settings: TeamSettings = load_settings(config_file=config)
    for key, value, source in settings.shown():
        typer.echo(f"{key} = {value}  # {source}")


def _or_default(value: int | None, unit: str) -> str:
    return f"{value}{unit}" if value is not None else "server default"


def _as_dict(record: ApiKey) -> dict[str, object]:
    return {
        "name": record.name,
        "key_prefix": record.hint,
        "project": record.project,
        "rate": record.rate,
        "burst": record.burst,
        "created_at": record.created_at,
        "revoked_at": record.revoked_at,
    }
