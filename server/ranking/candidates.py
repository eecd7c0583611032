"""The candidates the learned ranking orders, as training sees them: the public view of one query's pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docs_mcp.server.ranking.features import QuerySignals


@dataclass(frozen=True)
class CandidatePool:
    """The fusion's best candidates for one query, best first, and what the ranking and its gate read of them."""

    rows: np.ndarray  # chunk rows (chunks.id)
    chunk_ids: tuple[str, ...]
    features: np.ndarray  # (candidates, FEATURES)
    signals: QuerySignals  # the query's own signals (the gate's inputs but the best logit)
    family: np.ndarray  # (candidates, candidates): near-duplicates, which the served ranking demotes
    twins: np.ndarray  # (candidates, candidates): twins across a collapse key, which it drops
