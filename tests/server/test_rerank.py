"""The learned ranking: features are the named columns, probabilities order the head, near-duplicates step back."""

from __future__ import annotations

import numpy as np
import pytest

from docs_mcp.errors import UsageError
from docs_mcp.server.search.diversity import demote_near_duplicates
from docs_mcp.server.ranking.features import FEATURES, GATE_FEATURES, QuerySignals, feature_matrix
from docs_mcp.server.ranking.gate import Gate
from docs_mcp.server.ranking.model import RankerModel, by_probability


def signals(vector) -> QuerySignals:
    return QuerySignals(known_share=1.0, best_cosine=max(vector), best_coverage=0.5, top_cosine=vector[0])


def model(**weights: float) -> RankerModel:
    return RankerModel(tuple(weights.get(name, 0.0) for name in FEATURES), -1.0, Gate((0.0,) * len(GATE_FEATURES), 0.0, 0.5))


def test_features_are_the_named_columns():
    matrix = feature_matrix(np.array([1.0, 0.1]), np.array([1.0, 0.4]), np.array([0.6, 0.3]), np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    column = {name: matrix[:, i].tolist() for i, name in enumerate(FEATURES)}
    assert column["cosine_gap"] == pytest.approx([0.0, -0.3]) and column["heading_match"] == [1.0, 0.0]
    assert column["fused"] == [1.0, 0.1] and column["file_best"] == [1.0, 0.4] and column["has_code"] == [0.0, 1.0]


def test_a_chunk_without_a_vector_has_the_widest_cosine_gap():
    matrix = feature_matrix(np.ones(2), np.ones(2), np.array([0.7, -1.0]), np.zeros(2), np.zeros(2))
    assert matrix[:, FEATURES.index("cosine_gap")].tolist() == pytest.approx([0.0, -0.7])


def test_the_gate_reads_the_query_signals_and_the_best_logit():
    inputs = signals([0.6]).gate_inputs(best_logit=2.0)
    assert dict(zip(GATE_FEATURES, inputs.tolist())) == {"known_share": 1.0, "best_cosine": 0.6, "best_coverage": 0.5, "top_cosine": 0.6, "best_logit": 2.0}
    gate = Gate((0.0, 10.0, 0.0, 0.0, 0.0), -5.0, 0.5)
    assert gate.probability(inputs) > 0.5 > gate.probability(signals([0.3]).gate_inputs(2.0))


def test_the_model_reorders_by_probability_and_ties_keep_the_fusion_order():
    head = np.array([0, 1, 2, 3])
    features = feature_matrix(np.full(4, 0.5), np.full(4, 0.5), np.full(4, 0.5), np.zeros(4), np.array([0.0, 1.0, 0.0, 0.0]))
    probability = model(has_code=3.0).probabilities(features)
    assert by_probability(head, probability).tolist() == [1, 0, 2, 3]  # the chunk with an example first
    assert probability[1] == pytest.approx(1 / (1 + np.exp(-2.0))) and probability[0] < probability[1]


def test_a_record_with_other_features_is_refused_with_a_hint():
    with pytest.raises(UsageError, match="features") as raised:
        RankerModel.from_metadata({"features": ["anchor_match"], "weights": {"anchor_match": 1.0}, "bias": 0.0, "floor": 0.5})
    assert "--mode fusion" in raised.value.hint


def test_near_duplicates_step_behind_the_others():
    family = {frozenset({0, 1})}
    ordered = demote_near_duplicates(np.array([0, 1, 2, 3]), 10, lambda a, b: frozenset({a, b}) in family)
    assert ordered.tolist() == [0, 2, 3, 1]


def test_demotion_decides_only_the_first_kept_chunks():
    ordered = demote_near_duplicates(np.array([0, 1, 2, 3, 4]), 2, lambda a, b: {a, b} == {0, 1})
    assert ordered.tolist() == [0, 2, 1, 3, 4]
