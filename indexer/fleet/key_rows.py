"""The fleet's API keys table (``docs_mcp_keys``): every statement on it, over a psycopg connection.

The control plane's SQL lives in this package (the schema, heartbeats, events and the build
lock in control.py, the generations in generations.py, the keys here); the key store and the
verifier of a replica (server/team/postgres_keys.py) turn these rows into ``ApiKey`` records.
A row is ``(name, hint, rate, burst, created_at, revoked_at, project)``, led by the key's
digest where the caller needs it. Every create and revoke NOTIFYs ``KEYS_CHANNEL`` in the
caller's transaction, with the digest, so every replica hears of it.
"""

from __future__ import annotations

from typing import Any

from docs_mcp.indexer.fleet.control import KEYS_CHANNEL

KEY_COLUMNS = "name, hint, rate, burst, created_at, revoked_at, project"


def insert_key(conn: Any, name: str, digest: bytes, hint: str, rate: int | None, burst: int | None, created_at: str,
               project: str | None) -> None:
    """Add an active key and announce it (psycopg's UniqueViolation if an active key has the name)."""
    conn.execute("INSERT INTO docs_mcp_keys (name, digest, hint, rate, burst, created_at, project) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                 (name, digest, hint, rate, burst, created_at, project))
    conn.execute("SELECT pg_notify(%s, %s)", (KEYS_CHANNEL, "create:" + digest.hex()))


def all_keys(conn: Any) -> list[tuple[Any, ...]]:
    """Every key, revoked ones included, oldest first."""
    return conn.execute(f"SELECT {KEY_COLUMNS} FROM docs_mcp_keys ORDER BY id").fetchall()


def revoke_key(conn: Any, name: str, revoked_at: str) -> tuple[Any, ...] | None:
    """Revoke the active key of ``name`` and announce it: its (digest, *row), or None if there is none."""
    row = conn.execute(
        f"UPDATE docs_mcp_keys SET revoked_at = %s WHERE name = %s AND revoked_at IS NULL RETURNING digest, {KEY_COLUMNS}",
        (revoked_at, name)).fetchone()
    if row is not None:
        conn.execute("SELECT pg_notify(%s, %s)", (KEYS_CHANNEL, "revoke:" + bytes(row[0]).hex()))
    return row


def active_key(conn: Any, digest: bytes) -> tuple[Any, ...] | None:
    """The active key with this digest, as (digest, *row), or None."""
    return conn.execute(f"SELECT digest, {KEY_COLUMNS} FROM docs_mcp_keys WHERE digest = %s AND revoked_at IS NULL", (digest,)).fetchone()


def active_keys(conn: Any) -> list[tuple[Any, ...]]:
    """Every active key, as (digest, *row)."""
    return conn.execute(f"SELECT digest, {KEY_COLUMNS} FROM docs_mcp_keys WHERE revoked_at IS NULL").fetchall()
