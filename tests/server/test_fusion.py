import numpy as np
import pytest

from docs_mcp.errors import UsageError
from docs_mcp.server.search.fusion import RRF_K, convex, rrf, select_fusion


def test_rrf_sums_reciprocal_ranks_and_ignores_absent_signals():
    lexical = np.array([3.0, 1.0, 0.0])
    vector = np.array([0.2, 0.9, 0.5])
    fused = rrf(lexical, vector, lexical > 0, np.array([False, True, True]))
    assert fused[0] == pytest.approx(1 / (RRF_K + 1))
    assert fused[1] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert fused[2] == pytest.approx(1 / (RRF_K + 2))


def test_rrf_breaks_ties_on_chunk_order():
    scores = np.array([1.0, 1.0])
    fused = rrf(scores, scores, scores > 0, scores > 0)
    assert fused[0] > fused[1]


def test_convex_normalises_each_signal_to_its_best():
    lexical = np.array([4.0, 2.0, 0.0])
    vector = np.array([0.3, 0.7, 0.5])
    fused = convex(lexical, vector, lexical > 0, vector >= 0.3, alpha=0.5, floor=0.3)
    assert fused[0] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused[1] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert fused[2] == pytest.approx(0.5 * 0.0 + 0.5 * 0.5)


def test_convex_without_any_vector_hit_is_scaled_bm25():
    lexical = np.array([2.0, 1.0])
    fused = convex(lexical, np.array([-1.0, -1.0]), lexical > 0, np.array([False, False]), alpha=0.25)
    assert fused.tolist() == pytest.approx([0.25, 0.125])


def test_select_fusion_lists_valid_names():
    assert select_fusion("rrf") is rrf
    with pytest.raises(UsageError) as error:
        select_fusion("borda")
    assert "convex, rrf" in error.value.hint
