import numpy as np
import pytest

from docs_mcp.errors import UsageError
from docs_mcp.server.search.fusion import RRF_K, convex, rrf, select_fusion
from docs_mcp.server.search.signals import Signal

EVERY = np.arange(3)


def signal(scores: list[float], present: list[bool]) -> Signal:
    return Signal(np.asarray(scores, dtype=np.float32), np.asarray(present))


def test_rrf_sums_reciprocal_ranks_and_ignores_absent_signals():
    lexical = signal([3.0, 1.0, 0.0], [True, True, False])
    vector = signal([0.2, 0.9, 0.5], [False, True, True])
    fused = rrf(lexical, vector, EVERY)
    assert fused[0] == pytest.approx(1 / (RRF_K + 1))
    assert fused[1] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert fused[2] == pytest.approx(1 / (RRF_K + 2))


def test_rrf_ranks_among_every_present_chunk_not_only_the_candidates():
    lexical = signal([3.0, 1.0, 0.0], [True, True, False])
    vector = signal([0.2, 0.9, 0.5], [False, True, True])
    assert rrf(lexical, vector, np.array([2])).tolist() == pytest.approx([1 / (RRF_K + 2)])


def test_rrf_breaks_ties_on_chunk_order():
    scores = signal([1.0, 1.0], [True, True])
    fused = rrf(scores, scores, np.arange(2))
    assert fused[0] > fused[1]


def test_convex_normalises_each_signal_to_its_best():
    lexical = signal([4.0, 2.0, 0.0], [True, True, False])
    vector = signal([0.3, 0.7, 0.5], [True, True, True])
    fused = convex(lexical, vector, EVERY, alpha=0.5, floor=0.3)
    assert fused[0] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused[1] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert fused[2] == pytest.approx(0.5 * 0.0 + 0.5 * 0.5)


def test_convex_takes_the_best_of_a_signal_over_all_its_present_chunks():
    # Chunk 1 is no candidate, but its vector is the best: it still sets the scale.
    lexical = signal([4.0, 0.0, 2.0], [True, False, True])
    vector = signal([0.3, 0.7, 0.5], [True, True, True])
    fused = convex(lexical, vector, np.array([0, 2]), alpha=0.5, floor=0.3)
    assert fused.tolist() == pytest.approx([0.5 * 1.0 + 0.5 * 0.0, 0.5 * 0.5 + 0.5 * 0.5])


def test_convex_without_any_vector_hit_is_scaled_bm25():
    lexical = signal([2.0, 1.0], [True, True])
    fused = convex(lexical, Signal.absent(2, -1.0), np.arange(2), alpha=0.25)
    assert fused.tolist() == pytest.approx([0.25, 0.125])


def test_select_fusion_lists_valid_names():
    assert select_fusion("rrf") is rrf
    with pytest.raises(UsageError) as error:
        select_fusion("borda")
    assert "convex, rrf" in error.value.hint
