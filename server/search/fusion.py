"""Ways to fuse the lexical and vector signals into one score, picked by name.

Each takes the two signals (signals.py) and the candidates' rows, and returns the fused
score of each candidate.  Measured on the FastAPI golden set (corpus/guide/ranking.md):
reciprocal-rank fusion added ~0 over BM25, a convex sum of normalised scores more.
"""

from __future__ import annotations

from collections.abc import Callable

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
    # In place on the gathered copies: a query with a common word at a million chunks has ~300k candidates,
    # and every temporary of that size costs ~0.1 ms (the values are those of the plain expression).
    fused = lexical.scores[ids]
    fused /= max(best_lexical, 1e-9)
    fused *= lexical.present[ids]
    fused *= alpha
    best_vector = vector.best()
    if best_vector is None:
        return fused.astype(np.float64)  # as the sum with a zero float64 vector part was
    vector_part = vector.scores[ids]
    vector_part -= floor
    vector_part /= max(best_vector - floor, 1e-6)
    np.clip(vector_part, 0.0, 1.0, out=vector_part)
    vector_part *= 1.0 - alpha
    fused += vector_part
    return fused


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
