"""What the learned ranking knows: a few numbers any markdown corpus yields, per chunk and per query.

Every feature is defined by structure, never by a corpus's names. Per (query, chunk): how strongly
the fusion found the chunk and its page, how close its meaning is next to the best match, how much
of the query its heading holds, whether it shows an example. Per query, for the gate that decides
whether the corpus answers the query at all: how much of the query the corpus knows, how close its
closest chunk comes, how much of the query one candidate holds, how close the fusion's best
candidate is in meaning, and how sure the ranking is of its best candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Column order of the chunk feature matrix; the model record names its weights in this order. Features
# that were measured and did not transfer across the development sets are not here (corpus/guide/ranking.md).
FEATURES = (
    "fused",  # the hybrid score: BM25 and cosine, each over the query's best
    "file_best",  # the best hybrid score among the chunk's page
    "cosine_gap",  # cosine minus the best cosine among the candidates (0 for the closest chunk)
    "heading_match",  # share of the query's terms in the heading path
    "has_code",  # page role: the chunk holds a fenced code block (an example)
)
# The gate's inputs, in order: the query's own signals, then the ranking's best logit.
GATE_FEATURES = (
    "known_share",  # share of the query's words the corpus holds at all (low for a foreign question)
    "best_cosine",  # the best cosine over every chunk: how close the corpus comes at all
    "best_coverage",  # the largest share of the query's words one candidate holds
    "top_cosine",  # the cosine of the fusion's best candidate: whether the two signals agree on it
    "best_logit",  # the learned ranking's logit of its best candidate
)


@dataclass(frozen=True)
class QuerySignals:
    """What one query is as a whole: the gate's inputs but the ranking's best logit."""

    known_share: float
    best_cosine: float
    best_coverage: float
    top_cosine: float

    def gate_inputs(self, best_logit: float) -> np.ndarray:
        """The gate's features (GATE_FEATURES order)."""
        return np.array([self.known_share, self.best_cosine, self.best_coverage, self.top_cosine, best_logit])


def feature_matrix(fused: np.ndarray, file_best: np.ndarray, cosine: np.ndarray, heading_share: np.ndarray, has_code: np.ndarray) -> np.ndarray:
    """(candidates, len(FEATURES)) features of some candidate chunks for one query; every argument is per candidate.

    ``cosine`` is -1 for a chunk without a vector (or in a mode without vectors); the gap is taken
    to the best of these candidates.
    """
    vector = np.clip(cosine, 0.0, 1.0)
    best_vector = float(vector.max()) if len(vector) else 0.0
    columns = (fused, file_best, vector - best_vector, heading_share, has_code)
    return np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
