"""Fit the learned parts of hybrid search (server/ranking/model.py) on graded queries: pools, models, floor.

Each golden query becomes a pool: the fusion's best ``RERANK_DEPTH`` candidates in its order, every
feature of them and of the query (server/ranking/features.py), their grades (0 for unjudged), and the
query's evidence. On pools, without running the engine again:

- the score model: a logistic regression of "this candidate is relevant" on its features and the
  query's, over the first ``SCORE_DEPTH`` candidates of every query (every candidate of an off-topic
  query is a negative), so that its probability reads the same on every query;
- the ordering: a logistic regression over the candidate features of the on-topic pools (relevant
  = grade > 0, weighted by grade), which may reorder the head;
- the floor: the probability under which a query without evidence is held back.

``served`` reproduces what hybrid search returns for a pool under given parts, so that eval/loco.py
can compare them with the fusion on corpora they were not fitted on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docs_mcp.eval.golden import GoldenQuery
from docs_mcp.eval.judgments import resolve_judgments
from docs_mcp.eval.metrics import Judgment
from docs_mcp.eval.runner import read_index_chunks
from docs_mcp.server.ranking.calibration import LogisticModel, non_increasing
from docs_mcp.server.ranking.evidence import Evidence
from docs_mcp.server.ranking.features import CANDIDATE_FEATURES, FEATURES, GATE_FEATURES
from docs_mcp.server.ranking.gate import answered, gate_inputs
from docs_mcp.server.search.engine import Engine, RankingSettings, open_engine

NEWTON_STEPS = 50
# How many near-duplicates (candidates.FAMILY_JACCARD) a demotion rule would let stand before moving the rest
# behind the others: measured on every corpus and left out of hybrid search (corpus/guide/ranking.md).
FAMILY_LIMIT = 1
# The score model is fitted on the candidates a page shows and the few after them.
SCORE_DEPTH = 20


@dataclass(frozen=True)
class Pool:
    """One golden query's candidates as the fusion ranked them, with features, grades and the query's evidence."""

    query: GoldenQuery
    corpus: str  # the corpus (index) it ran on
    chunk_ids: tuple[str, ...]  # candidates in the fusion's order
    table: Mapping[str, np.ndarray]  # every feature, one value per candidate
    grades: np.ndarray  # best grade of a judgment each candidate satisfies, 0 if none
    judgments: tuple[Judgment, ...]
    family: np.ndarray  # (candidates, candidates): near-duplicates, for the demotion measured
    twins: np.ndarray  # (candidates, candidates): twins across a collapse key, which it drops
    evidence: Evidence

    def matrix(self, features: Sequence[str], depth: int | None = None) -> np.ndarray:
        """(candidates, features) of the first ``depth`` candidates."""
        rows = slice(0, depth)
        return (
            np.column_stack([self.table[name][rows] for name in features])
            if features
            else np.zeros((len(self.grades[rows]), 0))
        )


def collect(
    queries: Sequence[GoldenQuery],
    index_dir: Path | str,
    corpus: str,
    settings: RankingSettings | None = None,
    judgments: Sequence[tuple[Judgment, ...]] | None = None,
) -> list[Pool]:
    """The pools of every golden query against the index at ``index_dir`` (ranked with ``settings``); ``judgments``
    when the queries' entries are not sections of the index's files (tool keys)."""
    if judgments is None:
        chunks, _, _ = read_index_chunks(Path(index_dir))
        judgments = resolve_judgments(queries, chunks)
    engine = open_engine(index_dir, settings)
    try:
        return [_pool(engine, query, judged, corpus) for query, judged in zip(queries, judgments)]
    finally:
        engine.close()


def _pool(engine: Engine, query: GoldenQuery, judged: tuple[Judgment, ...], corpus: str) -> Pool:
    found = engine.candidate_pool(query.query, query.filters)
    grades = np.array([max((j.grade for j in judged if name in j.ids), default=0.0) for name in found.chunk_ids])
    size = len(found.rows)
    table = {
        name: np.broadcast_to(np.asarray(found.table[name], dtype=np.float64), (size,)).copy() for name in FEATURES
    }
    return Pool(query, corpus, found.chunk_ids, table, grades, judged, found.family, found.twins, found.evidence)


def fit(x: np.ndarray, y: np.ndarray, penalty: float, sample: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """(weights on raw features, bias) of an L2-penalised logistic regression of ``y`` (0/1) on ``x``."""
    sample = np.ones(len(x)) if sample is None else sample
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.column_stack([np.ones(len(x)), (x - mean) / scale])
    beta = np.zeros(z.shape[1])
    ridge = np.full(z.shape[1], penalty)
    ridge[0] = 0.0  # the intercept is not penalised
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (sample * (p - y)) + ridge * beta
        hessian = (z * (sample * p * (1 - p))[:, None]).T @ z + np.diag(ridge) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = beta[1:] / scale
    return weights, float(beta[0] - weights @ mean)


def fit_score(pools: Sequence[Pool], features: Sequence[str], penalty: float) -> LogisticModel:
    """The score model: P(relevant) of the first ``SCORE_DEPTH`` candidates of every pool, each query weighing the same."""
    rows = [
        (p.matrix(features, SCORE_DEPTH), (p.grades[:SCORE_DEPTH] > 0).astype(np.float64)) for p in pools if p.chunk_ids
    ]
    x = np.vstack([m for m, _ in rows])
    y = np.concatenate([labels for _, labels in rows])
    weight = np.concatenate([np.full(len(labels), 1.0 / len(labels)) for _, labels in rows]) * len(rows)
    weights, bias = fit(x, y, penalty, weight)
    return LogisticModel(tuple(features), tuple(float(w) for w in weights), bias)


def fit_ordering(pools: Sequence[Pool], features: Sequence[str], penalty: float) -> LogisticModel:
    """The ordering, fitted on the on-topic pools (relevant = grade > 0, weighted by grade)."""
    on_topic = [p for p in pools if not p.query.off_topic and p.chunk_ids]
    grades = np.concatenate([p.grades for p in on_topic])
    x = np.vstack([p.matrix(features) for p in on_topic])
    weights, bias = fit(x, (grades > 0).astype(np.float64), penalty, np.where(grades > 0, grades, 1.0))
    return LogisticModel(tuple(features), tuple(float(w) for w in weights), bias)


@dataclass(frozen=True)
class Parts:
    """Which parts of hybrid search to apply to a pool; all off is the plain fusion (``--mode fusion``)."""

    score: LogisticModel | None = None
    floor: float | None = None  # with ``score``: the gate's floor
    gate: LogisticModel | None = None  # P(the corpus answers the query); without it, the best candidate's score
    ordering: LogisticModel | None = None
    lookups: bool = False  # identifiers first (evidence.lookup_tiers)
    demote: bool = False  # near-duplicates behind the others (measured, not shipped)
    evidence: bool = False  # evidence before abstention (and a lookup's matches only outside the filters)


FUSION = Parts()
CANDIDATE = tuple(CANDIDATE_FEATURES)


def withheld(pool: Pool, parts: Parts) -> bool:
    """Whether hybrid search under ``parts`` answers the pool's query with zero hits."""
    if not pool.chunk_ids:
        return True
    if parts.evidence and pool.evidence.only_elsewhere:
        return True
    if parts.score is None or parts.floor is None:
        return False
    if parts.evidence and pool.evidence.holds:
        return False
    return best_probability(pool, parts.score, parts.gate) < parts.floor


def best_probability(pool: Pool, score: LogisticModel, gate: LogisticModel | None = None) -> float:
    """What the floor is compared with: the gate's probability that the corpus answers the query, else the best
    candidate's score (0 without candidates)."""
    return answered(pool.table, score, gate) if pool.chunk_ids else 0.0


def fit_gate(pools: Sequence[Pool], score: LogisticModel, penalty: float = 1.0) -> LogisticModel:
    """The gate: P(the corpus answers the query) from the query's features and its best score; off-topic queries are 0.
    Fitted on the queries it decides: those the corpus holds no evidence for."""
    rows = [
        (gate_inputs(p.table, score), 0.0 if p.query.off_topic else 1.0)
        for p in pools
        if p.chunk_ids and not p.evidence.holds
    ]
    x = np.vstack([np.column_stack([t[name] for name in GATE_FEATURES]) for t, _ in rows])
    weights, bias = fit(x, np.array([y for _, y in rows]), penalty)
    return LogisticModel(GATE_FEATURES, tuple(float(w) for w in weights), bias)


def ranked_head(pool: Pool, parts: Parts) -> np.ndarray:
    """Positions of the pool's candidates in the order of the head as served: the ordering, then lookups first."""
    positions = np.arange(len(pool.chunk_ids))
    if parts.ordering is not None:
        positions = positions[np.lexsort((positions, -parts.ordering.logits(pool.table)))]
    if parts.lookups and pool.evidence.lookup:
        tiers = pool.table["lookup_tier"][positions]
        positions = positions[np.lexsort((np.arange(len(positions)), -tiers))]
    return positions


def order(pool: Pool, parts: Parts) -> list[int]:
    """Positions of the pool's candidates as served (before abstention): the head's order, twins dropped, near-duplicates
    demoted."""
    kept: list[int] = []
    deferred: list[int] = []
    for i in ranked_head(pool, parts).tolist():
        if any(pool.twins[i, j] for j in kept + deferred):
            continue
        demoted = parts.demote and sum(bool(pool.family[i, j]) for j in kept) >= FAMILY_LIMIT
        (deferred if demoted else kept).append(i)
    return kept + deferred


def served(pool: Pool, parts: Parts, k: int = 5) -> list[str]:
    """The first ``k`` chunk IDs hybrid search under ``parts`` returns for the pool (none when withheld)."""
    if withheld(pool, parts):
        return []
    return [pool.chunk_ids[i] for i in order(pool, parts)[:k]]


def shown_scores(pool: Pool, parts: Parts, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(scores as shown, relevant 0/1) of the first ``k`` hits under ``parts`` (its score model), none when withheld.

    As the engine does: probabilities made non-increasing over the head's order, then capped down the served list."""
    if parts.score is None or withheld(pool, parts):
        return np.zeros(0), np.zeros(0)
    head = ranked_head(pool, parts)
    pooled = np.zeros(len(head))
    pooled[head] = non_increasing(parts.score.probabilities(pool.table)[head])
    positions = order(pool, parts)[:k]
    shown = np.minimum.accumulate(pooled[positions])
    return shown, (pool.grades[positions] > 0).astype(np.float64)
