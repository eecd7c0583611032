"""Leave-one-corpus-out validation of every learned part of hybrid search, and the record that ships.

A part fitted on some corpora must help on a corpus it has never seen: for each corpus, the parts are
fitted on the others and measured on it, against the plain fusion (``--mode fusion``) on the same
pools. A part ships only when it does:

- the ordering (a learned reordering of the fusion's head) ships only if its NDCG@5 beats the fusion's
  order on every held-out corpus; otherwise hybrid search keeps the fusion's order;
- the score model (calibrated probabilities) is judged by its Brier score on the first 10 hits of each
  held-out corpus against the base rate of the corpora it was fitted on;
- the floor (the gate) ships only if on every held-out corpus it holds back at most
  ``MAX_WITHHELD`` on-topic queries per golden set and at least ``OFF_TOPIC_TARGET`` of the off-topic
  ones; otherwise the floor is 0 (no query is held back but for evidence found only outside the filters).
  Each fold's floor is the middle of the range that is safe on both counts inside the fold (choose_floor).

Penalties are chosen inside each training fold the same way (leaving one training corpus out at a
time), so nothing about a held-out corpus reaches its model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from docs_mcp.eval.bootstrap import Interval, bootstrap_mean
from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.metrics import hit_at_k, ndcg_at_k
from docs_mcp.eval.training import (
    CANDIDATE,
    FUSION,
    SCORE_DEPTH,
    Parts,
    Pool,
    collect,
    fit_gate,
    fit_ordering,
    fit_score,
    served,
    shown_scores,
)  # fmt: skip
from docs_mcp.server.ranking.calibration import LogisticModel
from docs_mcp.server.ranking.features import FEATURES

PENALTIES = (0.1, 1.0, 10.0, 100.0)
# The feature sets an ordering may use, fewest first; the inner validation picks one.
ORDERING_FEATURES = (
    ("fusion", "cosine"),
    ("fusion", "cosine", "heading_match"),
    ("fusion", "cosine", "heading_match", "coverage"),
    ("fused", "file_best", "cosine_gap", "heading_match", "has_code"),
    CANDIDATE,
)
# The floors choose_floor tries: probabilities that the corpus answers the query.
FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7)
TIE = 5e-4  # NDCG@5 differences this small are ties (the same top 5)
MAX_WITHHELD = 1  # on-topic queries a golden set may lose to the floor, on a corpus the gate was not fitted on
OFF_TOPIC_TARGET = 0.85  # issue 39's acceptance criterion: off-topic questions held back on every held-out corpus
STYLES = {
    "keyword": "keyword/identifier",
    "identifier": "keyword/identifier",
    "natural": "natural",
    "paraphrase": "paraphrase",
}
CALIBRATION_BINS = 10
RULES = Parts(lookups=True, evidence=True)  # the unlearned parts of hybrid search
# get_docs's confidence where an index has no calibrated scores (another embedding model, or full text only):
# a logistic curve over the two signals any index gives, fitted and checked the same way.
FALLBACK_CONFIDENCE = {"similarity+coverage": ("cosine", "coverage"), "coverage": ("coverage",)}

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Corpus:
    """One corpus: its index and the golden sets that ask it."""

    name: str
    index: Path
    goldens: tuple[Path, ...]


def collect_corpora(corpora: Sequence[Corpus], progress: Progress | None = None) -> dict[str, list[Pool]]:
    """Every corpus's pools (each set's queries against the corpus's index)."""
    pools: dict[str, list[Pool]] = {}
    for done, corpus in enumerate(corpora, 1):
        queries = [q for golden in corpus.goldens for q in _tagged(golden)]
        pools[corpus.name] = collect(queries, corpus.index, corpus.name)
        if progress:
            progress(done, len(corpora))
    return pools


def _tagged(golden: Path):
    """The set's queries, each remembering its set (in ``where``) so that figures can be given per set."""
    return [replace(q, where=f"{golden.name}:{q.where}") for q in load_golden(golden)]


def set_of(pool: Pool) -> str:
    return pool.query.where.split(":", 1)[0]


# -- fitting ------------------------------------------------------------------------------------


def choose_score(train: Mapping[str, list[Pool]]) -> tuple[LogisticModel, float]:
    """The score model with the penalty whose inner leave-one-corpus-out log loss is lowest, and that penalty."""
    if len(train) < 2:
        return fit_score(_all(train), FEATURES, 10.0), 10.0
    losses = {penalty: np.mean([_log_loss(fit_score(_all(train, without=name), FEATURES, penalty), pools) for name, pools in train.items()])
              for penalty in PENALTIES}  # fmt: skip
    penalty = min(PENALTIES, key=lambda p: (losses[p], -p))
    return fit_score(_all(train), FEATURES, penalty), penalty


def choose_ordering(train: Mapping[str, list[Pool]], base: Parts) -> LogisticModel:
    """The ordering whose features (one of ``ORDERING_FEATURES``) and penalty give the highest inner
    leave-one-corpus-out NDCG@5."""
    if len(train) < 2:
        return fit_ordering(_all(train), CANDIDATE, 10.0)
    choices = [(features, penalty) for features in ORDERING_FEATURES for penalty in PENALTIES]
    gains = [np.mean([_ndcg(pools, replace(base, ordering=fit_ordering(_all(train, without=name), features, penalty)))
                      for name, pools in train.items()]) for features, penalty in choices]  # fmt: skip
    features, penalty = choices[int(np.argmax(gains))]  # the first best: fewer features, then the smaller penalty
    return fit_ordering(_all(train), features, penalty)


def choose_floor(train: Mapping[str, list[Pool]], parts: Parts, penalty: float) -> float:
    """The floor in the middle of the safe range of ``FLOORS``: leaving each training corpus out in turn (score and
    gate refitted on the others), a floor is safe when no golden set of the one left out loses more than
    ``MAX_WITHHELD`` on-topic queries to it and at least ``OFF_TOPIC_TARGET`` of its off-topic queries are held back.
    The middle (the lower one of two) keeps the furthest from both failures on a corpus not seen yet: the highest safe
    floor, chosen before, lost three on-topic answers on the corpus held out next. Without any safe floor, the highest
    that loses no more than ``MAX_WITHHELD``; 0 when none does. The floor is judged where the gate was not fitted."""
    if len(train) < 2:
        return 0.0
    answers = dict.fromkeys(FLOORS, True)
    safe = dict.fromkeys(FLOORS, True)
    for name, pools in train.items():
        inner = _all(train, without=name)
        score = fit_score(inner, FEATURES, penalty)
        inner_parts = replace(parts, score=score, gate=fit_gate(inner, score), ordering=None)
        for floor in FLOORS:
            figures = measure(pools, replace(inner_parts, floor=floor))
            answers[floor] &= max(figures.zero_by_set.values(), default=0) <= MAX_WITHHELD
            safe[floor] &= gate_holds(figures)
    middle = [floor for floor in FLOORS if safe[floor]]
    if middle:
        return middle[(len(middle) - 1) // 2]
    return max((floor for floor in FLOORS if answers[floor]), default=0.0)


def fit_parts(train: Mapping[str, list[Pool]], ordering: bool, gate: bool = True) -> Parts:
    """Hybrid search's parts fitted on ``train``: the score model, its gate and floor (0 without ``gate``) and, when
    ``ordering``, the ordering."""
    score, penalty = choose_score(train)
    parts = replace(RULES, score=score, gate=fit_gate(_all(train), score) if gate else None)
    if ordering:
        parts = replace(parts, ordering=choose_ordering(train, parts))
    return replace(parts, floor=choose_floor(train, parts, penalty) if gate else 0.0)


# -- measuring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """What one ranking achieves on one corpus's pools."""

    ndcg: Interval
    by_style: Mapping[str, Interval]
    on_topic: int
    on_topic_zero: int  # on-topic queries answered with zero hits
    zero_by_set: Mapping[str, int]
    off_topic: int
    off_topic_zero: int
    identifier_hits: tuple[int, int] = (0, 0)  # identifier queries with a relevant hit in the top 5, of all
    # The queries behind the counts, to read case by case: off-topic ones answered, on-topic ones held back.
    off_topic_answered: tuple[str, ...] = ()
    on_topic_withheld: tuple[str, ...] = ()

    @property
    def abstention(self) -> float | None:
        return self.off_topic_zero / self.off_topic if self.off_topic else None


def measure(pools: Sequence[Pool], parts: Parts) -> Figures:
    on_topic = [p for p in pools if not p.query.off_topic]
    ndcg = {id(p): ndcg_at_k(served(p, parts), p.judgments) for p in on_topic}
    styles: dict[str, list[float]] = {}
    for p in on_topic:
        styles.setdefault(STYLES.get(p.query.category, p.query.category), []).append(ndcg[id(p)])
    zero = [p for p in on_topic if not served(p, parts)]
    by_set: dict[str, int] = {set_of(p): 0 for p in on_topic}
    for p in zero:
        by_set[set_of(p)] += 1
    identifiers = [p for p in on_topic if p.query.category == "identifier"]
    found = sum(hit_at_k(served(p, parts), p.judgments) > 0 for p in identifiers)
    off = [p for p in pools if p.query.off_topic]
    return Figures(
        bootstrap_mean(list(ndcg.values())), {s: bootstrap_mean(v) for s, v in sorted(styles.items())}, len(on_topic), len(zero),
        by_set, len(off), sum(1 for p in off if not served(p, parts)), (int(found), len(identifiers)),
        tuple(p.query.query for p in off if served(p, parts)), tuple(p.query.query for p in zero),
    )  # fmt: skip


@dataclass(frozen=True)
class CalibrationFigures:
    """How well shown scores estimate relevance on a corpus: Brier score against the base rate's, expected calibration error."""

    brier: float
    base_brier: float
    ece: float
    hits: int

    @property
    def skill(self) -> float:
        return 1.0 - self.brier / self.base_brier if self.base_brier > 0 else 0.0


def calibration(pools: Sequence[Pool], parts: Parts, base_rate: float) -> CalibrationFigures:
    """Calibration of the first 10 hits' shown scores (off-topic queries included, when not held back)."""
    shown, labels = zip(*(shown_scores(p, parts) for p in pools)) if pools else ((), ())
    p = np.concatenate([np.zeros(0), *shown])
    y = np.concatenate([np.zeros(0), *labels])
    if not len(p):
        return CalibrationFigures(0.0, 0.0, 0.0, 0)
    bins = np.minimum((p * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
    ece = sum(abs(p[bins == b].mean() - y[bins == b].mean()) * np.mean(bins == b) for b in np.unique(bins))
    return CalibrationFigures(float(np.mean((p - y) ** 2)), float(np.mean((base_rate - y) ** 2)), float(ece), len(p))


@dataclass(frozen=True)
class HeldOut:
    """One corpus held out: the plain fusion, hybrid search with the parts fitted on the other corpora, and each part
    on its own."""

    corpus: str
    fusion: Figures
    hybrid: Figures  # the parts that ship
    rules_only: Figures  # evidence, lookups first, demotion: no learned part
    with_gate: Figures  # the rules, the gate and its floor, in the fusion's order
    with_ordering: Figures  # the rules and the learned ordering, no floor
    with_demotion: Figures  # the rules, near-duplicates moved behind the others (measured, not shipped)
    calibration: CalibrationFigures  # of the scores as shipped
    floor: float
    fallbacks: Mapping[str, CalibrationFigures] = field(default_factory=dict)  # FALLBACK_CONFIDENCE models, same hits
    # The abstention trade-off: per floor of FLOORS, (most on-topic queries one golden set loses, share of off-topic
    # queries held back), with the gate fitted on the other corpora.
    tradeoff: Mapping[float, tuple[int, float | None]] = field(default_factory=dict)
    gate_floor: float = 0.0  # the floor chosen inside the fold, which with_gate uses whether or not a floor ships


@dataclass(frozen=True)
class LocoReport:
    """Every held-out corpus, which parts ship, and the record fitted on all corpora."""

    held_out: tuple[HeldOut, ...]
    ordering_ships: bool
    floor_ships: bool
    record: dict = field(default_factory=dict)
    gated: bool = True  # False for tool discovery, which never holds a query back


def validate(pools: Mapping[str, list[Pool]], progress: Progress | None = None, gate: bool = True) -> LocoReport:
    """Leave each corpus out in turn; decide which parts ship; fit them on every corpus. Without ``gate`` no floor
    is fitted (tool discovery never holds a query back)."""
    folds = []
    for done, name in enumerate(pools, 1):
        train = {other: p for other, p in pools.items() if other != name}
        parts = fit_parts(train, ordering=True, gate=gate)
        base_rate = float(np.mean([g > 0 for p in _all(train) for g in p.grades[:10]]))
        folds.append((name, train, parts, base_rate))
        if progress:
            progress(done, len(pools))
    rules = {name: measure(pools[name], RULES) for name, *_ in folds}
    ordered = {name: measure(pools[name], replace(parts, floor=0.0)) for name, _, parts, _ in folds}
    gated = {name: measure(pools[name], replace(parts, ordering=None)) for name, _, parts, _ in folds}
    gains = [ordered[n].ndcg.mean - rules[n].ndcg.mean for n in rules]
    ordering_ships = (
        min(gains) >= -TIE and float(np.mean(gains)) > TIE
    )  # worse on no held-out corpus, better on the whole
    floor_ships = gate and all(gate_holds(gated[n]) for n in gated)
    held_out = []
    for name, train, parts, base_rate in folds:
        held = pools[name]
        shipped = parts if ordering_ships else replace(parts, ordering=None)
        shipped = shipped if floor_ships else replace(shipped, floor=0.0)
        held_out.append(HeldOut(
            name, measure(held, FUSION), measure(held, shipped), rules[name], gated[name], ordered[name], measure(held, replace(RULES, demote=True)),
            calibration(held, shipped, base_rate), float(shipped.floor or 0.0),
            {label: calibration(held, replace(shipped, score=fit_score(_all(train), features, 10.0)), base_rate)
             for label, features in FALLBACK_CONFIDENCE.items()},
            _tradeoff(held, replace(parts, ordering=None)) if gate else {}, float(parts.floor or 0.0),
        ))  # fmt: skip
    final = fit_parts(pools, ordering=ordering_ships, gate=gate)
    if not floor_ships:
        final = replace(final, floor=0.0)
    record = record_of(final, pools, held_out, ordering_ships, floor_ships)
    record["training"]["fallback_confidence"] = {
        label: fit_score(_all(pools), features, 10.0).record() for label, features in FALLBACK_CONFIDENCE.items()
    }
    return LocoReport(tuple(held_out), ordering_ships, floor_ships, record, gated=gate)


def _tradeoff(held: Sequence[Pool], parts: Parts) -> dict[float, tuple[int, float | None]]:
    figures = {floor: measure(held, replace(parts, floor=floor)) for floor in FLOORS}
    return {floor: (max(f.zero_by_set.values(), default=0), f.abstention) for floor, f in figures.items()}


def gate_holds(figures: Figures) -> bool:
    """Whether a gate meets issue 39's targets on one corpus: no golden set loses more than ``MAX_WITHHELD`` on-topic
    queries to it, and at least ``OFF_TOPIC_TARGET`` of the off-topic ones are held back."""
    rate = figures.abstention
    return max(figures.zero_by_set.values(), default=0) <= MAX_WITHHELD and (rate is None or rate >= OFF_TOPIC_TARGET)


def record_of(
    parts: Parts, pools: Mapping[str, list[Pool]], held_out: Sequence[HeldOut], ordering: bool, floor: bool
) -> dict:
    assert parts.score is not None
    return {
        "score": parts.score.record(),
        "gate": parts.gate.record() if parts.gate is not None else None,
        "floor": round(float(parts.floor or 0.0), 6),
        "ordering": parts.ordering.record() if parts.ordering is not None else None,
        "training": {
            "method": "leave-one-corpus-out (eval/loco.py)",
            "corpora": {name: len(p) for name, p in pools.items()},
            "ordering_ships": ordering,
            "floor_ships": floor,
            "held_out_ndcg@5": {
                h.corpus: {"fusion": round(h.fusion.ndcg.mean, 4), "hybrid": round(h.hybrid.ndcg.mean, 4)}
                for h in held_out
            },
        },
    }


def _all(pools: Mapping[str, list[Pool]], without: str | None = None) -> list[Pool]:
    return [p for name, group in pools.items() if name != without for p in group]


def _ndcg(pools: Sequence[Pool], parts: Parts) -> float:
    values = [ndcg_at_k(served(p, parts), p.judgments) for p in pools if not p.query.off_topic]
    return float(np.mean(values)) if values else 0.0


def _log_loss(model: LogisticModel, pools: Sequence[Pool]) -> float:
    rows = [(model.probabilities(p.table)[:SCORE_DEPTH], (p.grades[:SCORE_DEPTH] > 0)) for p in pools if p.chunk_ids]
    p = np.clip(np.concatenate([r[0] for r in rows]), 1e-6, 1 - 1e-6)
    y = np.concatenate([r[1] for r in rows])
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
