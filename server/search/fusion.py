"""Ways to fuse the lexical and vector signals into one score, picked by name.

Each takes the two signals (signals.py) and the candidates' rows, and returns the fused
score of each candidate.  Measured on the FastAPI golden set (corpus/guide/ranking.md):
reciprocal-rank fusion added ~0 over BM25, a convex sum of normalised scores more.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from docs_mcp.errors import UsageError
from docs_mcp.server.search.signals import Signal

RRF_K = 60.0


def rrf(lexical: Signal, vector: Signal, ids: np.ndarray, **_: float) -> np.ndarray:
    """Reciprocal-rank fusion: sum of 1/(k + rank) over the signals that found the chunk."""
    return 1.0 / (RRF_K + lexical.ranks_at(ids)) + 1.0 / (RRF_K + vector.ranks_at(ids))


def convex(lexical: Signal, vector: Signal, ids: np.ndarray, *, alpha: float = 0.5, floor: float = 0.0) -> np.ndarray:
    """``alpha`` * BM25 / best BM25 + (1 - alpha) * cosine rescaled from [floor, best] to [0, 1]."""
    best_lexical = lexical.best()
    if best_lexical is None:
        best_lexical = 1.0
    lexical_part = np.where(lexical.present[ids], lexical.scores[ids] / max(best_lexical, 1e-9), 0.0)
    vector_part = np.zeros(len(ids))
    best_vector = vector.best()
    if best_vector is not None:
        span = max(best_vector - floor, 1e-6)
        vector_part = np.clip((vector.scores[ids] - floor) / span, 0.0, 1.0)
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
