"""Records the server passes around: search hits and pages (and the index store's stored chunks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from docs_mcp.indexer.index_store import StoredChunk as StoredChunk  # get_doc's record, owned by the index store


@dataclass(frozen=True)
class Hit:
    """One search result, in the contract's shape plus per-signal ranks for explanations."""

    chunk_id: str
    score: float
    heading: str
    breadcrumb: str
    snippet: str
    filepath: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    lexical_rank: int | None = None  # 1-based rank in the BM25 list, None if absent
    vector_rank: int | None = None  # 1-based rank in the vector list, None if absent
    row: int = -1  # the chunk's row in its generation (its markdown is read by it); -1 when not known


@dataclass(frozen=True)
class SearchPage:
    """One page of a ranked result list; ``has_more`` says whether a next page exists."""

    hits: tuple[Hit, ...]
    has_more: bool
