"""Ranking metrics over one ranked list of chunk IDs and the graded judgments of one query.

A *judgment* is one relevant entry of a golden query: the set of chunk IDs that satisfy
it (one chunk, the chunk holding a section, or every chunk of a file) and its grade.
DCG pairs the ranked chunks with the judgments they satisfy, each chunk earning at most
one judgment's grade and each judgment credited at most once (so a whole-file judgment
is not paid twice for two of its chunks), and takes the pairing worth the most with
linear gains and the usual ``1 / log2(rank + 1)`` discount.

The ideal DCG is the most any ranking of the index could earn.  When every judgment
names its own chunk this is the DCG of the grades sorted downwards; when chunking
folds two judged sections into one chunk (an h3 answer inside its h2 chunk) only one
of them can be earned, so a perfect ranking still scores 1.0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Judgment:
    """One relevant entry: the chunk IDs that satisfy it, and its grade (> 0; 2 best, 1 partial)."""

    ids: frozenset[str]
    grade: float


@dataclass(frozen=True)
class QueryScores:
    """The metrics of one query at one cutoff k."""

    ndcg: float
    mrr: float
    hit: float
    recall: float


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def _discount(rank0: int) -> float:
    return 1.0 / math.log2(rank0 + 2)


def _live(judgments: Sequence[Judgment]) -> list[Judgment]:
    return [j for j in judgments if j.grade > 0]


def _matches(ranked: Sequence[str], judgments: Sequence[Judgment], k: int) -> list[tuple[int, ...]]:
    """For each of the top ``k`` positions, the judgments its chunk satisfies (none for a repeated chunk)."""
    seen: set[str] = set()
    matches = []
    for chunk_id in ranked[:k]:
        matches.append(
            () if chunk_id in seen else tuple(j for j, judgment in enumerate(judgments) if chunk_id in judgment.ids)
        )
        seen.add(chunk_id)
    return matches


def dcg_at_k(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> float:
    """DCG of the best pairing of the top ``k`` chunks with judgments (one judgment per chunk and vice versa).

    Raises:
        ValueError: ``k`` is not positive.
    """
    _check_k(k)
    live = _live(judgments)
    matches = _matches(ranked, live, k)

    @cache
    def best(position: int, used: int) -> float:
        if position == len(matches):
            return 0.0
        value = best(position + 1, used)
        for j in matches[position]:
            if not used >> j & 1:
                value = max(value, live[j].grade * _discount(position) + best(position + 1, used | 1 << j))
        return value

    return best(0, 0)


def ideal_dcg(judgments: Sequence[Judgment], k: int = 5) -> float:
    """The largest DCG@k any ranking can earn: the best judgments that distinct chunks can satisfy.

    Judgments that can be given distinct chunks form a (transversal) matroid, so taking
    them greedily by grade yields the best sorted grade list, hence the best DCG.

    Raises:
        ValueError: ``k`` is not positive.
    """
    _check_k(k)
    live = _live(judgments)
    holder: dict[str, int] = {}  # chunk ID -> the judgment it currently stands for
    chosen: list[float] = []
    for index in sorted(range(len(live)), key=lambda j: (-live[j].grade, j)):
        if len(chosen) == k:
            break
        trial = dict(holder)
        if _augment(index, live, trial, set()):
            holder = trial
            chosen.append(live[index].grade)
    return sum(grade * _discount(rank0) for rank0, grade in enumerate(chosen))


def _augment(j: int, judgments: Sequence[Judgment], holder: dict[str, int], visited: set[str]) -> bool:
    """Find a chunk for judgment ``j``, moving other judgments to other chunks if needed (Kuhn)."""
    for chunk_id in sorted(judgments[j].ids):
        if chunk_id in visited:
            continue
        visited.add(chunk_id)
        if chunk_id not in holder or _augment(holder[chunk_id], judgments, holder, visited):
            holder[chunk_id] = j
            return True
    return False


def ndcg_at_k(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> float:
    """Normalised DCG of the top ``k`` with graded linear gains; 0.0 when nothing is judged relevant.

    Raises:
        ValueError: ``k`` is not positive.
    """
    ideal = ideal_dcg(judgments, k)
    return dcg_at_k(ranked, judgments, k) / ideal if ideal > 0 else 0.0


def first_relevant_rank(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> int | None:
    """1-based rank of the first chunk in the top ``k`` that satisfies a judgment, or None.

    Raises:
        ValueError: ``k`` is not positive.
    """
    _check_k(k)
    for rank0, matched in enumerate(_matches(ranked, _live(judgments), k)):
        if matched:
            return rank0 + 1
    return None


def mrr_at_k(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> float:
    """Reciprocal rank of the first relevant chunk in the top ``k``, 0.0 if none.

    Raises:
        ValueError: ``k`` is not positive.
    """
    rank = first_relevant_rank(ranked, judgments, k)
    return 1.0 / rank if rank else 0.0


def hit_at_k(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> float:
    """1.0 if any relevant chunk is in the top ``k``, else 0.0.

    Raises:
        ValueError: ``k`` is not positive.
    """
    return 1.0 if first_relevant_rank(ranked, judgments, k) else 0.0


def recall_at_k(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> float:
    """Share of the judgments satisfied by some chunk of the top ``k``; 0.0 with no judgments.

    Raises:
        ValueError: ``k`` is not positive.
    """
    _check_k(k)
    live = _live(judgments)
    if not live:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for j in live if j.ids & top) / len(live)


def score_query(ranked: Sequence[str], judgments: Sequence[Judgment], k: int = 5) -> QueryScores:
    """All four metrics of one query at cutoff ``k``.

    Raises:
        ValueError: ``k`` is not positive.
    """
    return QueryScores(
        ndcg=ndcg_at_k(ranked, judgments, k),
        mrr=mrr_at_k(ranked, judgments, k),
        hit=hit_at_k(ranked, judgments, k),
        recall=recall_at_k(ranked, judgments, k),
    )


def mean_scores(scores: Sequence[QueryScores]) -> QueryScores:
    """The per-metric mean over queries (all zeros for no queries)."""
    n = len(scores)
    if n == 0:
        return QueryScores(0.0, 0.0, 0.0, 0.0)
    return QueryScores(
        ndcg=sum(s.ndcg for s in scores) / n,
        mrr=sum(s.mrr for s in scores) / n,
        hit=sum(s.hit for s in scores) / n,
        recall=sum(s.recall for s in scores) / n,
    )


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100) of ``values``; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * p / 100))
    return ordered[min(rank, len(ordered)) - 1]
