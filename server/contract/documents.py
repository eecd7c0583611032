"""Reading stored chunks back for get_doc: one chunk and its neighbours in the same file.

The SQL is data (module constants run with bound parameters), run through the
indexer's ``fetch_all``, where duckdb errors become IndexFormatError.
"""

from __future__ import annotations

from typing import Any, Sequence

import duckdb
import orjson

from docs_mcp.indexer.index_file import fetch_all
from docs_mcp.indexer.schema import CHUNKS_TABLE
from docs_mcp.server.search.records import StoredChunk

_COLUMNS = ("chunk_id", "filepath", "heading", "chunk_index", "file_chunk_count", "content", "metadata")

# The target row and its neighbours: same library and file, chunk_index within
# `context` of the target's.  One round trip, and no rows means "not found".
WINDOW_SQL = f"""
SELECT {", ".join(f"w.{column}" for column in _COLUMNS)}
FROM {CHUNKS_TABLE} AS t
JOIN {CHUNKS_TABLE} AS w ON w.library = t.library AND w.filepath = t.filepath
WHERE t.chunk_id = $chunk_id
  AND w.chunk_index BETWEEN t.chunk_index - $context AND t.chunk_index + $context
ORDER BY w.chunk_index
"""


def chunk_window(conn: duckdb.DuckDBPyConnection, chunk_id: str, context: int) -> list[StoredChunk]:
    """The chunk ``chunk_id`` and up to ``context`` chunks either side of it, in file order.

    Returns an empty list when no chunk has that ID; the window is clipped at
    the ends of the file.

    Raises:
        IndexFormatError: the index cannot be read (corrupt, or not a docs-mcp index).
    """
    rows = fetch_all(conn, WINDOW_SQL, {"chunk_id": chunk_id, "context": context})
    return [_stored_chunk(row) for row in rows]


def _stored_chunk(row: Sequence[Any]) -> StoredChunk:
    values = dict(zip(_COLUMNS, row))
    values["metadata"] = orjson.loads(values["metadata"]) if values["metadata"] else {}
    return StoredChunk(**values)


FIRST_OF_PAGE_SQL = f"""
SELECT chunk_id, file_chunk_count FROM {CHUNKS_TABLE}
WHERE filepath = $filepath ORDER BY library, chunk_index LIMIT 1
"""


def first_chunk_of_page(conn: duckdb.DuckDBPyConnection, filepath: str) -> tuple[str, int] | None:
    """The ID of the first chunk of the page ``filepath`` and its number of chunks, or None for no such page."""
    rows = fetch_all(conn, FIRST_OF_PAGE_SQL, {"filepath": filepath})
    return (rows[0][0], int(rows[0][1])) if rows else None
