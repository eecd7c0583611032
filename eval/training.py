"""Train the learned ranking (server/search/rerank.py) on golden sets: a ranking, a gate, the gate's floor.

Each golden query becomes a pool: the fusion's best ``RERANK_DEPTH`` candidates with their
features and grades (0 for unjudged), and the query's own signals. Two logistic regressions with
an L2 penalty (numpy, Newton steps on standardised features):

- the ranking learns P(relevant | the corpus answers the query) on the on-topic pools; its penalty
  is picked by cross-validation over queries (NDCG@5 of the held-out folds);
- the gate learns P(the corpus answers the query) from the query's signals and the ranking's best
  logit, on every query (off-topic ones are the negatives).

The gate's floor is the lowest at which every training set abstains on ``ABSTENTION_TARGET`` of
its off-topic queries while losing at most ``FLOOR_RECALL_LOSS`` of its on-topic recall@5; when
no floor reaches the target, the highest that keeps the recall.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from docs_mcp.eval.errors import EvalRunError, TrainingSetError
from docs_mcp.eval.golden import OFF_TOPIC, GoldenQuery, load_golden
from docs_mcp.eval.judgments import resolve_judgments
from docs_mcp.eval.metrics import Judgment, ndcg_at_k, recall_at_k
from docs_mcp.eval.runner import read_index_chunks
from docs_mcp.indexer import open_index
from docs_mcp.server.search.diversity import FAMILY_LIMIT
from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.ranking.features import FEATURES, GATE_FEATURES
from docs_mcp.server.ranking.gate import Gate
from docs_mcp.server.ranking.model import RankerModel

PENALTIES = (0.01, 0.1, 1.0, 10.0, 100.0)
GATE_PENALTY = 1.0
FOLDS = 5
FLOOR_RECALL_LOSS = 0.01
ABSTENTION_TARGET = 0.9
NEWTON_STEPS = 50
NO_GATE = Gate((0.0,) * len(GATE_FEATURES), 0.0, 0.0)
MIN_ON_TOPIC = FOLDS  # every cross-validation fold holds one out and trains on the others
MIN_OFF_TOPIC = 1  # the gate's negatives: without one it learns that every query is answered


@dataclass(frozen=True)
class Pool:
    """One golden query's candidates as the fusion ranked them, with features and grades."""

    query: GoldenQuery
    chunk_ids: tuple[str, ...]  # candidates in fusion order
    features: np.ndarray  # (candidates, FEATURES)
    grades: np.ndarray  # best grade of a judgment each candidate satisfies, 0 if none
    judgments: tuple[Judgment, ...]
    family: np.ndarray  # (candidates, candidates): near-duplicates, which the served ranking demotes
    twins: np.ndarray  # (candidates, candidates): twins across a collapse key, which it drops
    signals: np.ndarray  # the query's gate inputs but the best logit (GATE_FEATURES[:-1])
    source: str = ""  # the golden file it came from


def collect(queries: Sequence[GoldenQuery], index_dir: Path | str, source: str = "") -> list[Pool]:
    """The pools of every golden query against the index at ``index_dir`` (``source``: the golden file's name)."""
    chunks, _, _ = read_index_chunks(Path(index_dir))
    judgments = resolve_judgments(queries, chunks)
    engine = open_engine(index_dir)
    try:
        pools = []
        for query, judged in zip(queries, judgments):
            pool = engine.candidate_pool(query.query, query.filters)
            grades = np.array([max((j.grade for j in judged if name in j.ids), default=0.0) for name in pool.chunk_ids])
            own = pool.signals.gate_inputs(0.0)[:-1]
            pools.append(Pool(query, pool.chunk_ids, pool.features, grades, judged, pool.family, pool.twins, own, source))
        return pools
    finally:
        engine.close()


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


def fit_ranking(pools: Sequence[Pool], penalty: float) -> RankerModel:
    """The ranking fitted on the on-topic pools (relevant = grade > 0, weighted by grade), without a gate."""
    on_topic = [p for p in pools if not p.query.off_topic]
    grades = np.concatenate([p.grades for p in on_topic])
    weights, bias = fit(np.vstack([p.features for p in on_topic]), (grades > 0).astype(np.float64), penalty, np.where(grades > 0, grades, 1.0))
    return RankerModel(tuple(float(w) for w in weights), bias, NO_GATE)


def gate_inputs(pool: Pool, model: RankerModel) -> np.ndarray | None:
    """The pool's gate features under ``model`` (None for a query without candidates: it gets no hits anyway)."""
    if not pool.chunk_ids:
        return None
    return np.append(pool.signals, float(model.logits(pool.features).max()))


def fit_gate(pools: Sequence[Pool], model: RankerModel) -> tuple[tuple[float, ...], float]:
    """(weights, bias) of the gate: on-topic queries are 1, off-topic ones 0."""
    rows = [(x, 0.0 if p.query.off_topic else 1.0) for p in pools if (x := gate_inputs(p, model)) is not None]
    weights, bias = fit(np.vstack([x for x, _ in rows]), np.array([y for _, y in rows]), GATE_PENALTY)
    return tuple(float(w) for w in weights), bias


def reranked(pool: Pool, model: RankerModel, k: int = 5) -> list[str]:
    """The pool's first ``k`` chunk IDs as served (the gate aside): the model's order, near-duplicates demoted, twins dropped."""
    if not pool.chunk_ids:
        return []
    probability = model.probabilities(pool.features)
    order = np.lexsort((np.arange(len(probability)), -probability)).tolist()
    kept: list[int] = []
    deferred: list[int] = []
    for i in order:
        if any(pool.twins[i, j] for j in kept + deferred):
            continue
        (deferred if sum(pool.family[i, j] for j in kept) >= FAMILY_LIMIT else kept).append(i)
    return [pool.chunk_ids[i] for i in (kept + deferred)[:k]]


def answered(pool: Pool, model: RankerModel) -> float:
    """The gate's probability that the corpus answers the pool's query (0 without candidates)."""
    inputs = gate_inputs(pool, model)
    return 0.0 if inputs is None else model.gate.probability(inputs)


@dataclass(frozen=True)
class Scores:
    """What a model achieves on some pools."""

    ndcg: float
    recall: float
    recall_lost: float  # on-topic recall@5 the gate's floor costs
    abstention: float | None  # share of off-topic queries with zero hits


def score(pools: Sequence[Pool], model: RankerModel, k: int = 5) -> Scores:
    """NDCG@k and recall@k of the on-topic pools (zero when the gate holds them back), abstention of the off-topic ones."""
    ndcg, recall, lost, abstained = [], [], [], []
    for pool in pools:
        ranked = reranked(pool, model, k)
        kept = ranked if ranked and answered(pool, model) >= model.gate.floor else []
        if pool.query.off_topic:
            abstained.append(not kept)
        else:
            ndcg.append(ndcg_at_k(kept, pool.judgments, k))
            recall.append(recall_at_k(kept, pool.judgments, k))
            lost.append(recall_at_k(ranked, pool.judgments, k) - recall[-1])
    return Scores(_mean(ndcg), _mean(recall), _mean(lost), _mean(abstained) if abstained else None)


def cross_validate(pools: Sequence[Pool], penalty: float, folds: int = FOLDS) -> float:
    """Mean NDCG@5 of the ranking over held-out folds of the on-topic pools (round-robin in file order)."""
    on_topic = [p for p in pools if not p.query.off_topic]
    values = []
    for fold in range(folds):
        model = fit_ranking([p for i, p in enumerate(on_topic) if i % folds != fold], penalty)
        values.extend(score([p], model).ndcg for i, p in enumerate(on_topic) if i % folds == fold)
    return _mean(values)


def choose_floor(sets: Sequence[Sequence[Pool]], model: RankerModel) -> float:
    """The gate's floor: the lowest that reaches ``ABSTENTION_TARGET`` on every set within the recall budget, else the highest within it."""
    # Per set: each query's gate probability, whether it is off-topic, and the recall@5 it has to lose.
    queries = [[(answered(p, model), p.query.off_topic, 0.0 if p.query.off_topic else recall_at_k(reranked(p, model), p.judgments, 5)) for p in pools] for pools in sets]
    # A floor just above a query's probability holds that query back.
    candidates = sorted({0.0} | {round(a + 1e-6, 6) for qs in queries for a, _, _ in qs})
    affordable = 0.0
    for floor in candidates:
        lost = [sum(r for a, off, r in qs if not off and a < floor) / max(sum(1 for _, off, _ in qs if not off), 1) for qs in queries]
        if any(value > FLOOR_RECALL_LOSS for value in lost):
            break
        affordable = floor
        held = [[a < floor for a, off, _ in qs if off] for qs in queries]
        if all(not h or np.mean(h) >= ABSTENTION_TARGET for h in held):
            return floor
    return affordable


def train(sets: Sequence[Sequence[Pool]]) -> tuple[RankerModel, dict]:
    """The ranking with the cross-validated penalty, its gate and floor, and the CV NDCG@5 of each penalty."""
    pools = [p for pools in sets for p in pools]
    cv = {str(penalty): round(cross_validate(pools, penalty), 4) for penalty in PENALTIES}
    penalty = max(PENALTIES, key=lambda value: (cv[str(value)], value))
    ranking = fit_ranking(pools, penalty)
    weights, bias = fit_gate(pools, ranking)
    gated = RankerModel(ranking.weights, ranking.bias, Gate(weights, bias, 0.0))
    floor = choose_floor(sets, gated)
    model = RankerModel(ranking.weights, ranking.bias, Gate(weights, bias, floor))
    return model, {"penalty": penalty, **{f"cv_ndcg@5 penalty {k}": v for k, v in cv.items()}}


def model_record(model: RankerModel, notes: dict) -> dict:
    """The JSON record of a model, as shipped and as recorded in an index."""
    gate = model.gate
    return {
        "features": list(FEATURES),
        "weights": {name: round(w, 6) for name, w in zip(FEATURES, model.weights)},
        "bias": round(model.bias, 6),
        "gate": {
            "features": list(GATE_FEATURES),
            "weights": {name: round(w, 6) for name, w in zip(GATE_FEATURES, gate.weights)},
            "bias": round(gate.bias, 6),
            "floor": round(gate.floor, 6),
        },
        "training": notes,
    }


def train_file(sets: Sequence[tuple[Path, Path]]) -> dict:
    """The rankers file (``indexer/rankers.json``) of a model trained on every (golden, index) pair of ``sets``.

    Raises:
        GoldenFileError: a golden file is missing or malformed.
        TrainingSetError: the golden files hold fewer than ``MIN_ON_TOPIC`` on-topic or ``MIN_OFF_TOPIC`` off-topic queries.
        EvalRunError: no set, or indexes without vectors or embedded by different models.
    """
    goldens = [load_golden(golden) for golden, _ in sets]
    on_topic, off_topic = check_enough_queries([q for queries in goldens for q in queries])
    identities = {_identity(index) for _, index in sets}
    if len(identities) != 1 or None in identities:
        raise EvalRunError(
            "The training indexes must all have vectors from one embedding model.",
            "Build every --set index with the same --model (or the packaged one).",
        )
    pools = [collect(queries, index, Path(golden).name) for queries, (golden, index) in zip(goldens, sets)]
    model, notes = train(pools)
    notes = {**notes, "sets": [Path(golden).name for golden, _ in sets], "queries": on_topic, "off_topic": off_topic}
    (provider, name, checksum) = identities.pop()
    record = {"embedding": {"provider": provider, "model": name, "checksum": checksum}, **model_record(model, notes)}
    return {"version": 2, "rankers": [record]}


def check_enough_queries(queries: Sequence[GoldenQuery]) -> tuple[int, int]:
    """(on-topic, off-topic) counts of ``queries``, when they are enough to train on.

    Raises:
        TrainingSetError: fewer than ``MIN_ON_TOPIC`` on-topic queries (one per cross-validation fold) or
            ``MIN_OFF_TOPIC`` off-topic ones (the gate's only negatives).
    """
    on_topic = sum(1 for query in queries if not query.off_topic)
    off_topic = len(queries) - on_topic
    if on_topic < MIN_ON_TOPIC or off_topic < MIN_OFF_TOPIC:
        raise TrainingSetError(
            f"Training needs at least {MIN_ON_TOPIC} on-topic queries (one per cross-validation fold) and "
            f"{MIN_OFF_TOPIC} off-topic query (\"style\": \"{OFF_TOPIC}\", for the gate); the --set golden files hold "
            f"{on_topic} on-topic and {off_topic} off-topic.",
            "Add graded queries, and questions the docs do not answer with style off-topic, to the golden files.",
        )
    return on_topic, off_topic


def _identity(index: Path) -> tuple[str, str, str] | None:
    with open_index(Path(index)) as reader:
        model = reader.model
    return None if model is None else (model.provider, model.name, model.checksum)


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0
