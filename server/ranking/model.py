"""The learned parts of hybrid search, as an index records them: an optional reordering, the score model, the floor.

Trained per embedding model (cosine scales differ between models) by ``docs-mcp train-ranking``, each
part chosen by leave-one-corpus-out validation (eval/loco.py) and recorded in the index at build time:

- ``ordering``: a logistic model that reorders the fusion's best candidates, present only when it
  beat the fusion's own order on every held-out corpus; without it, hybrid keeps the fusion's order;
- ``score``: the calibrated probability that a hit answers the query (calibration.py), each hit's
  ``score``;
- ``gate``: the probability that the corpus answers the query at all, from the query's own signals and
  its best candidate's score (without a gate: that best score);
- ``floor``: a query whose gate probability is under it gets zero hits (and the zero-result hint),
  unless the corpus holds evidence for it (evidence.py).

An index without a record (another embedding model, no vectors) is ranked by the fusion alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from docs_mcp.errors import UsageError
from docs_mcp.indexer.ranker import RECORD_VERSION, is_current
from docs_mcp.server.ranking.calibration import LogisticModel
from docs_mcp.server.ranking.features import CANDIDATE_FEATURES, FEATURES, GATE_FEATURES
from docs_mcp.server.ranking.gate import answered

# The ordering and the score read the fusion's best candidates; the rest follow them in the fusion's
# order, so a weak match deep in the fusion's list cannot leap over its whole head. Training pools have this depth.
RERANK_DEPTH = 100
__all__ = ["RECORD_VERSION", "RERANK_DEPTH", "LearnedRanking", "by_probability", "is_current"]


@dataclass(frozen=True)
class LearnedRanking:
    """What an index's ranking record holds."""

    score: LogisticModel
    floor: float
    ordering: LogisticModel | None = None
    gate: LogisticModel | None = None

    def answered(self, table: Mapping[str, Any]) -> float:
        """The probability that the corpus answers the query whose candidates' features are ``table`` (gate.py)."""
        return answered(table, self.score, self.gate)

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any]) -> LearnedRanking:
        """The record as an index's metadata holds it (``ranker``).

        Raises:
            UsageError: the record is of another format, or names features this version does not compute.
        """
        if not is_current(data):
            raise UsageError(
                "The index's ranking record is of an older format.",
                "Re-index with this version (`docs-mcp index`), or serve with --mode fusion.",
            )
        ordering, gate = data.get("ordering"), data.get("gate")
        return cls(
            LogisticModel.from_record(data["score"], FEATURES),
            float(data["floor"]),
            None if ordering is None else LogisticModel.from_record(ordering, CANDIDATE_FEATURES),
            None if gate is None else LogisticModel.from_record(gate, GATE_FEATURES),
        )


def by_probability(head: np.ndarray, probability: np.ndarray) -> np.ndarray:
    """``head`` (in the fusion's order) reordered by descending probability; ties keep the fusion's order."""
    return head[np.lexsort((np.arange(len(head)), -probability))]
