"""A signal's present set, best score and ranks, as the engine reads them for a page."""

import numpy as np

from docs_mcp.server.search import lru_cache, signals
from docs_mcp.server.search.signals import Signal


def test_ranks_count_the_present_chunks_scoring_higher():
    signal = Signal(np.array([0.5, 0.9, 0.7, 0.95], dtype=np.float32), np.array([True, True, True, False]))
    assert signal.ranks([2, 3, 1, 0]) == [2, None, 1, 3]  # chunk 3 scores best but is not present (filtered out)
    assert signal.best() == np.float32(0.9)
    assert signal.rows.tolist() == [0, 1, 2]


def test_ranks_at_break_ties_by_row_and_leave_the_absent_infinite():
    signal = Signal(np.array([1.0, 2.0, 2.0, 3.0], dtype=np.float32), np.array([True, True, True, False]))
    assert signal.ranks_at(np.arange(4)).tolist() == [3.0, 1.0, 2.0, np.inf]


def test_an_absent_signal_has_no_best_and_no_ranks():
    signal = Signal.absent(3, -1.0)
    assert signal.best() is None and not signal.any()
    assert signal.ranks([0, 2]) == [None, None]
    assert signal.scores[np.array([0, 2])].tolist() == [-1.0, -1.0]


def test_an_absent_signal_is_made_once_per_size_and_score_and_the_few_kept_are_bounded():
    # Every full-text search has an absent vector signal: its two read-only views are made once, not per search.
    assert Signal.absent(5, -1.0) is Signal.absent(5, -1.0)
    assert Signal.absent(5, -1.0) is not Signal.absent(5, 0.0)
    assert not Signal.absent(5, -1.0).scores.flags.writeable
    for size in range(lru_cache.ABSENT_SIGNALS + 5):
        Signal.absent(1_000 + size, 0.0)
    assert len(signals._ABSENT) == lru_cache.ABSENT_SIGNALS
