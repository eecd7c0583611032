"""NDCG, MRR, hit and recall against hand-computed values, a textbook NDCG, and brute force."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.eval.metrics import (
    Judgment,
    QueryScores,
    dcg_at_k,
    hit_at_k,
    ideal_dcg,
    mean_scores,
    mrr_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
    score_query,
)

LOG3 = math.log2(3)  # discount of rank 2 is 1 / log2(3)


def J(grade: float, *ids: str) -> Judgment:
    return Judgment(frozenset(ids), grade)


# -- hand-computed cases -------------------------------------------------------------------


def test_single_relevant_chunk_at_rank_one_two_and_beyond_k():
    judged = [J(1, "a")]
    assert ndcg_at_k(["a", "x"], judged) == 1.0
    assert ndcg_at_k(["x", "a"], judged) == pytest.approx(1 / LOG3)  # 0.6309
    assert ndcg_at_k(["x1", "x2", "x3", "x4", "x5", "a"], judged, k=5) == 0.0
    assert ndcg_at_k(["x1", "x2", "x3", "x4", "x5", "a"], judged, k=6) == pytest.approx(1 / math.log2(7))


def test_graded_gains_reward_the_better_chunk_first():
    judged = [J(2, "a"), J(1, "b")]
    ideal = 2 + 1 / LOG3  # 2.6309
    assert ideal_dcg(judged, 5) == pytest.approx(ideal)
    assert ndcg_at_k(["a", "b"], judged) == pytest.approx(1.0)
    assert ndcg_at_k(["b", "a"], judged) == pytest.approx((1 + 2 / LOG3) / ideal)  # (1 + 1.2619) / 2.6309
    assert ndcg_at_k(["b", "a"], judged) == pytest.approx(0.859719, abs=1e-6)


def test_fewer_hits_than_k_and_more_judgments_than_hits():
    judged = [J(2, "a"), J(1, "b"), J(1, "c")]
    ideal = 2 + 1 / LOG3 + 1 / 2  # 3.1309
    assert ndcg_at_k(["a"], judged) == pytest.approx(2 / ideal)  # 0.6388
    assert ndcg_at_k(["a"], judged) == pytest.approx(0.638788, abs=1e-6)
    assert recall_at_k(["a"], judged) == pytest.approx(1 / 3)


def test_no_relevant_hits_and_no_hits_score_zero():
    judged = [J(2, "a")]
    for ranked in ([], ["x", "y"]):
        assert score_query(ranked, judged) == QueryScores(0.0, 0.0, 0.0, 0.0)


def test_no_judgments_score_zero_instead_of_dividing_by_zero():
    assert ndcg_at_k(["a"], []) == 0.0
    assert recall_at_k(["a"], []) == 0.0


def test_ties_in_grade_make_either_order_perfect():
    judged = [J(1, "a"), J(1, "b")]
    assert ndcg_at_k(["a", "b"], judged) == ndcg_at_k(["b", "a"], judged) == pytest.approx(1.0)


def test_a_repeated_chunk_is_credited_once():
    judged = [J(1, "a"), J(1, "b")]
    assert ndcg_at_k(["a", "a"], judged) == pytest.approx(1 / (1 + 1 / LOG3))  # 0.6131
    folded = [J(2, "x"), J(1, "x")]
    assert ndcg_at_k(["x", "x"], folded) == pytest.approx(1.0)


def test_a_whole_file_judgment_counts_once_for_any_of_its_chunks():
    judged = [J(1, "f.md#one", "f.md#two", "f.md#three")]
    assert ndcg_at_k(["f.md#two", "f.md#one"], judged) == 1.0
    assert ndcg_at_k(["x", "f.md#three"], judged) == pytest.approx(1 / LOG3)
    assert recall_at_k(["f.md#two", "f.md#one"], judged) == 1.0


def test_sections_folded_into_one_chunk_let_a_perfect_ranking_reach_one():
    # Under h2 chunking an h3 answer (grade 1) lives inside its parent's chunk (grade 2).
    judged = [J(2, "p.md#parent"), J(1, "p.md#parent"), J(1, "p.md#other")]
    assert ideal_dcg(judged, 5) == pytest.approx(2 + 1 / LOG3)
    assert ndcg_at_k(["p.md#parent", "p.md#other"], judged) == pytest.approx(1.0)
    assert recall_at_k(["p.md#parent"], judged) == pytest.approx(2 / 3)


def test_the_better_chunk_first_never_scores_lower_when_judgments_overlap():
    judged = [J(2, "x"), J(1, "x", "y")]  # x answers both; y only the partial one
    assert ndcg_at_k(["x", "y"], judged) == pytest.approx(1.0)
    assert ndcg_at_k(["y", "x"], judged) == pytest.approx((1 + 2 / LOG3) / (2 + 1 / LOG3))


def test_mrr_and_hit():
    judged = [J(1, "a"), J(2, "b")]
    assert mrr_at_k(["x", "y", "b"], judged) == pytest.approx(1 / 3)
    assert mrr_at_k(["a"], judged) == 1.0
    assert mrr_at_k(["x"] * 5 + ["a"], judged, k=5) == 0.0
    assert hit_at_k(["x", "a"], judged, k=2) == 1.0
    assert hit_at_k(["x", "a"], judged, k=1) == 0.0


def test_k_must_be_positive():
    with pytest.raises(ValueError, match="k must be at least 1"):
        ndcg_at_k(["a"], [J(1, "a")], k=0)


def test_mean_scores_and_percentile():
    scores = [QueryScores(1.0, 1.0, 1.0, 0.5), QueryScores(0.0, 0.5, 1.0, 0.0)]
    assert mean_scores(scores) == QueryScores(0.5, 0.75, 1.0, 0.25)
    assert mean_scores([]) == QueryScores(0.0, 0.0, 0.0, 0.0)
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (3.0, 5.0, 5.0)
    assert percentile([7.0], 50) == 7.0
    assert percentile([], 50) == 0.0


# -- an independent implementation: textbook NDCG over per-document grades ------------------


def textbook_ndcg(ranked: list[str], grades: dict[str, int], k: int) -> float:
    """NDCG as usually written, valid when each judgment names exactly one distinct document."""
    seen: list[str] = []
    for doc in ranked:
        if doc not in seen:
            seen.append(doc)
        else:
            seen.append("")  # a repeat keeps its position but earns nothing
    dcg = sum(grades.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(seen[:k]))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(grades.values(), reverse=True)[:k]))
    return dcg / idcg if idcg else 0.0


docs = st.sampled_from([f"d{i}" for i in range(8)])


@settings(max_examples=300, deadline=None)
@given(
    grades=st.dictionaries(docs, st.integers(1, 3), max_size=6),
    ranked=st.lists(docs, max_size=8),
    k=st.integers(1, 6),
)
def test_matches_textbook_ndcg_when_each_judgment_is_one_document(grades, ranked, k):
    judged = [J(g, doc) for doc, g in grades.items()]
    assert ndcg_at_k(ranked, judged, k) == pytest.approx(textbook_ndcg(ranked, grades, k))


# -- brute force for overlapping judgments ---------------------------------------------------


def brute_dcg(ranked: list[str], judged: list[Judgment], k: int) -> float:
    """Try every way to give distinct judgments to the first occurrences of the top-k chunks."""
    positions = []
    for i, doc in enumerate(ranked[:k]):
        positions.append(doc if doc not in ranked[:i] else None)
    best = 0.0
    choices = [[None] + [j for j, jd in enumerate(judged) if doc is not None and doc in jd.ids] for doc in positions]
    for pick in itertools.product(*choices):
        used = [j for j in pick if j is not None]
        if len(used) == len(set(used)):
            best = max(best, sum(judged[j].grade / math.log2(i + 2) for i, j in enumerate(pick) if j is not None))
    return best


def brute_ideal(judged: list[Judgment], k: int) -> float:
    universe = sorted(set().union(*(j.ids for j in judged))) if judged else []
    return max(
        (
            brute_dcg(list(order), judged, k)
            for n in range(min(k, len(universe)) + 1)
            for order in itertools.permutations(universe, n)
        ),
        default=0.0,
    )


small_docs = st.sampled_from(["a", "b", "c", "d"])
judgment = st.builds(Judgment, st.frozensets(small_docs, min_size=1, max_size=3), st.integers(1, 3).map(float))


@settings(max_examples=200, deadline=None)
@given(judged=st.lists(judgment, min_size=1, max_size=4), ranked=st.lists(small_docs, max_size=5), k=st.integers(1, 4))
def test_matches_brute_force_when_judgments_overlap(judged, ranked, k):
    assert dcg_at_k(ranked, judged, k) == pytest.approx(brute_dcg(ranked, judged, k))
    assert ideal_dcg(judged, k) == pytest.approx(brute_ideal(judged, k))
    assert 0.0 <= ndcg_at_k(ranked, judged, k) <= 1.0 + 1e-9
