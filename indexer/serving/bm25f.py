"""The BM25F formula: each posting's score from its per-field term frequencies (small, pure numpy).

BM25F (Robertson and Zaragoza) normalises each field's term frequency by the field's length against
its average, weights the fields and sums them, then saturates the sum once with ``K1`` and scales it
by the term's inverse document frequency. Postings are scored once at build time at the default field
weights (writer.py) and again at query time for other weights, or per library in an index of several
(``library_bm25f_weights``: each library's chunks score as in that library indexed alone; server/search/lexical.py).
tests/indexer/test_bm25f.py checks it against a plain-Python reference implementation, and
tests/server/test_lexical.py against DuckDB's ``match_bm25`` on one field.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75
# Weight of a term occurrence per field, in FTS_FIELDS order (title, heading, body).
# Chosen on the FastAPI golden set with `docs-mcp eval --mode bm25` (see corpus/guide/ranking.md).
DEFAULT_FIELD_WEIGHTS = (1.0, 3.0, 1.0)


def bm25f_weights(
    tf: np.ndarray, docs: np.ndarray, df: np.ndarray, field_lengths: np.ndarray, field_weights: Sequence[float]
) -> np.ndarray:
    """Each posting's BM25F score: idf(term) * saturated, length-normalised, field-weighted tf.

    ``df`` is per posting.  With one field of weight 1 this is DuckDB's ``match_bm25`` term
    score (same k1, b and base-10 idf), which a test checks.
    """
    num_docs = len(field_lengths)
    weights = np.asarray(field_weights, dtype=np.float32)
    avg = field_lengths.mean(axis=0) if num_docs else np.ones(len(weights), dtype=np.float32)
    avg = np.where(avg > 0, avg, 1.0)
    norm = (1 - B + B * field_lengths / avg).astype(np.float32)
    weighted_tf = (tf * weights / norm[docs]).sum(axis=1)
    idf = np.log10((num_docs - df + 0.5) / (df + 0.5) + 1.0)
    return (idf * weighted_tf * (K1 + 1) / (weighted_tf + K1)).astype(np.float32)


def library_bm25f_weights(
    tf: np.ndarray,
    docs: np.ndarray,
    starts: np.ndarray,
    field_lengths: np.ndarray,
    field_weights: Sequence[float],
    libraries: np.ndarray,
) -> np.ndarray:
    """Each posting's BM25F score with the statistics of its chunk's library alone: the library's chunk count,
    average field lengths and the term's document frequency within it (``libraries``: a code per chunk).

    A library's postings get the weights ``bm25f_weights`` gives them in an index of that library only (a test
    holds the two equal), so a library's ranking does not move when other libraries join its index.
    """
    terms = np.repeat(np.arange(len(starts) - 1, dtype=np.int64), np.diff(starts))
    library_of = libraries[docs].astype(np.int64) + 1  # chunks of no library (-1) are a library of their own
    # A term's document frequency within a library: how many postings share its (term, library) pair.
    pairs = terms * (int(library_of.max(initial=0)) + 1) + library_of
    _, group, counts = np.unique(pairs, return_inverse=True, return_counts=True)
    df = counts[group].astype(np.float64)
    weights = np.zeros(len(docs), dtype=np.float32)
    for library in np.unique(libraries).tolist():
        chunks = np.flatnonzero(libraries == library)
        local = np.full(len(libraries), -1, dtype=np.int64)
        local[chunks] = np.arange(len(chunks))
        mine = np.flatnonzero(library_of == library + 1)
        weights[mine] = bm25f_weights(tf[mine], local[docs[mine]], df[mine], field_lengths[chunks], field_weights)
    return weights
