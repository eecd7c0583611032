"""The candidates the learned parts read, as training sees them: the public view of one query's pool."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from docs_mcp.server.ranking.evidence import Evidence

# Near-duplicates: the same heading over word sets this alike (Jaccard). A rule that moved them behind the others
# was measured leaving one corpus out and did not ship (corpus/guide/ranking.md); training still measures it.
FAMILY_JACCARD = 0.6


@dataclass(frozen=True)
class CandidatePool:
    """The fusion's best candidates for one query, in its order, and what the learned parts read of them."""

    rows: np.ndarray  # chunk rows (chunks.id)
    chunk_ids: tuple[str, ...]
    table: Mapping[str, np.ndarray | float]  # every feature (features.FEATURES), per candidate or per query
    evidence: Evidence
    family: np.ndarray  # (candidates, candidates): near-duplicates (FAMILY_JACCARD)
    twins: np.ndarray  # (candidates, candidates): twins across a collapse key, which the served ranking drops
