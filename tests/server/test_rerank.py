"""The learned parts as an index records them: named features, probabilities that read in list order."""

from __future__ import annotations

import numpy as np
import pytest

from docs_mcp.errors import UsageError
from docs_mcp.server.ranking.calibration import LogisticModel, capped, non_increasing
from docs_mcp.server.ranking.features import CANDIDATE_FEATURES, candidate_table
from docs_mcp.server.ranking.model import LearnedRanking, by_probability


def table(n: int = 2, **columns) -> dict:
    base = dict(fused=np.ones(n), file_best=np.ones(n), file_boost=1.0, cosine=np.full(n, 0.5), heading_share=np.zeros(n),
                coverage=np.zeros(n), has_code=np.zeros(n), lookup_tiers=np.zeros(n), ranks=np.arange(n))  # fmt: skip
    return candidate_table(**{**base, **columns})


def test_features_are_the_named_columns():
    columns = table(
        fused=np.array([1.0, 0.1]), file_best=np.array([1.0, 0.4]), cosine=np.array([0.6, 0.3]), ranks=np.array([0, 1])
    )
    assert set(columns) == set(CANDIDATE_FEATURES)
    assert columns["cosine_gap"] == pytest.approx([0.0, -0.3]) and columns["fusion"] == pytest.approx([2.0, 0.5])
    assert columns["log_rank"] == pytest.approx([0.0, np.log(2)])


def test_a_chunk_without_a_vector_has_the_widest_cosine_gap():
    assert table(cosine=np.array([0.7, -1.0]))["cosine_gap"] == pytest.approx([0.0, -0.7])


def test_the_model_reorders_by_probability_and_ties_keep_the_fusion_order():
    model = LogisticModel(("has_code",), (3.0,), -1.0)
    probability = model.probabilities(table(4, has_code=np.array([0.0, 1.0, 0.0, 0.0])))
    assert by_probability(np.array([0, 1, 2, 3]), probability).tolist() == [1, 0, 2, 3]
    assert probability[1] == pytest.approx(1 / (1 + np.exp(-2.0)))


def test_pooled_probabilities_never_rise_down_the_list_and_keep_their_mean():
    pooled = non_increasing(np.array([0.9, 0.3, 0.5, 0.2, 0.4]))
    assert pooled.tolist() == pytest.approx([0.9, 0.4, 0.4, 0.3, 0.3]) and pooled.sum() == pytest.approx(2.3)
    assert capped(np.array([0.5, 0.6, 0.2]), 0.45).tolist() == [0.45, 0.45, 0.2]


def test_a_record_with_other_features_or_of_the_older_format_is_refused_with_a_hint():
    with pytest.raises(UsageError, match="features") as raised:
        LearnedRanking.from_metadata(
            {"score": {"features": ["anchor_match"], "weights": {"anchor_match": 1.0}, "bias": 0.0}, "floor": 0.5}
        )
    assert "--mode fusion" in raised.value.hint
    with pytest.raises(UsageError, match="older format"):
        LearnedRanking.from_metadata(
            {"features": ["fused"], "weights": {"fused": 1.0}, "bias": 0.0, "gate": {"floor": 0.2}}
        )
