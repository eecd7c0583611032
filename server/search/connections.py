"""One DuckDB cursor per thread over a generation's read-only connection.

A DuckDB connection must not be used by two threads at once; a cursor is a connection
of its own to the same database, so concurrent searches read in parallel instead of
queueing on a lock.  Cursors are made on a thread's first query and all closed with
the generation.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

import duckdb

from docs_mcp.indexer.index_file import translate


class ThreadCursors:
    """``query`` runs on the calling thread's own cursor; DuckDB errors become ours here."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, db_path: Path) -> None:
        self._conn = conn
        self._db_path = db_path
        self._local = threading.local()
        self._opened: list[duckdb.DuckDBPyConnection] = []
        self._lock = threading.Lock()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """The calling thread's cursor (for callers that run their own SQL)."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            with self._lock:
                cursor = self._conn.cursor()
                self._opened.append(cursor)
            self._local.cursor = cursor
        return cursor

    def query(self, sql: str, parameters: Sequence[Any] | None = None) -> list[tuple]:
        """All rows of ``sql``.

        Raises:
            IndexFormatError, IndexLockedError: translated from DuckDB's error.
        """
        try:
            return self.cursor().execute(sql, parameters).fetchall()
        except duckdb.Error as error:
            raise translate(error, self._db_path) from error

    def close(self) -> None:
        """Close every cursor; later queries fail."""
        with self._lock:
            for cursor in self._opened:
                cursor.close()
            self._opened.clear()
