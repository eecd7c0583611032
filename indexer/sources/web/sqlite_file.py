"""The SQLite files beside an index that remember what was fetched: the page cache, the crawl record, the
registry answers. One way to open them, so each gets the same journaling and thread settings."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path


def open_sqlite_file(
    path: Path, schema: Sequence[str], *, timeout: float = 10.0, autocommit: bool = False
) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` (its folder made), with ``schema``'s statements applied.

    WAL journaling lets readers go on while one writer writes; the connection may be used from any thread, so its
    owner guards it with a lock. ``autocommit``: every statement commits itself (no implicit transactions).
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(
        str(path), check_same_thread=False, timeout=timeout, isolation_level=None if autocommit else "DEFERRED"
    )
    _write_ahead_log(connection, timeout)
    for statement in schema:
        connection.execute(statement)
    connection.commit()
    return connection


def _write_ahead_log(connection: sqlite3.Connection, timeout: float) -> None:
    """Switch the file to WAL journaling (a setting the file keeps). Two processes opening a new file at once:
    the switch of one answers "database is locked" to the other at once, without waiting for the busy timeout,
    so it is tried again until the other is done (it takes milliseconds) or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)  # a retry pause, not a synchronization
