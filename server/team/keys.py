"""API keys: ``dm_`` + 40 base64url characters, shown once, stored only as SHA-256 digests in SQLite.

The store is one small SQLite file (``keys.sqlite`` next to the index by
default).  It is not part of the index: the indexer's generation swap never
touches it, and the server opens it read-only.  ``KeyStore`` is the CLI's
writer; ``KeyVerifier`` is the server's reader, which notices keys created or
revoked by another process from the next request on.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from docs_mcp.server.team.errors import KeyExistsError, KeyNotFoundError, KeyStoreError

KEY_PREFIX = "dm_"
_KEY_RE = re.compile(r"dm_[A-Za-z0-9_-]{40}")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_SECRET_BYTES = 30  # 30 random bytes are exactly 40 base64url characters, without padding

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS keys (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        digest BLOB NOT NULL UNIQUE,   -- sha256(key); the key itself is never stored
        hint TEXT NOT NULL,            -- dm_ + first 4 characters, to tell keys apart in `keys list`
        rate INTEGER,                  -- requests per minute; NULL: the server's default
        burst INTEGER,                 -- bucket size; NULL: the server's default
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        project TEXT                   -- the gateway's tool_permissions project; NULL: none
    )""",
    # A name can be reused once its key is revoked (rotation), never twice at once.
    "CREATE UNIQUE INDEX IF NOT EXISTS keys_active_name ON keys (name) WHERE revoked_at IS NULL",
)
_COLUMNS = "name, hint, rate, burst, created_at, revoked_at, project"
# Columns added after the first release, with their definitions: a store without them gets them
# on its next write transaction; until then readers see NULL.
_MIGRATIONS = (("project", "TEXT"),)


@dataclass(frozen=True)
class ApiKey:
    """What the store knows about one key (never the key itself)."""

    name: str
    hint: str
    rate: int | None
    burst: int | None
    created_at: str
    revoked_at: str | None = None
    project: str | None = None


def generate_key() -> str:
    """A new random API key: ``dm_`` followed by 40 base64url characters."""
    return KEY_PREFIX + secrets.token_urlsafe(_SECRET_BYTES)


def digest_key(key: str) -> bytes:
    """The SHA-256 digest under which a key is stored and looked up."""
    return hashlib.sha256(key.encode("utf-8")).digest()


def new_key(
    name: str, *, rate: int | None = None, burst: int | None = None, project: str | None = None
) -> tuple[ApiKey, str]:
    """A new key for ``name`` and its record (what every key store keeps), after checking the names.

    Raises:
        KeyStoreError: the name or project is invalid.
    """
    for label, value in (("Key name", name), ("Project", project)):
        if value is not None and not _NAME_RE.fullmatch(value):
            raise KeyStoreError(
                f"{label} {value!r} is invalid.",
                "Use 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit (e.g. alice).",
            )
    key = generate_key()
    return ApiKey(name, key[: len(KEY_PREFIX) + 4], rate, burst, now_text(), project=project), key


def matching_key(presented: str, active: dict[bytes, ApiKey]) -> ApiKey | None:
    """The key of ``active`` (digest -> record) that ``presented`` is, compared in constant time.

    Every active digest is compared, so how long a check takes says nothing about which
    stored key (if any) the presented one resembles.
    """
    if not _KEY_RE.fullmatch(presented):
        return None
    digest = digest_key(presented)
    match = None
    for stored, key in active.items():  # no early exit: every check costs the same
        if hmac.compare_digest(stored, digest):
            match = key
    return match


def is_well_formed(presented: str) -> bool:
    """Whether ``presented`` has the shape of a key (``dm_`` + 40 base64url characters)."""
    return _KEY_RE.fullmatch(presented) is not None


def now_text() -> str:
    """Now, as the store records dates (UTC, ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class KeyStore:
    """The writable key store used by `docs-mcp keys`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def create(
        self, name: str, *, rate: int | None = None, burst: int | None = None, project: str | None = None
    ) -> tuple[ApiKey, str]:
        """Add a key for ``name`` (in ``project``, for the gateway's tool permissions); returns its
        record and the key, which is shown once and never again.

        Raises:
            KeyStoreError: the name or project is invalid or the store cannot be written.
            KeyExistsError: ``name`` already has an active key.
        """
        record, key = new_key(name, rate=rate, burst=burst, project=project)
        with _transaction(self.path, create=True) as conn:
            try:
                conn.execute(
                    "INSERT INTO keys (name, digest, hint, rate, burst, created_at, project) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (name, digest_key(key), record.hint, rate, burst, record.created_at, project),
                )
            except sqlite3.IntegrityError:
                raise KeyExistsError(
                    f"An active key named {name!r} already exists.",
                    f"Revoke it first (`docs-mcp keys revoke {name}`) or choose another name.",
                ) from None
        return record, key

    def list(self) -> list[ApiKey]:
        """Every key, active and revoked, oldest first."""
        if not self.path.exists():
            return []
        with _transaction(self.path) as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM keys ORDER BY id").fetchall()
        return [ApiKey(*row) for row in rows]

    def revoke(self, name: str) -> ApiKey:
        """Revoke the active key of ``name``; servers refuse it from their next request on.

        Raises:
            KeyNotFoundError: no active key has that name.
            KeyStoreError: the store cannot be written.
        """
        row = None
        if self.path.exists():
            with _transaction(self.path) as conn:
                row = conn.execute(
                    f"UPDATE keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL RETURNING {_COLUMNS}",
                    (now_text(), name),
                ).fetchone()
        if row is None:
            raise KeyNotFoundError(f"No active key named {name!r}.", "See the names with `docs-mcp keys list`.")
        return ApiKey(*row)


@contextmanager
def _transaction(path: Path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """One write transaction on the store; sqlite3 errors become KeyStoreError here and only here."""
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o600, exist_ok=True)  # digests only, but nobody else needs to read them
        conn = sqlite3.connect(path, timeout=10, isolation_level=None)
    except (sqlite3.Error, OSError) as error:
        raise _store_error(path, error) from None
    with closing(conn):
        try:
            conn.execute("BEGIN IMMEDIATE")
            if create:
                for statement in _SCHEMA:
                    conn.execute(statement)
            _migrate(conn)
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as error:  # closing without COMMIT rolls back
            raise _store_error(path, error) from None


def _missing_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The migrations a store still lacks (none for a store without a keys table yet)."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(keys)").fetchall()}
    return [(name, kind) for name, kind in _MIGRATIONS if have and name not in have]


def _migrate(conn: sqlite3.Connection) -> None:
    for name, kind in _missing_columns(conn):
        conn.execute(f"ALTER TABLE keys ADD COLUMN {name} {kind}")


def _select_columns(conn: sqlite3.Connection) -> str:
    """_COLUMNS, with NULL for columns an older store does not have yet (readers never migrate)."""
    missing = {name for name, _ in _missing_columns(conn)}
    return ", ".join(f"NULL AS {c}" if c in missing else c for c in _COLUMNS.split(", "))


def _store_error(path: Path, error: BaseException) -> KeyStoreError:
    return KeyStoreError(
        f"Key store {path} cannot be used: {error}.",
        "Check the path and its permissions, or set keys.store / DOCS_MCP_KEY_STORE to another file.",
    )


class KeyReader(Protocol):
    """What the server asks of a key store: KeyVerifier (SQLite) or PostgresKeyVerifier (a fleet)."""

    def verify(self, presented: str) -> ApiKey | None: ...

    def active_count(self) -> int: ...

    def close(self) -> None: ...


class KeyVerifier:
    """The server's read-only view of the store, refreshed whenever another process changes it.

    Changes come two ways: a commit by another process (``keys create``/``revoke``: SQLite's
    ``data_version`` moves), or a new file in the store's place (a backup restored, a mounted
    secret updated by a symlink swap, a copy over it): its device, inode, modification time or
    size differ from the file the connection has open, so it is opened again. A store that
    existed and is gone makes every check fail (KeyStoreError: 503, and /healthz says the
    store is unavailable) rather than serve the keys of a file that no longer exists.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._version: int | None = None
        self._file: tuple[int, int, int, int] | None = None  # (device, inode, mtime_ns, size) of the file opened
        self._opened_once = False
        self._active: dict[bytes, ApiKey] = {}

    def verify(self, presented: str) -> ApiKey | None:
        """The active key matching ``presented``, or None (compared in constant time: ``matching_key``).

        Raises:
            KeyStoreError: the store exists but cannot be read, or it existed and is gone.
        """
        self._refresh()
        return matching_key(presented, self._active)

    def active_count(self) -> int:
        """How many keys are active now (for the start-up warning and /healthz).

        Raises:
            KeyStoreError: as for ``verify``.
        """
        self._refresh()
        return len(self._active)

    def _refresh(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._forget()
            if self._opened_once:
                raise KeyStoreError(
                    f"Key store {self.path} is gone (deleted or moved while the server runs); every request is refused.",
                    "Restore the file (or point keys.store / DOCS_MCP_KEY_STORE at it); the server reads it again at once.",
                ) from None
            return  # no key created yet: every key is refused until one is
        except OSError as error:
            raise _store_error(self.path, error) from None
        identity = (stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size)
        try:
            if self._conn is not None and identity != self._file:
                self._forget()  # another file in its place, or one rewritten under SQLite's feet: read it afresh
            if self._conn is None:
                self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
                self._file, self._opened_once = identity, True
            # data_version changes when another connection commits: a cheap "did anything change?".
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if version != self._version:
                rows = self._conn.execute(
                    f"SELECT digest, {_select_columns(self._conn)} FROM keys WHERE revoked_at IS NULL"
                ).fetchall()
                self._active = {bytes(row[0]): ApiKey(*row[1:]) for row in rows}
                self._version = version
        except sqlite3.Error as error:
            self._forget()
            raise _store_error(self.path, error) from None

    def _forget(self) -> None:
        """Close the connection and drop what was read through it."""
        self.close()
        self._active, self._version, self._file = {}, None, None

    def close(self) -> None:
        """Close the read connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
