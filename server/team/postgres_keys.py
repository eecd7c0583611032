"""API keys in PostgreSQL, for a fleet: the same store interface as keys.sqlite, shared by every machine.

``PostgresKeyStore`` is the CLI's writer (``docs-mcp keys ... --store postgresql://...``, or
``fleet.database_url``); every create and revoke NOTIFYs the channel ``docs_mcp_keys`` in
the same transaction, with the key's digest.

``PostgresKeyVerifier`` is a replica's reader. It keeps the active keys in memory, kept
current by a listener thread: a revocation's notification removes the key at once; a
fallback poll (``poll`` seconds) catches anything missed, and every reconnection reloads
the whole table. A key not in memory (created a moment ago) is looked up in PostgreSQL
before it is refused. Connections ask for a read-write node, so after a standby is
promoted the listener reconnects to the new primary from a multi-host URL.

While PostgreSQL is unreachable the replica keeps verifying from memory for at most
``max_staleness`` seconds (a revocation made meanwhile could be missed), then refuses with
503 and says so on /healthz.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Literal

from docs_mcp.indexer.errors import ControlPlaneError
from docs_mcp.indexer.fleet.control import (
    KEYS_CHANNEL,
    active_key,
    active_keys,
    all_keys,
    connect,
    ensure_schema,
    insert_key,
    listen,
    revoke_key,
    translated,
)
from docs_mcp.redact import redact
from docs_mcp.server.team.errors import KeyExistsError, KeyNotFoundError, KeyStoreError
from docs_mcp.server.team.keys import ApiKey, digest_key, is_well_formed, matching_key, new_key, now_text

logger = logging.getLogger(__name__)

POLL_SECONDS = 5.0  # the fallback poll: a missed notification is caught within this
UNKNOWN_REMEMBERED = 10_000  # digests found in no row: a key is random and never created twice, so safe to remember
MAX_STALENESS = 60.0  # seconds of verifying from memory while PostgreSQL does not answer
WAKE_SECONDS = 1.0  # the listener looks up from waiting this often (to stop, or to poll when due)


class PostgresKeyStore:
    """The writable key store in PostgreSQL (same methods as KeyStore)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = redact(url)  # what the CLI prints as the store's location

    def create(
        self, name: str, *, rate: int | None = None, burst: int | None = None, project: str | None = None
    ) -> tuple[ApiKey, str]:
        """Add a key; every replica accepts it from its next request on. See KeyStore.create."""
        record, key = new_key(name, rate=rate, burst=burst, project=project)
        psycopg = _psycopg()
        with self._connection() as conn, conn.transaction():
            try:
                insert_key(conn, name, digest_key(key), record.hint, rate, burst, record.created_at, project)
            except psycopg.errors.UniqueViolation:
                raise KeyExistsError(
                    f"An active key named {name!r} already exists.",
                    f"Revoke it first (`docs-mcp keys revoke {name}`) or choose another name.",
                ) from None
        return record, key

    def list(self) -> list[ApiKey]:
        with self._connection() as conn:
            rows = all_keys(conn)
        return [ApiKey(*row) for row in rows]

    def revoke(self, name: str) -> ApiKey:
        """Revoke the active key of ``name``; every replica refuses it from its next request on. See KeyStore.revoke."""
        with self._connection() as conn, conn.transaction():
            row = revoke_key(conn, name, now_text())
        if row is None:
            raise KeyNotFoundError(f"No active key named {name!r}.", "See the names with `docs-mcp keys list`.")
        return ApiKey(*row[1:])

    def _connection(self) -> Any:
        try:
            conn = connect(self.url, application="docs-mcp-keys-admin")
            ensure_schema(conn)
        except ControlPlaneError as error:
            raise KeyStoreError(error.message, error.hint) from None
        return _Translated(conn, self.url)


class _Translated:
    """A connection whose psycopg errors leave the block as KeyStoreError (after it is closed)."""

    def __init__(self, conn: Any, url: str) -> None:
        self.conn, self.url = conn, url

    def __enter__(self) -> Any:
        return self.conn

    def __exit__(self, kind: Any, error: Any, trace: Any) -> Literal[False]:
        self.conn.close()
        if error is not None and isinstance(error, _psycopg().Error):
            raise KeyStoreError(
                redact(f"The key store at {self.url} failed: {error}".strip()),
                "Check that PostgreSQL answers (fleet.database_url), then retry.",
            ) from None
        return False


class PostgresKeyVerifier:
    """A replica's view of the keys in PostgreSQL: in memory, kept current by LISTEN/NOTIFY and a fallback poll."""

    def __init__(self, url: str, *, poll: float = POLL_SECONDS, max_staleness: float = MAX_STALENESS) -> None:
        self.url = url
        self._poll, self._max_staleness = poll, max_staleness
        self._lock = threading.Lock()
        self._active: dict[bytes, ApiKey] = {}
        self._confirmed = time.monotonic()  # when memory last matched the table
        self._stop = threading.Event()
        self._lookups: Any = None  # connection for keys not in memory; guarded by _lookup_lock
        self._lookup_lock = threading.Lock()
        self._unknown: OrderedDict[bytes, None] = (
            OrderedDict()
        )  # presented digests no key has (guarded by _lookup_lock)
        self._reload(self._connect("docs-mcp-keys"), close=True)  # fail at start, not on the first request
        self._thread = threading.Thread(target=self._listen, name="docs-mcp-keys-listener", daemon=True)
        self._thread.start()

    def verify(self, presented: str) -> ApiKey | None:
        """The active key matching ``presented``, or None.

        Raises:
            KeyStoreError: PostgreSQL has not answered for longer than ``max_staleness``, or a key
                not in memory cannot be looked up.
        """
        if not is_well_formed(presented):
            return None
        with self._lock:
            self._check_fresh()
            match = matching_key(presented, self._active)
        return match if match is not None else self._lookup(digest_key(presented))

    def active_count(self) -> int:
        with self._lock:
            self._check_fresh()
            return len(self._active)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=WAKE_SECONDS + 10)
        with self._lookup_lock:
            if self._lookups is not None:
                self._lookups.close()
                self._lookups = None

    def _check_fresh(self) -> None:
        if time.monotonic() - self._confirmed > self._max_staleness:
            raise KeyStoreError(
                f"The key store in PostgreSQL has not answered for over {self._max_staleness:g} s.",
                "Check that a primary PostgreSQL node answers (fleet.database_url).",
            )

    def _lookup(self, digest: bytes) -> ApiKey | None:
        """A key not in memory: one query, so a key created a moment ago works on its first request.

        A digest found in no row is remembered (bounded): presenting the same wrong key again costs
        no query. A connection broken since its last use (the primary changed) is replaced once, at once.
        """
        with self._lookup_lock:
            if digest in self._unknown:
                return None
            for attempt in (1, 2):
                fresh = self._lookups is None
                try:
                    if self._lookups is None:
                        self._lookups = self._connect("docs-mcp-keys-lookup")
                    with translated(self.url, "look a key up in"):
                        row = active_key(self._lookups, digest)
                    break
                except (ControlPlaneError, KeyStoreError) as error:
                    if self._lookups is not None:
                        self._lookups.close()
                    self._lookups = None
                    if fresh or attempt == 2:
                        raise KeyStoreError(error.message, error.hint) from None
            if row is None:
                self._unknown[digest] = None
                if len(self._unknown) > UNKNOWN_REMEMBERED:
                    self._unknown.popitem(last=False)
                return None
        key = ApiKey(*row[1:])
        with self._lock:
            self._active[bytes(row[0])] = key
        return key

    def _connect(self, application: str) -> Any:
        try:
            conn = connect(self.url, application=application)
            ensure_schema(conn)
            return conn
        except ControlPlaneError as error:
            raise KeyStoreError(error.message, error.hint) from None

    def _reload(self, conn: Any, *, close: bool = False) -> None:
        try:
            with translated(self.url, "read the keys from"):
                rows = active_keys(conn)
        except ControlPlaneError as error:
            raise KeyStoreError(error.message, error.hint) from None
        finally:
            if close:
                conn.close()
        with self._lock:
            self._active = {bytes(row[0]): ApiKey(*row[1:]) for row in rows}
            self._confirmed = time.monotonic()

    def _listen(self) -> None:
        """Listen for key changes until closed; reconnect (to whichever node is primary) after any failure."""
        while not self._stop.is_set():
            conn = None
            try:
                conn = self._connect("docs-mcp-keys")
                listen(conn, KEYS_CHANNEL)
                self._reload(conn)  # after LISTEN: nothing committed from here on is missed
                due = time.monotonic() + self._poll
                while not self._stop.is_set():
                    notified = False
                    for note in conn.notifies(timeout=WAKE_SECONDS, stop_after=1):
                        self._apply(note.payload)
                        notified = True
                    if notified or time.monotonic() >= due:
                        self._reload(conn)  # the fallback poll, and the confirmation that memory is current
                        due = time.monotonic() + self._poll
            except (KeyStoreError, _psycopg().Error, OSError) as error:
                logger.warning("key store listener: %s; reconnecting", redact(str(error)))
                self._stop.wait(0.5)  # not a synchronization: a pause between reconnection attempts
            finally:
                if conn is not None:
                    conn.close()

    def _apply(self, payload: str) -> None:
        """A revocation leaves memory at once (the reload that follows confirms the rest)."""
        action, _, digest = payload.partition(":")
        if action == "revoke":
            with self._lock:
                self._active.pop(bytes.fromhex(digest), None)


def _psycopg() -> Any:
    from docs_mcp.indexer.fleet.control import psycopg_module

    return psycopg_module()
