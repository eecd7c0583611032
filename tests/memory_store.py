"""A second IndexStore: the chunk records and term sets of one generation held in Python lists.

It proves the storage seam (indexer/index_store.py): search, the contract tools and the library
tools run on it unchanged, and answer byte for byte what they answer over DuckDB. It speaks no
SQL: stems come from indexer/stemmer.py (as the DuckDB store's),
term occurrences from the generation's postings, records from a copy of the chunks table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from docs_mcp.indexer.index_file import open_index
from docs_mcp.indexer.index_store import ChunkColumns, HeadingPaths, QueryTerm, StoredChunk
from docs_mcp.indexer.records import ModelIdentity
from docs_mcp.indexer.schema import CHUNKS_TABLE
from docs_mcp.indexer.serving.reader import open_serving_arrays
from docs_mcp.indexer.stemmer import porter_stems

_COLUMNS = ("chunk_id", "library", "filepath", "heading", "breadcrumb", "chunk_index", "file_chunk_count", "content", "metadata",
            "heading_path", "headings")  # fmt: skip


@dataclass(frozen=True)
class MemoryChunk:
    """One row of the chunks table, by chunks.id."""

    chunk_id: str
    library: str
    filepath: str
    heading: str
    breadcrumb: str
    chunk_index: int
    file_chunk_count: int
    content: str
    metadata: Mapping[str, str]
    heading_path: tuple[str, ...]
    headings: tuple[str, ...]


class MemoryStore:
    """An ``IndexStore`` over records in memory (``chunks[i]`` is chunks.id i; ``terms[i]`` its index terms)."""

    def __init__(
        self,
        path: Path,
        generation: str,
        metadata: Mapping[str, Any],
        model: ModelIdentity | None,
        chunks: Sequence[MemoryChunk],
        terms: Sequence[frozenset[str]],
        stopwords: frozenset[str],
    ) -> None:
        self.path, self.generation, self.metadata, self.model = path, generation, metadata, model
        self._chunks = list(chunks)
        self._terms = list(terms)
        self._stopwords = stopwords
        self._by_id = {chunk.chunk_id: row for row, chunk in enumerate(self._chunks)}
        self.closed = False

    def chunk_window(self, chunk_id: str, context: int) -> list[StoredChunk]:
        target = self._chunks[self._by_id[chunk_id]] if chunk_id in self._by_id else None
        if target is None:
            return []
        near = [c for c in self._chunks if (c.library, c.filepath) == (target.library, target.filepath)
                and abs(c.chunk_index - target.chunk_index) <= context]  # fmt: skip
        return [StoredChunk(c.chunk_id, c.filepath, c.heading, c.chunk_index, c.file_chunk_count, c.content, dict(c.metadata))
                for c in sorted(near, key=lambda c: c.chunk_index)]  # fmt: skip

    def first_chunk_of_page(self, filepath: str) -> tuple[str, int] | None:
        page = sorted((c for c in self._chunks if c.filepath == filepath), key=lambda c: (c.library, c.chunk_index))
        return (page[0].chunk_id, page[0].file_chunk_count) if page else None

    def page_contents(self, filepath: str) -> list[str]:
        return [
            c.content for c in sorted((c for c in self._chunks if c.filepath == filepath), key=lambda c: c.chunk_index)
        ]

    def contents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        return {cid: self._chunks[self._by_id[cid]].content for cid in chunk_ids if cid in self._by_id}

    def stems(self, words: Sequence[str]) -> list[str]:
        return porter_stems(words)

    def query_terms(self, words: Sequence[str]) -> list[QueryTerm]:
        return [
            QueryTerm(word, stem, word in self._stopwords)
            for word, stem in zip(sorted(set(words)), porter_stems(sorted(set(words))))
        ]

    def term_chunks(self, terms: Sequence[str], rows: Sequence[int]) -> list[tuple[int, str]]:
        wanted = set(terms)
        return [(int(row), term) for row in dict.fromkeys(rows) for term in sorted(self._terms[int(row)] & wanted)]

    def columns(self) -> ChunkColumns:
        chunks = self._chunks
        return ChunkColumns(tuple(c.chunk_id for c in chunks), tuple(c.heading for c in chunks), tuple(c.breadcrumb for c in chunks),
                            tuple(c.filepath for c in chunks), tuple(dict(c.metadata) for c in chunks), dict(self._by_id))  # fmt: skip

    def heading_paths(self) -> list[HeadingPaths]:
        return [HeadingPaths(c.chunk_id, c.filepath, c.heading_path, c.headings) for c in self._chunks]

    def chunk_headings(self, rows: Sequence[int]) -> list[tuple[str, ...]]:
        return [self._chunks[int(row)].headings if 0 <= int(row) < len(self._chunks) else () for row in rows]

    def close(self) -> None:
        self.closed = True


def memory_copy(index_dir: Path) -> MemoryStore:
    """The live generation of the index at ``index_dir`` copied into a MemoryStore (records and postings)."""
    with open_index(index_dir) as reader:  # the copy is made once, through the indexer's own reader
        rows = reader.conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM {CHUNKS_TABLE} ORDER BY id").fetchall()
        path, generation, metadata, model = reader.path, reader.generation, reader.metadata, reader.model
    chunks = []
    for row in rows:
        values = dict(zip(_COLUMNS, row))
        values["metadata"] = orjson.loads(values["metadata"])
        values["heading_path"], values["headings"] = (
            tuple(orjson.loads(values["heading_path"])),
            tuple(orjson.loads(values["headings"])),
        )
        chunks.append(MemoryChunk(**values))
    arrays = open_serving_arrays(Path(path) / generation)
    postings = arrays.postings
    terms: list[set[str]] = [set() for _ in chunks]
    for t in range(len(postings.df)):
        term = postings.terms[int(postings.term_offsets[t]) : int(postings.term_offsets[t + 1])].tobytes().decode()
        for doc in postings.docs[int(postings.starts[t]) : int(postings.starts[t + 1])]:
            terms[int(doc)].add(term)
    stopwords = postings.stopwords
    arrays.records.close()
    return MemoryStore(Path(path), generation, metadata, model, chunks, [frozenset(t) for t in terms], stopwords)
