"""`docs-mcp publish` and `docs-mcp fleet status`: the builder's and the operator's side of a fleet.

The fleet's modules (duckdb, psycopg) load inside the commands, so `docs-mcp --help` stays fast.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.server.team.errors import ConfigError
from docs_mcp.server.team.server_settings import load_settings
from docs_mcp.tables import table_lines

if TYPE_CHECKING:
    from docs_mcp.indexer.fleet.publish import PublishReport
    from docs_mcp.server.fleet.replica import FleetSettings

fleet_app = typer.Typer(
    help="Inspect a fleet of replicas coordinated through PostgreSQL.", no_args_is_help=True, rich_markup_mode=None
)
_CONFIG = typer.Option(None, "--config", help="Config file (default: $DOCS_MCP_CONFIG or ./docs-mcp.toml).")
_DATABASE = typer.Option(
    None, "--database-url", help="The fleet's PostgreSQL (default: fleet.database_url / DOCS_MCP_DATABASE_URL)."
)
_STORAGE = typer.Option(
    None, "--storage", help="Shared storage folder (default: fleet.storage / DOCS_MCP_FLEET_STORAGE)."
)


def register_fleet(app: typer.Typer) -> None:
    """Add `publish` and the `fleet` command group to the root app."""
    app.command("publish")(publish_command)
    app.add_typer(fleet_app, name="fleet")


def publish_command(
    index: Path = typer.Option(
        Path(DEFAULT_INDEX_DIR), "--index", help="The builder's local index folder whose live generation is published."
    ),
    build: Path | None = typer.Option(
        None,
        "--build",
        help="Build DOCS_DIR into --index first (under the fleet's build lock), then publish its final generation once.",
    ),
    embeddings: str = typer.Option(
        "default", "--embeddings", help="With --build: default (the packaged model) or none (full text only)."
    ),
    wait: bool = typer.Option(
        True,
        "--wait/--no-wait",
        help="Wait until the fleet has flipped to the new generation (default) or return once it is staged.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    database_url: str | None = _DATABASE,
    storage: str | None = _STORAGE,
    config: Path | None = _CONFIG,
) -> None:
    """Copy the finished generation of --index and its checksum manifest to shared storage, stage it, and wait
    while every healthy replica pulls, verifies and warms it; the live pointer then flips."""
    from docs_mcp.indexer.fleet.control import build_lock, connect, ensure_schema, translated
    from docs_mcp.indexer.fleet.publish import FlipPolicy, publish
    from docs_mcp.indexer.fleet.storage import DirectoryStorage

    fleet = _fleet(database_url, storage, config)
    conn = connect(fleet.database_url, application="docs-mcp-publish")
    try:
        with translated(fleet.database_url):
            ensure_schema(conn)
            publisher = socket.gethostname()
            with build_lock(conn, publisher):
                if build is not None:
                    from docs_mcp.indexer import build_index

                    typer.echo(f"building {build} into {index}", err=True)
                    build_index(build, index, embeddings=embeddings)
                policy = FlipPolicy(fleet.warm_timeout, fleet.heartbeat_ttl)
                report = publish(
                    index,
                    DirectoryStorage(fleet.storage),
                    conn,
                    publisher=publisher,
                    policy=policy,
                    wait=wait,
                    notify=lambda line: typer.echo(line, err=True),
                    reconnect=lambda: connect(fleet.database_url, application="docs-mcp-publish"),
                )
        pruned = _prune(fleet, conn)
    finally:
        conn.close()
    if as_json:
        typer.echo(orjson.dumps({**_report_dict(report), "pruned": pruned}, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(report.generation)
    typer.echo(_summary(report) + (f"; pruned {', '.join(pruned)}" if pruned else ""), err=True)


@fleet_app.command("status")
def status(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    events: int = typer.Option(10, "--events", min=0, max=1000, help="How many recent events to show."),
    database_url: str | None = _DATABASE,
    config: Path | None = _CONFIG,
) -> None:
    """The registry's generations, each replica's heartbeat, generation served and warmed, and the latest events."""
    from docs_mcp.indexer.fleet import generations
    from docs_mcp.indexer.fleet.control import connect, ensure_schema, recent_events, replica_rows

    settings = load_settings({"fleet.database_url": database_url}, config_file=config)
    url = settings["fleet.database_url"]
    if not url:
        raise ConfigError(
            "No fleet is configured.", "Set fleet.database_url (DOCS_MCP_DATABASE_URL) or pass --database-url."
        )
    conn = connect(url, application="docs-mcp-status")
    try:
        ensure_schema(conn)
        rows = generations.generations(conn)
        replicas = replica_rows(conn)
        recent = recent_events(conn, events)
    finally:
        conn.close()
    if as_json:
        body = {
            "generations": [
                {
                    "generation": g.generation,
                    "state": g.state,
                    "bytes": g.total_bytes,
                    "manifest_sha256": g.manifest_sha256,
                    "staged_at": _iso(g.staged_at),
                    "live_at": _iso(g.live_at),
                    "retired_at": _iso(g.retired_at),
                }
                for g in rows
            ],
            "replicas": [
                {
                    "replica": r[0],
                    "url": r[1],
                    "serving": r[2],
                    "warmed": list(r[3]),
                    "dropped_for": r[4],
                    "heartbeat_age": float(r[5]),
                }
                for r in replicas
            ],
            "events": [{"at": _iso(e[0]), "replica": e[1], "event": e[2], "generation": e[3]} for e in recent],
        }
        typer.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())
        return
    for line in table_lines(
        [("GENERATION", "STATE", "MB", "STAGED", "LIVE", "RETIRED")]
        + [
            (
                g.generation,
                g.state,
                f"{g.total_bytes / 1e6:.1f}",
                _iso(g.staged_at),
                _iso(g.live_at),
                _iso(g.retired_at),
            )
            for g in rows
        ]
    ):
        typer.echo(line)
    typer.echo("")
    for line in table_lines(
        [("REPLICA", "SERVING", "WARMED", "DROPPED FOR", "HEARTBEAT AGE")]
        + [(r[0], r[2], ",".join(r[3]), r[4], f"{r[5]} s") for r in replicas]
    ):
        typer.echo(line)
    typer.echo("")
    for at, replica, event, generation in reversed(recent):
        typer.echo(f"{_iso(at)}  {event:<10} {generation or '':<26} {replica or ''}")


def _prune(fleet: FleetSettings, conn: Any) -> list[str]:
    """Prune old generations after a publish (on a new connection if the publish's was lost); a failure only warns:
    the generation is published, and the next publish prunes."""
    from docs_mcp.indexer.errors import FleetError
    from docs_mcp.indexer.fleet import generations
    from docs_mcp.indexer.fleet.control import connect, translated
    from docs_mcp.indexer.fleet.storage import DirectoryStorage

    try:
        with translated(fleet.database_url):
            fresh = connect(fleet.database_url, application="docs-mcp-publish") if conn.broken else conn
            try:
                return generations.prune(
                    fresh,
                    DirectoryStorage(fleet.storage),
                    cursor_lifetime=fleet.cursor_lifetime,
                    heartbeat_ttl=fleet.heartbeat_ttl,
                )
            finally:
                if fresh is not conn:
                    fresh.close()
    except FleetError as error:
        typer.echo(f"warning: old generations were not pruned: {error.message} The next publish prunes them.", err=True)
        return []


def _fleet(database_url: str | None, storage: str | None, config: Path | None) -> FleetSettings:
    from docs_mcp.server.team.fleet_mode import fleet_settings

    settings = load_settings({"fleet.database_url": database_url, "fleet.storage": storage}, config_file=config)
    fleet = fleet_settings(settings)
    if fleet is None:
        raise ConfigError(
            "No fleet is configured: publishing needs its PostgreSQL and its shared storage.",
            "Set fleet.database_url and fleet.storage (DOCS_MCP_DATABASE_URL, DOCS_MCP_FLEET_STORAGE) or pass "
            "--database-url and --storage.",
        )
    return fleet


def _summary(report: PublishReport) -> str:
    size = f"{report.files} files, {report.bytes / 1e6:.1f} MB, copied in {report.copy_seconds:.2f} s"
    if report.outcome == "already-live":
        return f"{report.generation} is already live ({size})"
    if report.swap_seconds is None:
        return f"staged {report.generation} ({size}); not waiting for the flip"
    dropped = f"; dropped {', '.join(report.dropped)}" if report.dropped else ""
    stale = f"; not waited for (no heartbeat): {', '.join(report.stale)}" if report.stale else ""
    return (
        f"{report.generation} is live ({size}); warmed by {len(report.warmed)} replica(s), "
        f"flipped {report.swap_seconds:.2f} s after staging{dropped}{stale}"
    )


def _report_dict(report: PublishReport) -> dict[str, object]:
    return {
        "generation": report.generation,
        "outcome": report.outcome,
        "files": report.files,
        "bytes": report.bytes,
        "manifest_sha256": report.manifest_sha256,
        "copy_seconds": round(report.copy_seconds, 3),
        "swap_seconds": None if report.swap_seconds is None else round(report.swap_seconds, 3),
        "warmed": list(report.warmed),
        "dropped": list(report.dropped),
        "stale": list(report.stale),
    }


def _iso(value: object) -> str:
    return value.isoformat(timespec="milliseconds") if value is not None else ""  # type: ignore[attr-defined]
