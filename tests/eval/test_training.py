"""Training the learned ranking: a logistic fit that finds the signal, a gate whose floor keeps recall, a readable record."""

from __future__ import annotations

import numpy as np

from docs_mcp.eval.golden import GoldenQuery
from docs_mcp.eval.metrics import Judgment
from docs_mcp.eval.training import ABSTENTION_TARGET, Pool, fit_gate, fit_ranking, model_record, score, train
from docs_mcp.server.ranking.features import FEATURES, GATE_FEATURES
from docs_mcp.server.ranking.gate import Gate
from docs_mcp.server.ranking.model import RankerModel

WIDTH = len(FEATURES)


def pool(qid: str, good: float, bad: float, cosine: float, off_topic: bool = False) -> Pool:
    """Two candidates whose first feature is ``good`` and ``bad``; the first is relevant unless off-topic.

    ``cosine`` is the query's best cosine (the gate's signal).
    """
    features = np.zeros((2, WIDTH))
    features[:, 0] = [good, bad]
    grades = np.array([0.0 if off_topic else 2.0, 0.0])
    judgments = () if off_topic else (Judgment(frozenset({f"{qid}-a"}), 2.0),)
    query = GoldenQuery(qid, "q", (), category="off-topic" if off_topic else "keyword")
    empty = np.zeros((2, 2), dtype=bool)
    return Pool(query, (f"{qid}-a", f"{qid}-b"), features, grades, judgments, empty, empty, np.array([1.0, cosine, 1.0, cosine]))


ON_TOPIC = [pool(f"q{i}", 0.9 - i * 0.01, 0.2 + i * 0.01, cosine=0.6 + i * 0.01) for i in range(10)]
OFF_TOPIC = [pool(f"o{i}", 0.1, 0.05, cosine=0.2 + i * 0.01, off_topic=True) for i in range(10)]


def test_the_ranking_finds_the_feature_that_separates_relevant_chunks():
    model = fit_ranking(ON_TOPIC + OFF_TOPIC, penalty=1.0)
    assert model.weights[0] > 1.0 and np.allclose(model.weights[1:], 0.0)
    assert score(ON_TOPIC, model).ndcg == 1.0


def test_the_gate_holds_back_off_topic_queries_without_losing_recall():
    model, _ = train([ON_TOPIC + OFF_TOPIC])
    result = score(ON_TOPIC + OFF_TOPIC, model)
    assert result.recall == 1.0 and result.recall_lost == 0.0 and result.abstention >= ABSTENTION_TARGET
    assert model.gate.weights[GATE_FEATURES.index("best_cosine")] > 0  # closer corpora answer


def test_without_a_floor_every_query_is_answered():
    ranking = fit_ranking(ON_TOPIC, penalty=1.0)
    weights, bias = fit_gate(ON_TOPIC + OFF_TOPIC, ranking)
    open_gate = RankerModel(ranking.weights, ranking.bias, Gate(weights, bias, 0.0))
    assert score(OFF_TOPIC, open_gate).abstention == 0.0


def test_the_record_names_every_feature():
    record = model_record(RankerModel(tuple(range(WIDTH)), -1.0, Gate((1.0,) * len(GATE_FEATURES), -2.0, 0.3)), {"penalty": 1.0})
    assert record["features"] == list(FEATURES) and list(record["weights"]) == list(FEATURES)
    assert record["gate"]["features"] == list(GATE_FEATURES) and record["gate"]["floor"] == 0.3
    assert RankerModel.from_metadata(record).gate.floor == 0.3

