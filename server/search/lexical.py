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
import unicodedata
from typing import Callable, Sequence

import numpy as np

from docs_mcp.indexer.schema import FTS_IGNORE
from docs_mcp.indexer.serving_arrays import DEFAULT_FIELD_WEIGHTS, Postings, bm25f_weights
from docs_mcp.server.search import cache
from docs_mcp.server.search.cache import LruCache

__all__ = ["DEFAULT_FIELD_WEIGHTS", "LexicalScorer", "tokenize"]

_SEPARATORS = re.compile(FTS_IGNORE)


def tokenize(text: str) -> list[str]:
    """Split text into words the way DuckDB's fts ``tokenize`` does (lower-case, accents stripped)."""
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return [word for word in _SEPARATORS.sub(" ", folded).split() if word]


class LexicalScorer:
    """Scores chunks for a query with BM25F: a sum of precomputed per-posting weights.

    The weights were computed by the build at the default field weights; other weights
    (``RankingSettings.field_weights``) are recomputed once, here, from the stored term
    frequencies (in memory: one float per posting).
    """

    def __init__(self, postings: Postings, stem: Callable[[Sequence[str]], list[str]], weights: Sequence[float] = DEFAULT_FIELD_WEIGHTS) -> None:
        self._p = postings
        self._stem_words = stem
        self._stems: LruCache[str, str] = LruCache("stems", cache.STEMS)
        self._term_ids: LruCache[str, int] = LruCache("term-ids", cache.TERM_IDS)
        self._weights = postings.weights
        if tuple(weights) != tuple(postings.field_weights):
            self._weights = bm25f_weights(postings.tf, postings.docs, _posting_df(postings), postings.field_lengths, weights)

    def stems(self, words: Sequence[str]) -> list[str]:
        """The Porter stems of ``words``; unseen words are stemmed in one batch and remembered."""
        known = {w: self._stems.get(w) for w in set(words)}
        unseen = sorted(w for w, stem in known.items() if stem is None)
        if unseen:
            for word, stem in zip(unseen, self._stem_words(unseen)):
                self._stems.put(word, stem)
                known[word] = stem
        return [known[w] for w in words]

    def query_terms(self, words: Sequence[str]) -> list[int]:
        """Distinct term ids of the query's ``words`` (tokenized) that occur in the index (stopwords never do)."""
        ids: list[int] = []
        for stemmed in self.stems(words):
            tid = self._term_ids.get_or_compute(stemmed, self._term_id)
            if tid >= 0 and tid not in ids:
                ids.append(tid)
        return ids

    def _term_id(self, stemmed: str) -> int:
        tid = self._p.term_id(stemmed)
        return -1 if tid is None else tid

    def score(self, term_ids: Sequence[int]) -> np.ndarray:
        """A dense (chunks,) array of BM25F scores; 0 where no query term occurs."""
        p = self._p
        scores = np.zeros(p.num_docs, dtype=np.float32)
        for tid in term_ids:
            lo, hi = int(p.starts[tid]), int(p.starts[tid + 1])
            scores[p.docs[lo:hi]] += self._weights[lo:hi]
        return scores


def _posting_df(postings: Postings) -> np.ndarray:
    """Each posting's term document frequency (float64, as the idf takes it)."""
    return np.repeat(np.asarray(postings.df, dtype=np.float64), np.diff(postings.starts))
