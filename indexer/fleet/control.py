"""The PostgreSQL control plane: its schema, connections, the fleet-wide build lock and heartbeats.

PostgreSQL coordinates; it never serves a search. Every replica keeps its own engine and
its own verified copy of a generation. What lives here:

- ``docs_mcp_generations``: the registry (manifest sha256, size; staged -> live -> retired,
  or failed), at most one live;
- ``docs_mcp_replicas``: one row per replica, its heartbeat, the generation it serves and the
  ones it has warmed, and ``dropped_for`` when it missed a flip;
- ``docs_mcp_events``: what happened when, on PostgreSQL's clock (warmed, serving, live,
  dropped): the record an operator (and the end-to-end test) reads;
- ``docs_mcp_keys``: API keys (the store and verifier are server/team/postgres_keys.py).

Every statement on these tables is in this package (here and in generations.py), none in server/.

Connections ask for a read-write server (``target_session_attrs=read-write``), so a
multi-host URL (``postgresql://db1,db2/docs?...``) reaches whichever node is primary, also
after a standby is promoted. psycopg's errors become ControlPlaneError here and only here.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.errors import BuildLockedError, ControlPlaneError
from docs_mcp.redact import redact

FLEET_CHANNEL = "docs_mcp_fleet"  # NOTIFY payloads: "staged:<generation>", "live:<generation>"
KEYS_CHANNEL = "docs_mcp_keys"  # NOTIFY on every key created or revoked
CONNECT_TIMEOUT = 5  # seconds per host
STATEMENT_TIMEOUT_MS = 10_000
# Advisory lock keys (64-bit, arbitrary but fixed): the schema migration, the flip, the build.
SCHEMA_LOCK = 0x646F63735F6D6370  # "docs_mcp"
SWAP_LOCK = SCHEMA_LOCK + 1
BUILD_LOCK = SCHEMA_LOCK + 2

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS docs_mcp_generations (
        generation TEXT PRIMARY KEY,
        manifest_sha256 TEXT NOT NULL,
        total_bytes BIGINT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('staged', 'live', 'retired', 'failed')),
        published_by TEXT NOT NULL,
        staged_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        live_at TIMESTAMPTZ,
        retired_at TIMESTAMPTZ
    )""",
    "CREATE UNIQUE INDEX IF NOT EXISTS docs_mcp_one_live ON docs_mcp_generations ((true)) WHERE state = 'live'",
    """CREATE TABLE IF NOT EXISTS docs_mcp_replicas (
        replica TEXT PRIMARY KEY,
        url TEXT NOT NULL DEFAULT '',
        started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        serving TEXT,
        warmed TEXT[] NOT NULL DEFAULT '{}',
        dropped_for TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS docs_mcp_events (
        id BIGSERIAL PRIMARY KEY,
        at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        replica TEXT,
        event TEXT NOT NULL,
        generation TEXT,
        detail JSONB
    )""",
    """CREATE TABLE IF NOT EXISTS docs_mcp_keys (
        id BIGSERIAL PRIMARY KEY,
        name TEXT NOT NULL,
        digest BYTEA NOT NULL UNIQUE,
        hint TEXT NOT NULL,
        rate INTEGER,
        burst INTEGER,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        project TEXT
    )""",
    "CREATE UNIQUE INDEX IF NOT EXISTS docs_mcp_keys_active_name ON docs_mcp_keys (name) WHERE revoked_at IS NULL",
)


def psycopg_module() -> Any:
    """psycopg 3, an optional dependency: ``pip install 'docs-mcp[postgres]'``.

    Raises:
        ControlPlaneError: it is not installed.
    """
    try:
        import psycopg
    except ImportError:
        raise ControlPlaneError(
            "A PostgreSQL control plane needs psycopg, which is not installed.",
            "Install it: pip install 'docs-mcp[postgres]'.",
        ) from None
    return psycopg


def connect(url: str, *, application: str = "docs-mcp") -> Any:
    """An autocommit connection to the primary (read-write) node of ``url``.

    Raises:
        ControlPlaneError: no node answers as a primary, or the URL is invalid.
    """
    psycopg = psycopg_module()
    with translated(url, "connect to"):
        params = psycopg.conninfo.conninfo_to_dict(url)
        params.setdefault("target_session_attrs", "read-write")
        params.setdefault("connect_timeout", str(CONNECT_TIMEOUT))
        params.setdefault("application_name", application)
        params.setdefault("options", f"-c statement_timeout={STATEMENT_TIMEOUT_MS}")
        return psycopg.connect(autocommit=True, **params)


@contextmanager
def translated(url: str, doing: str = "use") -> Iterator[None]:
    """psycopg's errors (and socket errors under them) as ControlPlaneError, the URL's password redacted."""
    psycopg = psycopg_module()
    try:
        yield
    except (psycopg.Error, OSError) as error:
        raise ControlPlaneError(
            redact(
                f"Cannot {doing} the control plane at {url}: {str(error).strip() or type(error).__name__}.",
                _password(url),
            ),
            "Check fleet.database_url (DOCS_MCP_DATABASE_URL) and that a primary PostgreSQL node answers.",
        ) from None


def ensure_schema(conn: Any) -> None:
    """Create the control plane's tables if missing (one process at a time: concurrent DDL races)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        for statement in SCHEMA:
            conn.execute(statement)


def record_event(conn: Any, event: str, generation: str | None, replica: str | None = None, detail: Any = None) -> None:
    """Append to the event log (on PostgreSQL's clock)."""
    psycopg = psycopg_module()
    conn.execute(
        "INSERT INTO docs_mcp_events (replica, event, generation, detail) VALUES (%s, %s, %s, %s)",
        (replica, event, generation, psycopg.types.json.Jsonb(detail) if detail is not None else None),
    )


@contextmanager
def build_lock(conn: Any, holder: str) -> Iterator[None]:
    """The fleet-wide build lock: a session advisory lock, released when the block ends or the builder dies.

    Safe on any filesystem (unlike flock on a network mount): PostgreSQL holds it for the
    connection, and a killed builder's connection closes, releasing it.

    Raises:
        BuildLockedError: another builder holds it.
    """
    (taken,) = conn.execute("SELECT pg_try_advisory_lock(%s)", (BUILD_LOCK,)).fetchone()
    if not taken:
        raise BuildLockedError(
            "Another builder holds the fleet's build lock (a `docs-mcp publish` is running elsewhere).",
            "Wait for it to finish, then publish again.",
        )
    try:
        record_event(conn, "build-lock", None, holder)
        yield
    finally:
        if not conn.broken:  # a lost connection took its session's lock with it
            conn.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK,))


@dataclass(frozen=True)
class ReplicaState:
    """What one replica reports in its heartbeat."""

    replica: str
    url: str
    serving: str | None
    warmed: tuple[str, ...]


def heartbeat(conn: Any, state: ReplicaState) -> str | None:
    """Report ``state`` now; returns the generation this replica was dropped for, if it still is.

    A replica stops being dropped once it serves the generation it missed, or one staged after it
    (a flip it also missed went on to a newer one), or that generation is gone from the registry.
    This compares with the row's own ``dropped_for``, never with "the live generation": a heartbeat
    that waited on the flip's row lock reads the registry as it was before the flip, where the
    replica's old generation was still live, and would clear the mark the flip had just set
    (a dropped replica then reported healthy while serving the old generation).
    """
    row = conn.execute(
        """INSERT INTO docs_mcp_replicas AS r (replica, url, serving, warmed, heartbeat_at)
           VALUES (%(replica)s, %(url)s, %(serving)s, %(warmed)s, clock_timestamp())
           ON CONFLICT (replica) DO UPDATE SET url = EXCLUDED.url, serving = EXCLUDED.serving, warmed = EXCLUDED.warmed,
               heartbeat_at = EXCLUDED.heartbeat_at,
               dropped_for = CASE
                   WHEN r.dropped_for IS NULL OR EXCLUDED.serving IS NULL THEN r.dropped_for
                   WHEN EXCLUDED.serving = r.dropped_for THEN NULL
                   WHEN NOT EXISTS (SELECT 1 FROM docs_mcp_generations WHERE generation = r.dropped_for) THEN NULL
                   WHEN (SELECT staged_at FROM docs_mcp_generations WHERE generation = EXCLUDED.serving)
                        > (SELECT staged_at FROM docs_mcp_generations WHERE generation = r.dropped_for) THEN NULL
                   ELSE r.dropped_for END
           RETURNING dropped_for""",
        {"replica": state.replica, "url": state.url, "serving": state.serving, "warmed": list(state.warmed)},
    ).fetchone()
    return row[0]


def leave(conn: Any, replica: str) -> None:
    """Take the replica out of the fleet, so no flip waits for it, and log it."""
    conn.execute("DELETE FROM docs_mcp_replicas WHERE replica = %s", (replica,))
    record_event(conn, "left", None, replica)


def replica_rows(conn: Any) -> list[tuple[Any, ...]]:
    """Each replica as (replica, url, serving, warmed, dropped_for, seconds since its heartbeat), by name."""
    return conn.execute(
        "SELECT replica, url, serving, warmed, dropped_for, "
        "round(extract(epoch FROM clock_timestamp() - heartbeat_at)::numeric, 1) FROM docs_mcp_replicas ORDER BY replica"
    ).fetchall()


def recent_events(conn: Any, count: int) -> list[tuple[Any, ...]]:
    """The latest ``count`` events as (at, replica, event, generation), newest first."""
    return conn.execute(
        "SELECT at, replica, event, generation FROM docs_mcp_events ORDER BY id DESC LIMIT %s", (count,)
    ).fetchall()


def last_event_detail(conn: Any, generation: str, event: str) -> dict[str, Any]:
    """The detail of the latest ``event`` of ``generation`` (empty if none)."""
    row = conn.execute(
        "SELECT detail FROM docs_mcp_events WHERE generation = %s AND event = %s ORDER BY id DESC LIMIT 1",
        (generation, event),
    ).fetchone()
    return (row[0] if row else None) or {}


def listen(conn: Any, channel: str) -> None:
    """Subscribe the connection to a channel's notifications (FLEET_CHANNEL, KEYS_CHANNEL)."""
    conn.execute(f"LISTEN {channel}")


# The API keys (docs_mcp_keys): server/team/postgres_keys.py turns these rows, (name, hint, rate, burst, created_at,
# revoked_at, project), led by the digest where asked, into ApiKey records. A create or revoke NOTIFYs KEYS_CHANNEL
# in the caller's transaction, so every replica hears of it.
KEY_COLUMNS = "name, hint, rate, burst, created_at, revoked_at, project"


def insert_key(
    conn: Any,
    name: str,
    digest: bytes,
    hint: str,
    rate: int | None,
    burst: int | None,
    created_at: str,
    project: str | None,
) -> None:
    """Add an active key and announce it (psycopg's UniqueViolation if an active key has the name)."""
    conn.execute(
        "INSERT INTO docs_mcp_keys (name, digest, hint, rate, burst, created_at, project) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (name, digest, hint, rate, burst, created_at, project),
    )
    conn.execute("SELECT pg_notify(%s, %s)", (KEYS_CHANNEL, "create:" + digest.hex()))


def all_keys(conn: Any) -> list[tuple[Any, ...]]:
    """Every key, revoked ones included, oldest first."""
    return conn.execute(f"SELECT {KEY_COLUMNS} FROM docs_mcp_keys ORDER BY id").fetchall()


def revoke_key(conn: Any, name: str, revoked_at: str) -> tuple[Any, ...] | None:
    """Revoke the active key of ``name`` and announce it: its (digest, *row), or None if there is none."""
    row = conn.execute(
        f"UPDATE docs_mcp_keys SET revoked_at = %s WHERE name = %s AND revoked_at IS NULL RETURNING digest, {KEY_COLUMNS}",
        (revoked_at, name),
    ).fetchone()
    if row is not None:
        conn.execute("SELECT pg_notify(%s, %s)", (KEYS_CHANNEL, "revoke:" + bytes(row[0]).hex()))
    return row


def active_key(conn: Any, digest: bytes) -> tuple[Any, ...] | None:
    """The active key with this digest, as (digest, *row), or None."""
    return conn.execute(
        f"SELECT digest, {KEY_COLUMNS} FROM docs_mcp_keys WHERE digest = %s AND revoked_at IS NULL", (digest,)
    ).fetchone()


def active_keys(conn: Any) -> list[tuple[Any, ...]]:
    """Every active key, as (digest, *row)."""
    return conn.execute(f"SELECT digest, {KEY_COLUMNS} FROM docs_mcp_keys WHERE revoked_at IS NULL").fetchall()


def default_replica_name(port: int) -> str:
    """host:port, unique per machine and listening port."""
    return f"{socket.gethostname()}:{port}"


def _password(url: str) -> tuple[str, ...]:
    """The password in a conninfo (key=value or URL form), to mask wherever the text quotes it."""
    try:
        params = psycopg_module().conninfo.conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - an unparsable URL: redact() still masks a URL's userinfo
        return ()
    return (str(params["password"]),) if params.get("password") else ()
