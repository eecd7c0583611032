"""The gate: the probability that the corpus answers a query at all, from the query's own signals.

Two gates, one per kind of index:

- with a learned ranking (the default model: indexer/rankers.json), a logistic regression (below);
- without one (any other embedding model, whose cosines live on another scale), the index's own gate: a query
  without evidence is held back when its best cosine is less than ``OWN_GATE_SPREADS`` standard deviations above
  what the index scores for PROBES, questions no documentation answers (``OWN_GATE_NAME_SPREADS`` when it
  capitalises a word the corpus never holds: ``Flutter``, ``JVM``), or when the index knows fewer of its
  words than of theirs (features.Baselines). Measured against the index's own probes, both read the same on every
  model and corpus (corpus/guide/ranking.md, "The gate").

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
from docs_mcp.server.ranking.features import PROBE_SPREADS, QUERY_FEATURES, UNKNOWN_NAME

# Chosen on the bundled guide's sets with multilingual-e5-small and the default model, and FastAPI's with the default
# model (each as if it had no learned gate): at most one on-topic query lost per set (corpus/guide/ranking.md).
OWN_GATE_SPREADS = 1.5
OWN_GATE_KNOWN_LIFT = 0.0
# A question about a thing the corpus never names must come twice as close: chosen on Fastify with
# multilingual-e5-small, whose off-topic questions naming Rust, Flutter or VACUUM sit 1.6-2.3 spreads above its probes.
OWN_GATE_NAME_SPREADS = 3.0


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


def own_gate_holds_back(table: Mapping[str, Any]) -> bool:
    """Whether an index without a learned gate holds the query whose features are ``table`` back (unless it has
    evidence): its best cosine is less than ``OWN_GATE_SPREADS`` probe spreads above the index's probes'
    (``OWN_GATE_NAME_SPREADS`` when it names a thing the corpus never writes), or the index knows a smaller share of
    its words than of the probes'."""
    spreads, known, name = (
        float(np.asarray(table[key]).reshape(-1)[0]) for key in (PROBE_SPREADS, "known_lift", UNKNOWN_NAME)
    )
    margin = OWN_GATE_NAME_SPREADS if name else OWN_GATE_SPREADS
    return spreads < margin or known < OWN_GATE_KNOWN_LIFT
