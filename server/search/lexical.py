"""BM25F over the index's own DuckDB full-text tables, held in numpy for the hot path.

DuckDB's ``match_bm25`` macro scores every row on each query (~23 ms at 4k chunks).
We read the ``fts_main_chunks`` postings once and score only the documents that
hold a query term.  Fields are weighted (BM25F): a term in a heading counts more
than the same term in body text.  With one field of weight 1 the score equals
DuckDB's ``match_bm25`` (k1, b and idf are the same), which a test checks.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from docs_mcp.indexer.schema import FTS_FIELDS, FTS_IGNORE, FTS_SCHEMA

STEM_CACHE_SIZE = 65_536
K1 = 1.2
B = 0.75
# Weight of a term occurrence per field, in FTS_FIELDS order (title, heading, body).
# Chosen on the FastAPI golden set with `docs-mcp eval --mode bm25` (see corpus/guide/ranking.md).
DEFAULT_FIELD_WEIGHTS = (1.0, 3.0, 1.0)

_SEPARATORS = re.compile(FTS_IGNORE)


def tokenize(text: str) -> list[str]:
    """Split text into words the way DuckDB's fts ``tokenize`` does (lower-case, accents stripped)."""
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return [word for word in _SEPARATORS.sub(" ", folded).split() if word]


@dataclass(frozen=True)
class Postings:
    """Compressed postings: for term t, rows ``starts[t]:starts[t+1]`` of ``docs``/``tf``."""

    term_ids: dict[str, int]  # stemmed term -> termid
    df: np.ndarray  # (terms,) document frequency over all fields
    starts: np.ndarray  # (terms + 1,) offsets into docs/tf
    docs: np.ndarray  # (postings,) chunk row numbers (chunks.id)
    tf: np.ndarray  # (postings, fields) term frequency per field
    field_lengths: np.ndarray  # (chunks, fields) tokens per field
    num_docs: int


def load_postings(conn, num_chunks: int, fields: int = len(FTS_FIELDS)) -> Postings:
    """Read the full-text tables of an index into numpy arrays.

    Raises:
        duckdb.Error: left to the caller (the engine translates it at its boundary).
    """
    dict_rows = conn.execute(f"SELECT termid, term, df FROM {FTS_SCHEMA}.dict ORDER BY termid").fetchnumpy()
    term_ids = {str(term): int(tid) for tid, term in zip(dict_rows["termid"], dict_rows["term"])}
    df = np.zeros(len(term_ids) + 1, dtype=np.float64)
    df[dict_rows["termid"].astype(np.int64)] = dict_rows["df"]
    rows = conn.execute(
        f"""SELECT t.termid, d.name AS doc, t.fieldid, count(*) AS tf
            FROM {FTS_SCHEMA}.terms t JOIN {FTS_SCHEMA}.docs d USING (docid)
            GROUP BY ALL ORDER BY t.termid, doc, t.fieldid"""
    ).fetchnumpy()
    term = rows["termid"].astype(np.int64)
    doc = rows["doc"].astype(np.int64)
    field = rows["fieldid"].astype(np.int64)
    count = rows["tf"].astype(np.float32)
    # One posting per (term, doc); per-field counts side by side.
    new_posting = np.ones(len(term), dtype=bool)
    new_posting[1:] = (term[1:] != term[:-1]) | (doc[1:] != doc[:-1])
    posting_index = np.cumsum(new_posting) - 1
    n_postings = int(posting_index[-1]) + 1 if len(term) else 0
    tf = np.zeros((n_postings, fields), dtype=np.float32)
    tf[posting_index, field] = count
    posting_term = term[new_posting]
    posting_doc = doc[new_posting].astype(np.int32)
    starts = np.searchsorted(posting_term, np.arange(len(df) + 1)).astype(np.int64)
    lengths = np.zeros((num_chunks, fields), dtype=np.float32)
    np.add.at(lengths, (doc, field), count)
    return Postings(term_ids, df, starts, posting_doc, tf, lengths, num_chunks)


class LexicalScorer:
    """Scores chunks for a query with BM25F over the loaded postings."""

    def __init__(self, postings: Postings, stem: Callable[[Sequence[str]], list[str]], weights: Sequence[float] = DEFAULT_FIELD_WEIGHTS) -> None:
        self._p = postings
        self._stem_words = stem
        self._stems: dict[str, str] = {}
        self.weights = np.asarray(weights, dtype=np.float32)
        avg = postings.field_lengths.mean(axis=0) if postings.num_docs else np.ones(len(weights))
        avg = np.where(avg > 0, avg, 1.0)
        # Per-document, per-field length normalisation, computed once.
        self._norm = (1 - B + B * postings.field_lengths / avg).astype(np.float32)

    def stems(self, words: Sequence[str]) -> list[str]:
        """The Porter stems of ``words``; unseen words are stemmed in one batch and remembered."""
        unseen = sorted({w for w in words if w not in self._stems})
        if unseen:
            if len(self._stems) > STEM_CACHE_SIZE:
                self._stems.clear()
            self._stems.update(zip(unseen, self._stem_words(unseen)))
        return [self._stems[w] for w in words]

    def query_terms(self, query: str) -> list[int]:
        """Distinct term ids of the query's words that occur in the index (stopwords never do)."""
        ids: list[int] = []
        for stemmed in self.stems(tokenize(query)):
            tid = self._p.term_ids.get(stemmed)
            if tid is not None and tid not in ids:
                ids.append(tid)
        return ids

    def score(self, term_ids: Sequence[int]) -> np.ndarray:
        """A dense (chunks,) array of BM25F scores; 0 where no query term occurs."""
        p = self._p
        scores = np.zeros(p.num_docs, dtype=np.float32)
        for tid in term_ids:
            lo, hi = p.starts[tid], p.starts[tid + 1]
            if lo == hi:
                continue
            docs = p.docs[lo:hi]
            weighted_tf = (p.tf[lo:hi] * self.weights / self._norm[docs]).sum(axis=1)
            df = p.df[tid]
            # DuckDB's log() is base 10; we keep its idf so scores match match_bm25.
            idf = np.log10((p.num_docs - df + 0.5) / (df + 0.5) + 1.0)
            scores[docs] += (idf * weighted_tf * (K1 + 1) / (weighted_tf + K1)).astype(np.float32)
        return scores
