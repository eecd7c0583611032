"""One DuckDB cursor per thread over a generation's read-only connection.

A DuckDB connection must not be used by two threads at once; a cursor is a connection
of its own to the same database, so concurrent searches read in parallel instead of
queueing on a lock.  Cursors are made on a thread's first query and all closed with
the generation.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

import duckdb

from docs_mcp.indexer.index_file import fetch_all


class ThreadCursors:
    """``query`` runs on the calling thread's own cursor, through the indexer's read boundary."""

    def __init__(self, conn: duckdb.DuckDBPyConnection) -> None:
        self._conn = conn
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

    def query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """All rows of ``sql`` (named parameters).

        Raises:
            IndexFormatError: the index cannot be read.
        """
        return fetch_all(self.cursor(), sql, parameters)

    def close(self) -> None:
        """Close every cursor; later queries fail."""
        with self._lock:
            for cursor in self._opened:
                cursor.close()
            self._opened.clear()
