"""Near-duplicate demotion: one family of generated sections must not fill the first page.

Generated references repeat a section on every page (`-Confirm`, `CommonParameters`, a model's
`Fields`): the same heading over nearly the same words. When one of them ranks, its twins
add nothing; they are moved after the other results instead of being dropped, so paging
still reaches every chunk.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

# Sections with the same heading whose word sets overlap this much (Jaccard) are one family.
FAMILY_JACCARD = 0.6
# How many members of one family may stand before the demotion starts.
FAMILY_LIMIT = 1

Family = Callable[[int, int], bool]
"""Whether two chunk rows are one family of near-duplicates."""


def demote_near_duplicates(ordered: np.ndarray, stop_after: int, same_family: Family) -> np.ndarray:
    """``ordered`` with every near-duplicate past its family's first ``FAMILY_LIMIT`` moved behind the others.

    Only the first ``stop_after`` kept chunks are decided; the rest keep their order.
    """
    kept: list[int] = []
    deferred: list[int] = []
    position = len(ordered)
    for at, chunk in enumerate(ordered.tolist()):
        if len(kept) >= stop_after:
            position = at
            break
        family = sum(1 for k in kept if same_family(k, chunk))
        (deferred if family >= FAMILY_LIMIT else kept).append(chunk)
    return np.asarray(kept + deferred + ordered[position:].tolist(), dtype=np.int64)
