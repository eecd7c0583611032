"""Top-k selection: the best k candidates in ranking order without sorting all of them.

Ranking order is descending score, ties by chunk row (stable across runs and pages).
``np.partition`` finds the k-th best score in linear time; every candidate scoring at
least that much is kept, ties at the boundary included, and only those are sorted, so
the result equals the first k of a full sort.

Partitioning 200k candidates (a query with a common word at a million chunks) still
costs ~1.5 ms, so a large set is first cut by a floor taken from every SAMPLE_EVERY-th
score: the sample's k-th best is at most the whole set's (the sample is part of it), so
no candidate of the top k falls below it, and only about k x SAMPLE_EVERY stay above.
"""

from __future__ import annotations

import numpy as np

SAMPLE_EVERY = 64


def top_k(ids: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` of ``ids`` ordered by descending score (``scores[j]`` is that of ``ids[j]``), then ascending id."""
    if k <= 0 or not len(ids):
        return ids[:0]
    if len(ids) > k * SAMPLE_EVERY:
        keep = scores >= _kth_best(scores[::SAMPLE_EVERY], k)
        ids, scores = ids[keep], scores[keep]
    if len(ids) > k:
        keep = scores >= _kth_best(scores, k)
        ids, scores = ids[keep], scores[keep]
    return ids[np.lexsort((ids, -scores))][:k]


def _kth_best(scores: np.ndarray, k: int) -> float:
    """The k-th highest of ``scores`` (at least k long)."""
    return np.partition(scores, len(scores) - k)[len(scores) - k]
