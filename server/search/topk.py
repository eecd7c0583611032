"""Top-k selection: the best k candidates in ranking order without sorting all of them.

Ranking order is descending score, ties by chunk row (stable across runs and pages).
``np.partition`` finds the k-th best score in linear time; every candidate scoring at
least that much is kept, ties at the boundary included, and only those are sorted, so
the result equals the first k of a full sort.
"""

from __future__ import annotations

import numpy as np


def top_k(ids: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` of ``ids`` ordered by descending score (``scores[j]`` is that of ``ids[j]``), then ascending id."""
    if k <= 0 or not len(ids):
        return ids[:0]
    if len(ids) > k:
        kth = -np.partition(-scores, k - 1)[k - 1]
        keep = scores >= kth
        ids, scores = ids[keep], scores[keep]
    return ids[np.lexsort((ids, -scores))][:k]
