"""The leave-one-corpus-out report of `docs-mcp train-ranking --loco`: tables and JSON."""

from __future__ import annotations

from typing import Any

from docs_mcp.eval.bootstrap import Interval
from docs_mcp.eval.loco import Figures, HeldOut, LocoReport

# The query styles of eval/devsets/, each a column (a corpus whose sets do not ask in one shows "-" there).
STYLE_ORDER = ("keyword/identifier", "natural", "paraphrase", "comparison", "troubleshooting")
STYLE_WIDTHS = (18, 7, 10, 10, 15)


def render_loco(report: LocoReport) -> str:
    """The report as text: per held-out corpus, the fusion against hybrid search (NDCG@5 with 95% intervals, per
    style, on-topic and off-topic zero hits, identifier lookups), then calibration and what ships."""
    lines = ["held-out corpus  ranking        NDCG@5 [95% CI]          " + "  ".join(STYLE_ORDER)
             + "  on-topic 0 hits  off-topic 0 hits  identifiers in top 5"]  # fmt: skip
    for held in report.held_out:
        rows = [("fusion", held.fusion), ("hybrid", held.hybrid), ("rules only", held.rules_only), ("rules + gate", held.with_gate),
                ("rules + order", held.with_ordering), ("rules + demote", held.with_demotion)]  # fmt: skip
        if not report.gated:
            del rows[3]
        for label, figures in rows:
            lines.append(_row(held.corpus, label, figures))
    lines.append("")
    lines.append("held-out corpus  scores               floor   Brier (top 10)  base rate's  skill   ECE     hits")
    for held in report.held_out:
        for label, c in (("calibrated", held.calibration), *held.fallbacks.items()):
            lines.append(
                f"{held.corpus:<16} {label:<20} {held.floor:<7.3f} {c.brier:<15.4f} {c.base_brier:<12.4f} {c.skill:<7.3f} {c.ece:<7.3f} {c.hits}"
            )
    if report.gated and report.held_out:
        lines.append("")
        lines.append(
            "abstention trade-off, the gate fitted on the other corpora: most on-topic zero hits in one set / off-topic held back"
        )
        lines.append("held-out corpus  " + "  ".join(f"{floor:>9}" for floor in report.held_out[0].tradeoff))
        for held in report.held_out:
            cells = (
                f"{lost}/{'-' if share is None else format(share, '.0%')}" for lost, share in held.tradeoff.values()
            )
            lines.append(f"{held.corpus:<16} " + "  ".join(f"{cell:>9}" for cell in cells))
        lines.extend(_gate_cases(report))
    lines.append("")
    lines.append(
        f"ordering ships: {'yes' if report.ordering_ships else 'no (it does not beat the fusion order on every held-out corpus)'}"
    )
    if not report.gated:
        lines.append("floor: none (tool discovery never holds a query back)")
    else:
        lines.append(
            f"floor ships: {'yes' if report.floor_ships else 'no (it loses on-topic answers or misses the off-topic target on a held-out corpus)'}"
        )
    return "\n".join(lines)


def _gate_cases(report: LocoReport) -> list[str]:
    """What the gate fitted on the other corpora gets wrong at its fold's floor, query by query: the off-topic
    questions it answers and the on-topic ones it holds back (rules + gate), to be read case by case."""
    lines = ["", "the gate's misses at each fold's floor (rules + gate): off-topic answered, on-topic held back"]
    for held in report.held_out:
        cases = [("off-topic answered", q) for q in held.with_gate.off_topic_answered]
        cases += [("on-topic held back", q) for q in held.with_gate.on_topic_withheld]
        lines.extend(f"{held.corpus:<16} floor {held.gate_floor:<5} {kind}: {query}" for kind, query in cases)
    return lines


def _row(corpus: str, label: str, f: Figures) -> str:
    styles = "  ".join(f"{_mean(f.by_style.get(style)):>{width}}" for style, width in zip(STYLE_ORDER, STYLE_WIDTHS))
    off = f"{f.off_topic_zero}/{f.off_topic}" if f.off_topic else "-"
    found, asked = f.identifier_hits
    return f"{corpus:<16} {label:<14} {str(f.ndcg):<24} {styles}  {f'{f.on_topic_zero}/{f.on_topic}':>15}  {off:>16}  {f'{found}/{asked}' if asked else '-':>20}"


def _mean(interval: Interval | None) -> str:
    return "-" if interval is None else f"{interval.mean:.3f}"


def loco_dict(report: LocoReport) -> dict[str, Any]:
    """Every figure of the report, for --json."""
    return {
        "ordering_ships": report.ordering_ships,
        "floor_ships": report.floor_ships,
        "held_out": [_held(h) for h in report.held_out],
        "record": report.record,
    }


def _held(held: HeldOut) -> dict[str, Any]:
    return {
        "corpus": held.corpus,
        "floor": held.floor,
        "gate_floor": held.gate_floor,
        "fusion": _figures(held.fusion),
        "hybrid": _figures(held.hybrid),
        "rules_only": _figures(held.rules_only),
        "with_gate": _figures(held.with_gate),
        "with_ordering": _figures(held.with_ordering),
        "with_demotion": _figures(held.with_demotion),
        "calibration": _calibration(held.calibration),
        "fallback_confidence": {label: _calibration(f) for label, f in held.fallbacks.items()},
        "abstention_tradeoff": {
            str(floor): {"most_on_topic_zero_hits_per_set": lost, "off_topic_held_back": share}
            for floor, (lost, share) in held.tradeoff.items()
        },
    }


def _calibration(c) -> dict[str, Any]:
    return {"brier": c.brier, "base_brier": c.base_brier, "skill": c.skill, "ece": c.ece, "hits": c.hits}


def _figures(f: Figures) -> dict[str, Any]:
    return {
        "ndcg@5": _interval(f.ndcg),
        "by_style": {style: _interval(i) for style, i in f.by_style.items()},
        "on_topic": f.on_topic,
        "on_topic_zero_hits": f.on_topic_zero,
        "on_topic_zero_hits_by_set": dict(f.zero_by_set),
        "off_topic": f.off_topic,
        "off_topic_zero_hits": f.off_topic_zero,
        "identifiers_in_top_5": list(f.identifier_hits),
        "off_topic_answered": list(f.off_topic_answered),
        "on_topic_zero_hits_queries": list(f.on_topic_withheld),
    }


def _interval(i: Interval) -> dict[str, float]:
    return {"mean": round(i.mean, 4), "low": round(i.low, 4), "high": round(i.high, 4)}
