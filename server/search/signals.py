"""A ranking signal (BM25F or vector similarity) over every chunk, and where it counts as present.

The engine computes each signal densely (one float per chunk: a scatter of postings,
one matrix product), then works on the candidates only: fusion, the file boost and the
signal ranks of a page read a signal at the candidates' rows, or over its present rows,
never over every chunk again, so a query costs a few passes over N and the rest scales
with the chunks that matched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.lru_cache import LruCache


@dataclass(frozen=True)
class Signal:
    """Dense per-chunk ``scores`` and the ``present`` mask (the signal found the chunk, and filters allow it)."""

    scores: np.ndarray  # (N,) float32
    present: np.ndarray  # (N,) bool

    @classmethod
    def absent(cls, size: int, score: float) -> Signal:
        """A signal that found nothing (every chunk scores ``score``), without allocating N floats: one per size and
        score, shared (its arrays are read-only views; making them is 11 us of numpy's, every full-text search)."""
        return _ABSENT.get_or_compute(
            (size, score), lambda _: cls(np.broadcast_to(np.float32(score), (size,)), np.broadcast_to(False, (size,)))
        )

    @cached_property
    def rows(self) -> np.ndarray:
        """The present chunks, ascending."""
        return np.flatnonzero(self.present)

    @cached_property
    def present_scores(self) -> np.ndarray:
        """The scores of ``rows``."""
        return self.scores[self.rows]

    def any(self) -> bool:
        return bool(len(self.rows))

    def best(self) -> float | None:
        """The best present score, or None when nothing is present."""
        return self.present_scores.max() if self.any() else None

    def ranks(self, page: Sequence[int]) -> list[int | None]:
        """Each page chunk's 1-based rank among the present chunks (None if absent): one pass over them."""
        found = [i for i in page if self.present[i]]
        if not found:
            return [None] * len(page)
        floor = min(self.scores[i] for i in found)
        above = self.present_scores[self.present_scores > floor]  # the few chunks that can outrank a page chunk
        return [int(np.count_nonzero(above > self.scores[i])) + 1 if self.present[i] else None for i in page]

    def ranks_at(self, ids: np.ndarray) -> np.ndarray:
        """1-based rank of each of ``ids`` among the present chunks by descending score (ties by row); inf if absent."""
        order = self.rows[np.lexsort((self.rows, -self.present_scores))]
        ranks = np.full(len(self.scores), np.inf)
        ranks[order] = np.arange(1, len(order) + 1)
        return ranks[ids]


_ABSENT: LruCache[tuple[int, float], Signal] = LruCache("absent-signals", lru_cache.ABSENT_SIGNALS)
