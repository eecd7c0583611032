"""The gate: the probability that the corpus answers a query at all, from the query's own signals.

It reads the query's features (features.QUERY_FEATURES: what the corpus knows of the query and how close it
comes, over the corpus's baselines; whether it holds evidence) and how sure the score model is of the best
candidate. A query the corpus holds no evidence for (server/search/evidence_finder.py) and whose gate probability is
under the floor gets zero hits and the zero-result hint instead of the least-unrelated chunks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from docs_mcp.server.ranking.calibration import LogisticModel
from docs_mcp.server.ranking.features import QUERY_FEATURES


def gate_inputs(table: Mapping[str, Any], score: LogisticModel) -> dict[str, np.ndarray]:
    """The gate's inputs (features.GATE_FEATURES) for the candidates whose features are ``table``: the query's features
    and the logit of its best candidate's score."""
    inputs = {name: np.asarray(table[name], dtype=np.float64).reshape(-1)[:1] for name in QUERY_FEATURES}
    inputs["best_score"] = np.array([float(score.logits(table).max())])
    return inputs


def answered(table: Mapping[str, Any], score: LogisticModel, gate: LogisticModel | None) -> float:
    """The probability that the corpus answers the query: the gate's, or without a gate the best candidate's score."""
    if gate is None:
        return float(score.probabilities(table).max())
    return float(gate.probabilities(gate_inputs(table, score))[0])
