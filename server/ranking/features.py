"""What the learned parts of the ranking know: a few numbers any markdown corpus yields, per hit and per query.

Every feature is defined by structure, never by a corpus's names. Per (query, candidate): how the
fusion found it and its page, how close its meaning is (absolutely, and next to the best candidate),
how much of the query it and its heading hold, whether it shows an example, how its heading names
the query's identifiers, and where the fusion ranks it. Per query: how much of it the corpus knows
at all, how close the corpus comes, how much of it one candidate holds, whether the fusion's best
candidate is also close in meaning, and what evidence the corpus holds for it (evidence.py).

A model record (calibration.LogisticModel) names the features it uses; the engine computes them all
for the fusion's best candidates (a few array operations), so a model can use any of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docs_mcp.server.ranking.evidence import OWN_HEADING, PATH, TEXT, WHOLE_HEADING, Evidence

# Per candidate.
CANDIDATE_FEATURES = (
    "fused",  # the fusion's BM25 + cosine, each over the query's best
    "file_best",  # the best fused score among the candidate's page
    "fusion",  # fused + file_boost * file_best: the fusion's own score
    "cosine",  # the candidate's best-window cosine, in [0, 1]
    "cosine_gap",  # cosine minus the best cosine among the candidates (0 for the closest one)
    "heading_match",  # share of the query's terms in the heading path
    "coverage",  # share of the query's words (stop words aside) the candidate holds
    "has_code",  # page role: the candidate holds a fenced code block (an example)
    "lookup_tier",  # how its headings and text name a lookup's identifiers (evidence.lookup_tiers), in [0, 1]
    "log_rank",  # log(1 + its 0-based rank in the fusion's order)
)
# Per query (one value for every candidate of the query). The share of known words and the cosines are taken as lifts
# over the corpus's baselines, what PROBES score: a large corpus knows more of any question's words, and a corpus of
# short, terse pages sits further from every question, answered or not.
QUERY_FEATURES = (
    "known_lift",  # share of the query's words the corpus holds at all, minus the baseline
    "best_lift",  # the best cosine over every chunk the filters allow, minus the baseline
    "best_coverage",  # the largest share of the query's words one candidate holds
    "top_lift",  # the cosine of the fusion's best candidate, minus the baseline
    "evidence",  # 1 when the corpus holds evidence for the query (evidence.Evidence.holds)
    "absent_name",  # 1 when an identifier or a capitalised name of the query is written nowhere in the corpus
    "lookup",  # 1 for a lookup (identifiers only, or one word)
)
# Questions no documentation set answers, far from any technical topic: how much of them a corpus knows and how close
# it comes to them are its baselines (computed once per index generation). Not the development sets' off-topic queries.
PROBES = (
    "a recipe for chocolate cake", "who painted the Mona Lisa", "how many legs does a spider have",
    "the history of the Roman empire", "how to grow roses in a garden", "what time is sunset in summer",
    "the rules of chess", "how to learn to play the violin", "best beaches in Portugal", "how do birds migrate",
    "what is a black hole", "tips for a job interview",
)  # fmt: skip
FEATURES = CANDIDATE_FEATURES + QUERY_FEATURES
PROBE_SPREADS = "probe_spreads"
UNKNOWN_NAME = "unknown_name"  # 1 when a word the query capitalises is nowhere in the corpus (the own gate reads it)
MIN_SPREAD = 0.01  # probes that all score alike (below a hundredth apart) give no scale
# The gate's inputs: the query's features and the logit of its best candidate's score.
GATE_FEATURES = QUERY_FEATURES + ("best_score",)
LOOKUP_TIER_SCALE = OWN_HEADING + WHOLE_HEADING + PATH + TEXT


@dataclass(frozen=True)
class Baselines:
    """What a corpus scores for PROBES, questions it does not answer: the mean share of their words it knows, the
    mean best cosine (0 without vectors), and how far the probes' best cosines spread about it (their standard
    deviation: the scale of the index's own gate, gate.own_gate)."""

    known_share: float
    cosine: float
    cosine_spread: float = 0.0


@dataclass(frozen=True)
class QuerySignals:
    """What one query is as a whole."""

    known_share: float
    best_cosine: float
    best_coverage: float
    top_cosine: float
    evidence: Evidence
    baselines: Baselines

    def table(self) -> dict[str, float]:
        """The QUERY_FEATURES of the query."""
        return {
            "known_lift": self.known_share - self.baselines.known_share,
            "best_lift": self.best_cosine - self.baselines.cosine,
            "best_coverage": self.best_coverage,
            "top_lift": self.top_cosine - self.baselines.cosine,
            "evidence": float(self.evidence.holds),
            "absent_name": float(self.evidence.missing_name),
            "lookup": float(self.evidence.lookup),
            # Not a model's features: the own gate's (gate.py) measures, the best cosine over the probes' in their spreads
            # and whether the query names a thing the corpus never writes.
            PROBE_SPREADS: (self.best_cosine - self.baselines.cosine) / max(self.baselines.cosine_spread, MIN_SPREAD),
            UNKNOWN_NAME: float(bool(self.evidence.unknown_names)),
        }


def candidate_table(
    *,
    fused: np.ndarray,
    file_best: np.ndarray,
    file_boost: float,
    cosine: np.ndarray,
    heading_share: np.ndarray,
    coverage: np.ndarray,
    has_code: np.ndarray,
    lookup_tiers: np.ndarray,
    ranks: np.ndarray,
) -> dict[str, np.ndarray]:
    """The CANDIDATE_FEATURES of some candidates of one query; every argument is per candidate.

    ``cosine`` is -1 for a chunk without a vector (or in a mode without vectors); the gap is taken
    to the best of these candidates.
    """
    vector = np.clip(np.asarray(cosine, dtype=np.float64), 0.0, 1.0)
    best_vector = float(vector.max()) if len(vector) else 0.0
    fused = np.asarray(fused, dtype=np.float64)
    file_best = np.asarray(file_best, dtype=np.float64)
    return {
        "fused": fused,
        "file_best": file_best,
        "fusion": fused + file_boost * file_best,
        "cosine": vector,
        "cosine_gap": vector - best_vector,
        "heading_match": np.asarray(heading_share, dtype=np.float64),
        "coverage": np.minimum(np.asarray(coverage, dtype=np.float64), 1.0),
        "has_code": np.asarray(has_code, dtype=np.float64),
        "lookup_tier": np.asarray(lookup_tiers, dtype=np.float64) / LOOKUP_TIER_SCALE,
        "log_rank": np.log1p(np.asarray(ranks, dtype=np.float64)),
    }
