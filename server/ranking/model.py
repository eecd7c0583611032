"""The learned ranking: a logistic model over the chunk features of features.py, and a gate, read from the index.

Two small logistic models, trained per embedding model (cosine scales differ between models) and
recorded in the index at build time:

- the ranking gives each candidate the probability that it answers the query, given that the
  corpus answers it at all; it orders the fusion's best candidates;
- the gate gives the probability that the corpus answers the query at all, from the query's own
  signals. A query under the gate's floor gets zero hits (and the zero-result hint) instead of
  the least-unrelated chunks.

A hit's score is the product of the two, the probability that it answers the query, so 0.8 means
the same on every query. An index without a recorded model is ranked by the hybrid fusion alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from docs_mcp.errors import UsageError
from docs_mcp.server.ranking.features import FEATURES, GATE_FEATURES
from docs_mcp.server.ranking.gate import Gate, sigmoid

# The model reorders the fusion's best candidates; the rest follow them in the fusion's order, so
# a weak match deep in the fusion's list cannot leap over its whole head. Training pools have this depth.
RERANK_DEPTH = 100


@dataclass(frozen=True)
class RankerModel:
    """The ranking: P(relevant | answered) = sigmoid(bias + weights . FEATURES), and the gate."""

    weights: tuple[float, ...]  # in FEATURES order
    bias: float
    gate: Gate

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any]) -> "RankerModel":
        """The model as recorded in an index's metadata (``ranker``).

        Raises:
            UsageError: the record names other features than this version computes.
        """
        gate = data.get("gate") or {}
        _check_features(data.get("features", ()), FEATURES)
        _check_features(gate.get("features", ()), GATE_FEATURES)
        return cls(
            _weights(data["weights"], FEATURES), float(data["bias"]),
            Gate(_weights(gate["weights"], GATE_FEATURES), float(gate["bias"]), float(gate["floor"])),
        )  # fmt: skip

    def logits(self, features: np.ndarray) -> np.ndarray:
        """The ranking's logit of each row of a (candidates, FEATURES) matrix."""
        return features @ np.asarray(self.weights) + self.bias

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(relevant | answered) of each row of a (candidates, FEATURES) matrix."""
        return sigmoid(self.logits(features))


def by_probability(head: np.ndarray, probability: np.ndarray) -> np.ndarray:
    """``head`` (in the fusion's order) reordered by descending probability; ties keep the fusion's order."""
    return head[np.lexsort((np.arange(len(head)), -probability))]


def _weights(weights: Mapping[str, float], names: Sequence[str]) -> tuple[float, ...]:
    return tuple(float(weights[name]) for name in names)


def _check_features(names: Sequence[str], computed: Sequence[str]) -> None:
    if tuple(names) != tuple(computed):
        raise UsageError(
            f"The index's ranking model uses features {', '.join(names) or 'none'}; this version computes {', '.join(computed)}.",
            "Re-index with this version (`docs-mcp index`), or serve with --mode fusion.",
        )
