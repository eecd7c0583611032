"""The gate: the probability that the corpus answers a query at all, from the query's own signals.

A query under the gate's floor gets zero hits (and the zero-result hint) instead of the
least-unrelated chunks; a hit's score is the gate's probability times the ranking's (model.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Gate:
    """P(the corpus answers the query) = sigmoid(bias + weights . GATE_FEATURES); under ``floor``: no hits."""

    weights: tuple[float, ...]
    bias: float
    floor: float

    def probability(self, inputs: np.ndarray) -> float:
        return float(sigmoid(float(inputs @ np.asarray(self.weights)) + self.bias))


def sigmoid(x):
    """The logistic function, elementwise."""
    return 1.0 / (1.0 + np.exp(-x))
