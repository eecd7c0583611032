"""The index store the indexer writes: one generation's DuckDB file, read through one cursor per thread.

The only module of the read side that speaks SQL: every query is data (module constants run
with bound parameters) and runs through ``index_file.fetch_all``, where DuckDB's errors become
IndexFormatError. A DuckDB connection must not be used by two threads at once; a cursor is a
connection of its own to the same database, so concurrent requests read in parallel instead
of queueing on a lock. Cursors are made on a thread's first query and all closed with the store.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import orjson

from docs_mcp.indexer.index_file import IndexReader, fetch_all, open_generation, open_index, translate
from docs_mcp.indexer.index_store import ChunkColumns, HeadingPaths, QueryTerm, StoredChunk
from docs_mcp.indexer.schema import CHUNKS_TABLE, DB_FILE, FTS_SCHEMA, FTS_STEMMER
from docs_mcp.indexer.stemmer import porter_stems

_WINDOW_COLUMNS = ("chunk_id", "filepath", "heading", "chunk_index", "file_chunk_count", "content", "metadata")

# The target row and its neighbours: same library and file, chunk_index within
# `context` of the target's.  One round trip, and no rows means "not found".
WINDOW_SQL = f"""
SELECT {", ".join(f"w.{column}" for column in _WINDOW_COLUMNS)}
FROM {CHUNKS_TABLE} AS t
JOIN {CHUNKS_TABLE} AS w ON w.library = t.library AND w.filepath = t.filepath
WHERE t.chunk_id = $chunk_id
  AND w.chunk_index BETWEEN t.chunk_index - $context AND t.chunk_index + $context
ORDER BY w.chunk_index
"""
FIRST_OF_PAGE_SQL = f"""
SELECT chunk_id, file_chunk_count FROM {CHUNKS_TABLE}
WHERE filepath = $filepath ORDER BY library, chunk_index LIMIT 1
"""
PAGE_SQL = f"SELECT content FROM {CHUNKS_TABLE} WHERE filepath = $filepath ORDER BY chunk_index"
CONTENT_SQL = f"SELECT chunk_id, content FROM {CHUNKS_TABLE} WHERE chunk_id IN (SELECT unnest($ids::VARCHAR[]))"
# Query words as index terms: stemmed like the index, stopwords and unknown words told apart.
QUERY_TERMS_SQL = f"""
WITH words AS (SELECT DISTINCT unnest($words::VARCHAR[]) AS word)
SELECT word, stem(word, '{FTS_STEMMER}') AS term,
       word IN (SELECT sw FROM {FTS_SCHEMA}.stopwords) AS stopword
FROM words ORDER BY word
"""
# Which of those terms occur (in any field) in which chunks (chunks.id).
COVERAGE_SQL = f"""
SELECT DISTINCT d.name AS chunk, dict.term
FROM {FTS_SCHEMA}.terms t
JOIN {FTS_SCHEMA}.docs d USING (docid)
JOIN {FTS_SCHEMA}.dict dict USING (termid)
WHERE dict.term IN (SELECT unnest($terms::VARCHAR[])) AND d.name IN (SELECT unnest($chunks::INTEGER[]))
"""
COLUMNS_SQL = f"SELECT chunk_id, heading, breadcrumb, filepath, metadata FROM {CHUNKS_TABLE} ORDER BY id"
HEADING_PATHS_SQL = f"SELECT chunk_id, filepath, heading_path, headings FROM {CHUNKS_TABLE} ORDER BY id"
CHUNK_HEADINGS_SQL = f"SELECT id, headings FROM {CHUNKS_TABLE} WHERE id IN (SELECT unnest($rows::INTEGER[]))"


class DuckDBStore:
    """One generation of an index as the indexer wrote it (``IndexStore``); safe to share between threads."""

    def __init__(self, reader: IndexReader) -> None:
        self._reader = reader
        self.path: Path = reader.path
        self.generation: str = reader.generation
        self.metadata: Mapping[str, Any] = reader.metadata
        self.model = reader.model
        self._local = threading.local()
        self._opened: list[duckdb.DuckDBPyConnection] = []
        self._lock = threading.Lock()
        self._fts_loaded = False

    def chunk_window(self, chunk_id: str, context: int) -> list[StoredChunk]:
        return [_stored_chunk(row) for row in self._query(WINDOW_SQL, {"chunk_id": chunk_id, "context": context})]

    def first_chunk_of_page(self, filepath: str) -> tuple[str, int] | None:
        rows = self._query(FIRST_OF_PAGE_SQL, {"filepath": filepath})
        return (rows[0][0], int(rows[0][1])) if rows else None

    def page_contents(self, filepath: str) -> list[str]:
        return [row[0] for row in self._query(PAGE_SQL, {"filepath": filepath})]

    def contents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        return dict(self._query(CONTENT_SQL, {"ids": list(chunk_ids)}))

    def stems(self, words: Sequence[str]) -> list[str]:
        return porter_stems(words)  # in process: DuckDB's stem() as a statement costs a millisecond a call

    def query_terms(self, words: Sequence[str]) -> list[QueryTerm]:
        self._load_fts()  # its stem(): get_docs' term coverage asks, a search never does
        return [
            QueryTerm(word, term, bool(stopword))
            for word, term, stopword in self._query(QUERY_TERMS_SQL, {"words": list(words)})
        ]

    def term_chunks(self, terms: Sequence[str], rows: Sequence[int]) -> list[tuple[int, str]]:
        found = self._query(COVERAGE_SQL, {"terms": list(terms), "chunks": [int(row) for row in rows]})
        return [(int(chunk), term) for chunk, term in found]

    def columns(self) -> ChunkColumns:
        rows = self._query(COLUMNS_SQL)
        chunk_ids = tuple(r[0] for r in rows)
        return ChunkColumns(
            chunk_id=chunk_ids,
            heading=tuple(r[1] for r in rows),
            breadcrumb=tuple(r[2] for r in rows),
            filepath=tuple(r[3] for r in rows),
            metadata=tuple(orjson.loads(r[4]) for r in rows),
            index_of={cid: i for i, cid in enumerate(chunk_ids)},
        )

    def heading_paths(self) -> list[HeadingPaths]:
        rows = self._query(HEADING_PATHS_SQL)
        return [
            HeadingPaths(cid, fp, tuple(orjson.loads(path)), tuple(orjson.loads(heads)))
            for cid, fp, path, heads in rows
        ]

    def chunk_headings(self, rows: Sequence[int]) -> list[tuple[str, ...]]:
        found = {
            int(row): tuple(orjson.loads(headings))
            for row, headings in self._query(CHUNK_HEADINGS_SQL, {"rows": [int(r) for r in rows]})
        }
        return [found.get(int(row), ()) for row in rows]

    def rows(self, sql: str, parameters: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of one read query of the indexer's own (a build reading back what it keeps); not for the server."""
        return self._query(sql, parameters)

    def close(self) -> None:
        """Close every cursor and the connection; later queries fail."""
        with self._lock:
            for cursor in self._opened:
                cursor.close()
            self._opened.clear()
        self._reader.close()

    def _query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        try:
            cursor = self._cursor()
        except duckdb.Error as error:  # a closed store
            raise translate(error, self.path / self.generation / DB_FILE) from error
        return fetch_all(cursor, sql, parameters)

    def _load_fts(self) -> None:
        with self._lock:
            if not self._fts_loaded:
                self._reader.load_fts()
                self._fts_loaded = True

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """The calling thread's cursor."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            with self._lock:
                cursor = self._reader.conn.cursor()
                self._opened.append(cursor)
            self._local.cursor = cursor
        return cursor


def open_store(index_dir: Path | str, generation: str | None = None) -> DuckDBStore:
    """The live generation of the index at ``index_dir``, or the one named ``generation``, as a store.

    Raises:
        IndexNotFoundError, IndexFormatError, IndexLockedError: from index_file when the index is missing or unreadable.
    """
    index_dir = Path(index_dir)
    return DuckDBStore(open_index(index_dir) if generation is None else open_generation(index_dir, generation))


def _stored_chunk(row: Sequence[Any]) -> StoredChunk:
    values = dict(zip(_WINDOW_COLUMNS, row))
    values["metadata"] = orjson.loads(values["metadata"]) if values["metadata"] else {}
    return StoredChunk(**values)
