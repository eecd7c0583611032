"""BM25F over the postings the build wrote from the index's full-text tables (serving arrays).

DuckDB's ``match_bm25`` macro scores every row on each query (~23 ms at 4k chunks).
The build stores each posting's BM25F score, so a query adds up the weights of the
postings of its terms, touching only the chunks that hold one.  Fields are weighted
(BM25F): a term in a heading counts more than the same term in body text.  With one
field of weight 1 the score equals DuckDB's ``match_bm25`` (k1, b and idf are the
same), which a test checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from docs_mcp.indexer.schema import FTS_FIELDS
from docs_mcp.indexer.search_text import identifier_splits, tokenize
from docs_mcp.indexer.serving.arrays import Postings
from docs_mcp.indexer.serving.bm25f import DEFAULT_FIELD_WEIGHTS, bm25f_weights, library_bm25f_weights
from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.lru_cache import LruCache

__all__ = ["DEFAULT_FIELD_WEIGHTS", "HEADING_FIELD", "LexicalScorer", "QueryTerms", "identifier_forms", "tokenize"]

HEADING_FIELD = FTS_FIELDS.index("fts_heading")
# Weight of a term that is only another spelling of a query identifier (`nextcursor` for `next_cursor`).
SPELLING_WEIGHT = 0.5
# `next_cursor`, `next-cursor`: identifiers whose parts are joined by snake or kebab separators.
_JOINED = re.compile(r"[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+")


def identifier_forms(query: str) -> list[str]:
    """The other spellings of the query's identifiers (words the query does not hold as written).

    The index holds ``next_cursor`` as ``next cursor`` and ``NextCursor`` as ``nextcursor`` plus
    ``next cursor``; a query for ``nextCursor`` also asks for ``next cursor``, and one for
    ``next_cursor`` or ``next-cursor`` also for ``nextcursor``. Dotted and ``::`` paths already
    split into their words on both sides.
    """
    literal = set(tokenize(query))
    words = [re.sub(r"[_-]", "", match.group(0)).lower() for match in _JOINED.finditer(query)]
    words += [part for split in identifier_splits(query) for part in split.split()]
    return [word for word in dict.fromkeys(words) if word not in literal]


@dataclass(frozen=True)
class QueryTerms:
    """A query's term ids: its own words, and the other spellings of its identifiers only."""

    own: tuple[int, ...]
    spellings: tuple[int, ...] = ()

    @property
    def all(self) -> tuple[int, ...]:
        return self.own + self.spellings


class LexicalScorer:
    """Scores chunks for a query with BM25F: a sum of precomputed per-posting weights.

    The weights were computed by the build at the default field weights over the whole index; other
    weights (``RankingSettings.field_weights``) are recomputed once, here, from the stored term frequencies
    (in memory: one float per posting). In an index of several libraries (``libraries``: a code per chunk),
    a second set of weights scores each library's chunks with that library's statistics, as when it is indexed
    alone: what a search within one library uses (``score(..., per_library=True)``); the whole index's weights
    keep scores comparable across libraries.
    """

    def __init__(
        self,
        postings: Postings,
        stem: Callable[[Sequence[str]], list[str]],
        weights: Sequence[float] = DEFAULT_FIELD_WEIGHTS,
        libraries: np.ndarray | None = None,
    ) -> None:
        self._p = postings
        self._stem_words = stem
        self._stems: LruCache[str, str] = LruCache("stems", lru_cache.STEMS)
        self._term_ids: LruCache[str, int] = LruCache("term-ids", lru_cache.TERM_IDS)
        self._weights = postings.weights
        if tuple(weights) != tuple(postings.field_weights):
            self._weights = bm25f_weights(
                postings.tf, postings.docs, _posting_df(postings), postings.field_lengths, weights
            )
        self._library_weights = (
            None
            if libraries is None
            else library_bm25f_weights(
                postings.tf, postings.docs, postings.starts, postings.field_lengths, weights, libraries
            )
        )

    def stems(self, words: Sequence[str]) -> list[str]:
        """The Porter stems of ``words``; unseen words are stemmed in one batch and remembered."""
        cached = {w: self._stems.get(w) for w in set(words)}
        known = {w: stem for w, stem in cached.items() if stem is not None}
        unseen = sorted(w for w in cached if w not in known)
        if unseen:
            for word, stem in zip(unseen, self._stem_words(unseen)):
                self._stems.put(word, stem)
                known[word] = stem
        return [known[w] for w in words]

    def query_terms(self, query: str) -> QueryTerms:
        """Distinct term ids of the query's own words, then of its identifiers' other spellings, that occur in the index.

        Stopwords never occur in the index.
        """
        own = self._ids_of(tokenize(query))
        spellings = [t for t in self._ids_of(identifier_forms(query)) if t not in own]
        return QueryTerms(tuple(own), tuple(spellings))

    def content_words(self, query: str) -> list[str]:
        """The query's words but the stopwords (which the index leaves out)."""
        return [w for w in tokenize(query) if w not in self._p.stopwords]

    def known_share(self, query: str, within: np.ndarray | None = None) -> float:
        """Share of the query's words (stopwords aside) that occur anywhere in the index, or in the chunks ``within``
        marks (one library of several): 0 for a foreign query."""
        words = self.content_words(query)
        if not words:
            return 0.0
        ids = [self._term_id(stem) for stem in self.stems(words)]
        return sum(1 for tid in ids if tid >= 0 and (within is None or self._occurs_within(tid, within))) / len(words)

    def _occurs_within(self, tid: int, within: np.ndarray) -> bool:
        p = self._p
        return bool(within[p.docs[int(p.starts[tid]) : int(p.starts[tid + 1])]].any())

    def score(self, terms: QueryTerms, *, per_library: bool = False) -> np.ndarray:
        """A dense (chunks,) array of BM25F scores; 0 where no query term occurs. ``per_library``: each chunk scored
        with its library's statistics (an index of several libraries; the whole index's otherwise).

        The other spellings of an identifier only score chunks that hold none of the query's
        own words, at ``SPELLING_WEIGHT``: ``nextCursor`` finds a page that writes
        ``next_cursor``, but never outranks one that writes it as asked.
        """
        weights = self._library_weights if per_library and self._library_weights is not None else self._weights
        own = self._bm25(terms.own, weights)
        if not terms.spellings:
            return own
        return np.where(own > 0, own, SPELLING_WEIGHT * self._bm25(terms.spellings, weights)).astype(np.float32)

    def matches(self, term_ids: Sequence[int], chunks: np.ndarray, field: int | None = None) -> np.ndarray:
        """How many of ``term_ids`` occur in each of ``chunks``: in the field numbered ``field`` (FTS_FIELDS order), or anywhere."""
        p = self._p
        counts = np.zeros(len(chunks), dtype=np.float32)
        for tid in term_ids:  # a term in the index has at least one posting
            lo, hi = int(p.starts[tid]), int(p.starts[tid + 1])
            docs = p.docs[lo:hi]  # ascending: a binary search finds each chunk's posting
            at = np.minimum(np.searchsorted(docs, chunks), hi - lo - 1)
            found = docs[at] == chunks
            counts += found if field is None else found & (p.tf[lo + at, field] > 0)
        return counts

    def term_id(self, stemmed: str) -> int:
        """The id of a stemmed word, -1 when no chunk holds it."""
        return self._term_id(stemmed)

    def holding_all(self, term_ids: Sequence[int]) -> np.ndarray:
        """The chunks (ascending) that hold every one of ``term_ids``, rarest term first."""
        p = self._p
        if not term_ids:
            return np.zeros(0, dtype=np.int64)
        ordered = sorted(term_ids, key=lambda t: int(p.df[t]))
        found = p.docs[int(p.starts[ordered[0]]) : int(p.starts[ordered[0] + 1])]
        for tid in ordered[1:]:
            found = np.intersect1d(found, p.docs[int(p.starts[tid]) : int(p.starts[tid + 1])], assume_unique=True)
        return found.astype(np.int64)

    def _ids_of(self, words: Sequence[str]) -> list[int]:
        """Distinct term ids of ``words`` (tokenized) that occur in the index."""
        ids: list[int] = []
        for stemmed in self.stems(words):
            tid = self._term_id(stemmed)
            if tid >= 0 and tid not in ids:
                ids.append(tid)
        return ids

    def _term_id(self, stemmed: str) -> int:
        """The stem's term id, -1 when the index does not hold it (remembered: queries repeat words)."""
        return self._term_ids.get_or_compute(stemmed, self._lookup)

    def _lookup(self, stemmed: str) -> int:
        tid = self._p.term_id(stemmed)
        return -1 if tid is None else tid

    def _bm25(self, term_ids: Sequence[int], weights: np.ndarray) -> np.ndarray:
        p = self._p
        scores = np.zeros(p.num_docs, dtype=np.float32)
        for i, tid in enumerate(term_ids):
            lo, hi = int(p.starts[tid]), int(p.starts[tid + 1])
            # A term's chunks are distinct, so each adds its weight once, in term order, as ``scores[docs] += w``
            # would; np.add.at does it in place, without that expression's gathered copy (2x faster), and the
            # first term's weights are put, not added to zeros (0 + w is w): ~3x faster in all at 300k postings.
            if i:
                np.add.at(scores, p.docs[lo:hi], weights[lo:hi])
            else:
                np.put(scores, p.docs[lo:hi], weights[lo:hi])
        return scores


def _posting_df(postings: Postings) -> np.ndarray:
    """Each posting's term document frequency (float64, as the idf takes it)."""
    return np.repeat(np.asarray(postings.df, dtype=np.float64), np.diff(postings.starts))
