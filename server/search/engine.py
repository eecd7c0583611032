"""The search engine over one index generation: lexical + vector signals, filters, fusion, collapse.

Postings, vectors and the model load on first use (or in ``warm``), so a server
answers ``tools/list`` before any of it is read.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import orjson

from docs_mcp.indexer import open_index
from docs_mcp.indexer.schema import CHUNKS_TABLE
from docs_mcp.server.search.filters import FilterRule, TaxonomyColumns, filter_mask
from docs_mcp.server.search.fusion import select_fusion
from docs_mcp.server.search.lexical import DEFAULT_FIELD_WEIGHTS, LexicalScorer, load_postings, tokenize
from docs_mcp.server.search.records import Hit, SearchPage
from docs_mcp.server.search.semantic import VectorMatrix, load_vectors, similarities
from docs_mcp.server.search.snippets import make_snippet

MODES = ("hybrid", "bm25", "vector")
RECENT_QUERY_VECTORS = 64
QUERY_THREADS = min(2, os.cpu_count() or 1)


@dataclass(frozen=True)
class RankingSettings:
    """Knobs of the ranking; the defaults are what measured best (corpus/guide/ranking.md)."""

    fusion: str = "convex"
    alpha: float = 0.6  # weight of BM25 in the convex sum
    # A chunk found only by the vector signal must be at least this similar to the query:
    # just above the best match of any of 68 nonsense and off-topic queries on FastAPI (0.426).
    similarity_floor: float = 0.43
    # Cosine similarity that counts as "no evidence" when rescaling the vector signal.
    vector_base: float = 0.2
    field_weights: tuple[float, ...] = DEFAULT_FIELD_WEIGHTS
    # Twins across a vector_collapse key share a heading and either most of their words or
    # near-identical vectors. On corpus/ the same section in two SDK languages measured word
    # Jaccard 0.5-1.0 and cosine 0.75-0.94; sections with language-specific code stay apart.
    collapse_jaccard: float = 0.6
    collapse_cosine: float = 0.85
    # A chunk gains this share of the best score in its file: answers cluster in pages.
    file_boost: float = 1.0


@dataclass(frozen=True)
class ChunkColumns:
    """The per-chunk fields a hit needs, indexed by chunks.id."""

    chunk_id: tuple[str, ...]
    heading: tuple[str, ...]
    breadcrumb: tuple[str, ...]
    filepath: tuple[str, ...]
    metadata: tuple[Mapping[str, str], ...]
    index_of: Mapping[str, int] = field(default_factory=dict)


def _read_columns(conn) -> ChunkColumns:
    rows = conn.execute(f"SELECT chunk_id, heading, breadcrumb, filepath, metadata FROM {CHUNKS_TABLE} ORDER BY id").fetchall()
    chunk_ids = tuple(r[0] for r in rows)
    return ChunkColumns(
        chunk_id=chunk_ids,
        heading=tuple(r[1] for r in rows),
        breadcrumb=tuple(r[2] for r in rows),
        filepath=tuple(r[3] for r in rows),
        metadata=tuple(orjson.loads(r[4]) for r in rows),
        index_of={cid: i for i, cid in enumerate(chunk_ids)},
    )


class Engine:
    """Ranks the chunks of one index generation for a query."""

    def __init__(self, reader, settings: RankingSettings | None = None) -> None:
        self.reader = reader
        self.settings = settings or RankingSettings()
        self.generation: str = reader.generation
        self.metadata: dict = reader.metadata
        self._lock = threading.RLock()
        self._fuse = select_fusion(self.settings.fusion)
        with self._lock:
            self.columns = _read_columns(reader.conn)
        files = {path: code for code, path in enumerate(sorted(set(self.columns.filepath)))}
        self.file_codes = np.fromiter((files[p] for p in self.columns.filepath), dtype=np.int64, count=self.size)
        keys = sorted((self.metadata.get("taxonomy") or {}).keys())
        self.taxonomy = TaxonomyColumns.from_metadata(self.columns.metadata, keys)
        self.collapse_keys = tuple(k for k in keys if (self.metadata["taxonomy"][k] or {}).get("vector_collapse"))
        self.filter_rules = {k: FilterRule.from_entry(self.metadata["taxonomy"][k] or {}) for k in keys}
        self._lexical: LexicalScorer | None = None
        self._vectors: VectorMatrix | None = None
        self._vectors_loaded = False
        self._embedder = None
        self._all_texts: tuple[str, ...] | None = None
        self._word_sets: dict[int, frozenset[str]] = {}
        self._recent_vectors: dict[str, np.ndarray] = {}

    @property
    def size(self) -> int:
        return len(self.columns.chunk_id)

    @property
    def has_vectors(self) -> bool:
        return self.reader.model is not None

    def warm(self) -> None:
        """Load postings, vectors and the query model now rather than on the first search."""
        self._lexical_scorer()
        self._texts(())
        self._vector_matrix()
        if self.has_vectors:
            self._query_embedder()

    def close(self) -> None:
        """Close the DuckDB connection and drop what was loaded from it; the engine is unusable afterwards."""
        with self._lock:
            self.reader.close()
            self._lexical = self._vectors = self._embedder = self._all_texts = None
            self._word_sets.clear()
            self._recent_vectors.clear()

    def search(self, query: str, filters: Mapping[str, str] | None = None, *, mode: str = "hybrid", limit: int = 10, offset: int = 0) -> SearchPage:
        """One page of the ranked results for ``query`` under ``filters``.

        Pages come from one deterministic ranking, so consecutive pages are disjoint
        and together equal the full list.
        """
        filters = dict(filters or {})
        order, scores, lexical, vector = self._rank(query, filters, mode, stop_after=offset + limit + 1)
        page = order[offset : offset + limit]
        needles = self._needles(query)
        texts = self._texts(page)
        hits = tuple(self._hit(i, float(scores[i]), texts[i], needles, lexical, vector) for i in page)
        return SearchPage(hits=hits, has_more=len(order) > offset + limit)

    def query_similarities(self, query: str) -> np.ndarray | None:
        """Best-window cosine similarity of every chunk (by chunks.id) to ``query``; None without vectors."""
        matrix = self._vector_matrix()
        if matrix is None or not tokenize(query):
            return None
        return similarities(matrix, self._query_vector(query))

    # -- ranking ---------------------------------------------------------------------------

    def _rank(self, query: str, filters: Mapping[str, str], mode: str, stop_after: int):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        size = self.size
        allowed = filter_mask(self.taxonomy, filters, size, self.filter_rules)
        lexical = np.zeros(size, dtype=np.float32)
        vector = np.full(size, -1.0, dtype=np.float32)
        if mode in ("hybrid", "bm25") and size:
            scorer = self._lexical_scorer()
            lexical = scorer.score(scorer.query_terms(query))
        if mode in ("hybrid", "vector") and self.has_vectors and size and tokenize(query):
            vector = similarities(self._vector_matrix(), self._query_vector(query))
        lexical_present = lexical > 0
        vector_present = vector >= self.settings.vector_base
        if allowed is not None:
            lexical_present &= allowed
            vector_present &= allowed
        candidates = lexical_present | (vector_present & (vector >= self.settings.similarity_floor))
        if mode == "bm25":
            scores = np.where(lexical_present, lexical, 0.0)
        elif mode == "vector":
            scores = np.where(candidates, vector, 0.0)
        else:
            scores = self._fuse(lexical, vector, lexical_present, vector_present, alpha=self.settings.alpha, floor=self.settings.vector_base)
        if self.settings.file_boost and candidates.any():
            scores = scores + self.settings.file_boost * _file_best(scores, candidates, self.file_codes)
        ids = np.flatnonzero(candidates)
        ids = ids[np.lexsort((ids, -scores[ids]))]  # stable tie-break on chunk order
        collapse = [k for k in self.collapse_keys if k not in filters]
        if collapse:
            ids = self._collapse(ids, collapse, stop_after)
        return ids, scores, (lexical, lexical_present), (vector, vector_present)

    def _collapse(self, ordered: np.ndarray, keys: Sequence[str], stop_after: int) -> np.ndarray:
        """Drop chunks that are twins of a better-ranked chunk across a vector_collapse key."""
        kept: list[int] = []
        for i in ordered:
            if not any(self._twins(int(i), k, keys) for k in kept):
                kept.append(int(i))
                if len(kept) >= stop_after:
                    break
        return np.asarray(kept, dtype=np.int64)

    def _twins(self, a: int, b: int, keys: Sequence[str]) -> bool:
        """Same heading, same metadata but for ``keys``, and near-identical text or vectors."""
        meta_a, meta_b = self.columns.metadata[a], self.columns.metadata[b]
        if meta_a == meta_b:
            return False
        others = (set(meta_a) | set(meta_b)) - set(keys)
        if any(meta_a.get(k) != meta_b.get(k) for k in others):
            return False
        if self.columns.heading[a].casefold() != self.columns.heading[b].casefold():
            return False
        if _jaccard(self._word_set(a), self._word_set(b)) >= self.settings.collapse_jaccard:
            return True
        matrix = self._vector_matrix()
        va = self._first_window(matrix, a) if matrix is not None else None
        vb = self._first_window(matrix, b) if matrix is not None else None
        return va is not None and vb is not None and float(va @ vb) >= self.settings.collapse_cosine

    def _word_set(self, chunk: int) -> frozenset[str]:
        if chunk not in self._word_sets:
            self._word_sets[chunk] = frozenset(tokenize(self._texts((chunk,))[chunk]))
        return self._word_sets[chunk]

    @staticmethod
    def _first_window(matrix: VectorMatrix, chunk: int) -> np.ndarray | None:
        position = np.searchsorted(matrix.chunks, chunk)
        if position < len(matrix.chunks) and matrix.chunks[position] == chunk:
            return matrix.vectors[matrix.starts[position]]
        return None

    # -- hits --------------------------------------------------------------------------------

    def _hit(self, i: int, score: float, text: str, needles, lexical, vector) -> Hit:
        c = self.columns
        return Hit(
            chunk_id=c.chunk_id[i],
            score=round(score, 6),
            heading=c.heading[i],
            breadcrumb=c.breadcrumb[i],
            snippet=make_snippet(text, needles),
            filepath=c.filepath[i],
            metadata=dict(c.metadata[i]),
            lexical_rank=_rank_of(i, *lexical),
            vector_rank=_rank_of(i, *vector),
        )

    def _needles(self, query: str) -> tuple[str, ...]:
        words = tokenize(query)
        scorer = self._lexical_scorer()
        return tuple(words) + tuple(scorer.stems(words))

    def _texts(self, page: Sequence[int]) -> dict[int, str]:
        with self._lock:
            if self._all_texts is None:
                rows = self.reader.conn.execute(f"SELECT text FROM {CHUNKS_TABLE} ORDER BY id").fetchall()
                self._all_texts = tuple(row[0] for row in rows)
        return {int(i): self._all_texts[int(i)] for i in page}

    # -- lazily loaded parts -----------------------------------------------------------------

    def _stems(self, words: Sequence[str]) -> list[str]:
        with self._lock:
            (stems,) = self.reader.conn.execute("SELECT list_transform(?::VARCHAR[], w -> stem(w, 'porter'))", [list(words)]).fetchone()
        return list(stems)

    def _lexical_scorer(self) -> LexicalScorer:
        with self._lock:
            if self._lexical is None:
                postings = load_postings(self.reader.conn, self.size)
                self._lexical = LexicalScorer(postings, self._stems, self.settings.field_weights)
            return self._lexical

    def _vector_matrix(self) -> VectorMatrix | None:
        with self._lock:
            if not self._vectors_loaded:
                self._vectors = load_vectors(self.reader.conn, self.size) if self.has_vectors else None
                self._vectors_loaded = True
            return self._vectors

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; the last few are kept, as pages and get_docs re-ask for them."""
        with self._lock:
            vector = self._recent_vectors.get(query)
        if vector is None:
            vector = self._query_embedder().embed_query(query)
            with self._lock:
                if len(self._recent_vectors) >= RECENT_QUERY_VECTORS:
                    self._recent_vectors.pop(next(iter(self._recent_vectors)))
                self._recent_vectors[query] = vector
        return vector

    def _query_embedder(self):
        with self._lock:
            if self._embedder is None:
                from docs_mcp.indexer import load_model

                # Two threads: a query embeds in ~3.4 ms instead of ~6 ms on one; more gain little
                # on one short sequence and would take cores from concurrent requests.
                self._embedder = load_model(self.reader.model, threads=QUERY_THREADS)
            return self._embedder


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _file_best(scores: np.ndarray, candidates: np.ndarray, file_codes: np.ndarray) -> np.ndarray:
    """Per chunk, the best candidate score among the chunks of its file."""
    best = np.zeros(int(file_codes.max()) + 1)
    np.maximum.at(best, file_codes[candidates], scores[candidates])
    return best[file_codes]


def _rank_of(i: int, scores: np.ndarray, present: np.ndarray) -> int | None:
    if not present[i]:
        return None
    return int(np.count_nonzero(present & (scores > scores[i]))) + 1


def open_engine(index_dir: Path | str, settings: RankingSettings | None = None) -> Engine:
    """Open the live generation of the index at ``index_dir`` for searching.

    Raises:
        IndexNotFoundError, IndexFormatError: from the indexer when the index is missing or unreadable.
    """
    return Engine(open_index(Path(index_dir)), settings)
