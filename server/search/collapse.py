"""Collapse: drop a hit that is the twin of a better-ranked hit across a ``vector_collapse`` key.

The same section written once per SDK language would otherwise fill a page with copies.
Two chunks are twins when they differ in a collapse key (say ``language``) and in no
other metadata, share a heading (case-folded), and have most of their words in common
or near-identical vectors.  On corpus/ the same section in two SDK languages measured
word Jaccard 0.5-1.0 and cosine 0.75-0.94; sections with language-specific code stay apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from docs_mcp.indexer.serving.arrays import ServingArrays
from docs_mcp.server.search.semantic import first_window

WordSets = Callable[[int], frozenset[str]]
"""A chunk's distinct words, by chunk row."""


class Collapser:
    """Finds twins among ranked chunks, from the serving arrays and the chunks' words."""

    def __init__(self, arrays: ServingArrays, word_set: WordSets, *, jaccard: float, cosine: float) -> None:
        self._codes = arrays.taxonomy_codes  # (keys, chunks)
        self._keys = arrays.taxonomy_keys
        self._headings = arrays.heading_codes
        self._vectors = arrays.vectors
        self._word_set = word_set
        self.jaccard = jaccard
        self.cosine = cosine

    def collapse(self, ordered: np.ndarray, keys: Sequence[str], stop_after: int) -> np.ndarray:
        """The chunks of ``ordered`` (best first) that are no twin of a better one, up to ``stop_after``."""
        others = self._others(keys)
        kept: list[int] = []
        for i in map(int, ordered):
            if not any(self._twins(i, k, others) for k in kept):
                kept.append(i)
                if len(kept) >= stop_after:
                    break
        return np.asarray(kept, dtype=np.int64)

    def twins(self, a: int, b: int, keys: Sequence[str]) -> bool:
        """Whether chunk rows ``a`` and ``b`` are twins across the collapse ``keys`` (one would be dropped)."""
        return bool(keys) and self._twins(a, b, self._others(keys))

    def near_duplicates(self, a: int, b: int, jaccard: float) -> bool:
        """Same heading (case-folded) and at least ``jaccard`` of their words in common, whatever their metadata."""
        return self._headings[a] == self._headings[b] and word_jaccard(self._word_set(a), self._word_set(b)) >= jaccard

    def _others(self, keys: Sequence[str]) -> np.ndarray:
        return np.array([key not in keys for key in self._keys], dtype=bool)

    def _twins(self, a: int, b: int, others: np.ndarray) -> bool:
        """Same heading, same metadata but for the collapse keys (and not all equal), near-identical text or vectors."""
        if self._headings[a] != self._headings[b]:
            return False
        differ = self._codes[:, a] != self._codes[:, b]
        if not differ.any() or (differ & others).any():
            return False
        if word_jaccard(self._word_set(a), self._word_set(b)) >= self.jaccard:
            return True
        if self._vectors is None:
            return False
        va, vb = first_window(self._vectors, a), first_window(self._vectors, b)
        return va is not None and vb is not None and float(va @ vb) >= self.cosine


def word_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Word-set overlap: shared words over all words (1.0 for two empty sets)."""
    return len(a & b) / len(a | b) if a or b else 1.0
