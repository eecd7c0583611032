"""Top-k selection equals the first k of a full sort, ties at the boundary included."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.server.search.topk import top_k


def full_sort(ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
    return ids[np.lexsort((ids, -scores[ids]))]


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25]), min_size=0, max_size=60),
    k=st.integers(min_value=0, max_value=70),
    keep_every=st.integers(min_value=1, max_value=3),
)
def test_top_k_is_the_prefix_of_the_full_ranking(scores, k, keep_every):
    values = np.asarray(scores, dtype=np.float64)
    ids = np.arange(len(values))[::keep_every]
    assert top_k(ids, values[ids], k).tolist() == full_sort(ids, values)[:k].tolist()


def test_ties_break_by_chunk_order():
    scores = np.array([1.0, 2.0, 2.0, 2.0, 0.5])
    assert top_k(np.arange(5), scores, 2).tolist() == [1, 2]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    size=st.integers(min_value=1, max_value=6000),
    k=st.integers(min_value=1, max_value=80),
    levels=st.sampled_from([2, 7, 1000, 0]),  # few distinct scores (ties everywhere) ... all distinct (0)
)
def test_a_large_set_cut_by_a_sampled_floor_keeps_the_full_rankings_prefix(seed, size, k, levels):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels, size).astype(np.float64) if levels else rng.random(size)
    ids = np.sort(rng.choice(size * 3, size, replace=False))
    expected = ids[np.lexsort((ids, -values))][:k]
    assert top_k(ids, values, k).tolist() == expected.tolist()
