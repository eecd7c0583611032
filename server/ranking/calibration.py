"""A hit's score: the calibrated probability that it answers the query, read the same on every query and corpus.

The fusion's score is relative (the best hit of any query scores about 1), so it cannot tell a real
match from the least bad one. The score model is a logistic regression over absolute signals of the
hit (its cosine, the share of the query's words it holds, how its heading names the query's
identifiers) and of the query (how much of it the corpus knows at all, how close the corpus comes,
whether the corpus holds evidence for it), fitted on graded queries of several corpora and checked on
corpora it was not fitted on (eval/loco.py, corpus/guide/ranking.md). Every candidate of an off-topic
query is a negative example, so a query the corpus does not answer gets low scores throughout.

Scores must read in the order of the list: the probabilities of the ranked head are made
non-increasing by pooling adjacent violators (each pooled run gets its mean), and past the head each
score is capped by the one before it, so every page of one query shows the same values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docs_mcp.errors import UsageError


@dataclass(frozen=True)
class LogisticModel:
    """sigmoid(bias + Σ weight × feature) over named features."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    @classmethod
    def from_record(cls, record: Mapping[str, Any], known: Sequence[str]) -> LogisticModel:
        """The model as recorded (``{"features": [...], "weights": {name: w}, "bias": b}``).

        Raises:
            UsageError: it names a feature this version does not compute.
        """
        names = tuple(record.get("features", ()))
        unknown = [name for name in names if name not in known]
        if unknown or not names:
            raise UsageError(
                f"The index's ranking record uses features {', '.join(unknown) or 'none'} that this version does not compute.",
                "Re-index with this version (`docs-mcp index`), or serve with --mode fusion.",
            )
        return cls(names, tuple(float(record["weights"][name]) for name in names), float(record["bias"]))

    def record(self) -> dict[str, Any]:
        """The JSON record of the model."""
        return {
            "features": list(self.features),
            "weights": {n: round(w, 6) for n, w in zip(self.features, self.weights)},
            "bias": round(self.bias, 6),
        }

    def logits(self, table: Mapping[str, np.ndarray]) -> np.ndarray:
        """The logit of each candidate; ``table`` maps every feature name to a per-candidate array (or a scalar)."""
        size = max((np.size(v) for v in table.values()), default=0)
        total = np.full(size, self.bias, dtype=np.float64)
        for name, weight in zip(self.features, self.weights):
            total += weight * np.asarray(table[name], dtype=np.float64)
        return total

    def probabilities(self, table: Mapping[str, np.ndarray]) -> np.ndarray:
        return sigmoid(self.logits(table))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def non_increasing(values: np.ndarray) -> np.ndarray:
    """The least-squares non-increasing sequence closest to ``values`` (pool adjacent violators): each run of
    values out of order is replaced by its mean."""
    means: list[float] = []
    sizes: list[int] = []
    for value in np.asarray(values, dtype=np.float64).tolist():
        means.append(value)
        sizes.append(1)
        while len(means) > 1 and means[-2] < means[-1]:
            size = sizes[-2] + sizes[-1]
            means[-2] = (means[-2] * sizes[-2] + means[-1] * sizes[-1]) / size
            sizes[-2] = size
            means.pop()
            sizes.pop()
    return np.repeat(np.asarray(means), sizes) if means else np.zeros(0)


def capped(values: np.ndarray, ceiling: float) -> np.ndarray:
    """``values`` in list order, each capped by the one before it (the first by ``ceiling``)."""
    return (
        np.minimum.accumulate(np.minimum(np.asarray(values, dtype=np.float64), ceiling)) if len(values) else np.zeros(0)
    )
