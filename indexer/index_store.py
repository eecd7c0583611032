"""The read side of an index as the server sees it: one interface, whatever engine stores the chunks.

Search, the contract tools and the library tools read a generation only through an
``IndexStore``: chunk records and their neighbours (get_doc), a page's text (read_page),
stems and term statistics (the query side of BM25, get_docs' coverage), every chunk's
columns (the library tools' catalog views). ``duckdb_store.DuckDBStore`` is the one the
indexer writes; ``memory_store.MemoryStore`` holds the same records in Python lists (unit
tests prove that search, contract and library code run unchanged on it). The serving
arrays (postings, vectors, page records) are files beside the store, memory-mapped by the
engine (serving/reader.py), whatever the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from docs_mcp.indexer.records import ModelIdentity


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back from the index, for get_doc."""

    chunk_id: str
    filepath: str
    heading: str
    chunk_index: int
    file_chunk_count: int
    content: str
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChunkColumns:
    """Per-chunk fields of every chunk, indexed by chunks.id: for the library tools, read on first use."""

    chunk_id: tuple[str, ...]
    heading: tuple[str, ...]
    breadcrumb: tuple[str, ...]
    filepath: tuple[str, ...]
    metadata: tuple[Mapping[str, str], ...]
    index_of: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class HeadingPaths:
    """Every chunk's ID, file and headings (by chunks.id): what golden judgments resolve against."""

    chunk_id: str
    filepath: str
    heading_path: tuple[str, ...]
    headings: tuple[str, ...]


@dataclass(frozen=True)
class QueryTerm:
    """A query word as the full-text index sees it: its stem, and whether the index leaves it out."""

    word: str
    term: str
    stopword: bool


class IndexStore(Protocol):
    """One open generation of an index, read-only; safe to share between threads.

    Methods raise IndexFormatError when the stored data cannot be read.
    """

    path: Path  # the index folder (DIR); the generation's files are in DIR/<generation>
    generation: str
    metadata: Mapping[str, Any]  # the generation's metadata.json
    model: ModelIdentity | None  # None: a full-text-only index

    def chunk_window(self, chunk_id: str, context: int) -> list[StoredChunk]:
        """The chunk ``chunk_id`` and up to ``context`` chunks either side of it in its file, in file order
        (clipped at the ends of the file); empty when no chunk has that ID."""
        ...

    def first_chunk_of_page(self, filepath: str) -> tuple[str, int] | None:
        """The ID of the first chunk of the page ``filepath`` and its number of chunks, or None for no such page."""
        ...

    def page_contents(self, filepath: str) -> list[str]:
        """The raw markdown of the page's chunks, in file order (empty for no such page)."""
        ...

    def contents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The raw markdown of each of ``chunk_ids`` that exists."""
        ...

    def stems(self, words: Sequence[str]) -> list[str]:
        """Each word's stem, as the full-text index stems its terms (words never hold a space)."""
        ...

    def query_terms(self, words: Sequence[str]) -> list[QueryTerm]:
        """The distinct ``words`` as index terms, sorted by word."""
        ...

    def term_chunks(self, terms: Sequence[str], rows: Sequence[int]) -> list[tuple[int, str]]:
        """Which of ``terms`` occur (in any field) in which of the chunks ``rows`` (chunks.id), each pair once."""
        ...

    def columns(self) -> ChunkColumns:
        """Every chunk's ID, heading, breadcrumb, path and metadata, by chunks.id."""
        ...

    def heading_paths(self) -> list[HeadingPaths]:
        """Every chunk's ID, file and headings, by chunks.id."""
        ...

    def chunk_headings(self, rows: Sequence[int]) -> list[tuple[str, ...]]:
        """Every heading inside each of the chunks ``rows`` (chunks.id), in order: its own and those under it (a page's
        first chunk holds the page's title); empty for a row that does not exist."""
        ...

    def close(self) -> None:
        """Release the generation; the store is unusable afterwards."""
        ...
