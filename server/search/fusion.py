"""Ways to fuse the lexical and vector signals into one score, picked by name.

Each takes dense per-chunk arrays (BM25F scores, cosine similarities) and the
candidate mask, and returns dense fused scores; non-candidates are ignored by
the caller.  Measured on the FastAPI golden set (corpus/guide/ranking.md):
reciprocal-rank fusion added ~0 over BM25, a convex sum of normalised scores more.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from docs_mcp.errors import UsageError

RRF_K = 60.0


def _ranks(scores: np.ndarray, present: np.ndarray) -> np.ndarray:
    """1-based rank of each present chunk by descending score (ties by chunk order); inf elsewhere."""
    ranks = np.full(len(scores), np.inf)
    order = np.flatnonzero(present)
    order = order[np.lexsort((order, -scores[order]))]
    ranks[order] = np.arange(1, len(order) + 1)
    return ranks


def rrf(lexical: np.ndarray, vector: np.ndarray, lexical_present: np.ndarray, vector_present: np.ndarray, **_: float) -> np.ndarray:
    """Reciprocal-rank fusion: sum of 1/(k + rank) over the signals that found the chunk."""
    return 1.0 / (RRF_K + _ranks(lexical, lexical_present)) + 1.0 / (RRF_K + _ranks(vector, vector_present))


def convex(
    lexical: np.ndarray,
    vector: np.ndarray,
    lexical_present: np.ndarray,
    vector_present: np.ndarray,
    *,
    alpha: float = 0.5,
    floor: float = 0.0,
) -> np.ndarray:
    """``alpha`` * BM25 / best BM25 + (1 - alpha) * cosine rescaled from [floor, best] to [0, 1]."""
    best_lexical = lexical[lexical_present].max() if lexical_present.any() else 1.0
    lexical_part = np.where(lexical_present, lexical / max(best_lexical, 1e-9), 0.0)
    vector_part = np.zeros(len(vector))
    if vector_present.any():
        best_vector = vector[vector_present].max()
        span = max(best_vector - floor, 1e-6)
        vector_part = np.clip((vector - floor) / span, 0.0, 1.0)
    return alpha * lexical_part + (1.0 - alpha) * vector_part


FUSIONS: dict[str, Callable[..., np.ndarray]] = {"convex": convex, "rrf": rrf}


def select_fusion(name: str) -> Callable[..., np.ndarray]:
    """The fusion function called ``name``.

    Raises:
        UsageError: for an unknown name; the message lists the valid ones.
    """
    try:
        return FUSIONS[name]
    except KeyError:
        raise UsageError(f"Unknown fusion {name!r}.", f"Use one of: {', '.join(sorted(FUSIONS))}.") from None
