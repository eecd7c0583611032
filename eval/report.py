"""Render eval results: terminal tables, the JSON report, and deltas against a baseline JSON.

Pure functions from EvalResult records to text or plain dicts; the HTML page is in html_report.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from docs_mcp.eval.bootstrap import Interval
from docs_mcp.eval.errors import BaselineError
from docs_mcp.eval.metrics import QueryScores
from docs_mcp.indexer.models.query_graph import FLOAT32

if TYPE_CHECKING:
    from docs_mcp.eval.runner import EvalResult, QueryResult

REPORT_VERSION = 1
METRICS = ("ndcg", "mrr", "hit", "recall")
LATENCIES = ("search_p50", "search_p95", "get_doc_p50")
LATENCY_LABELS = {"search_p50": "search p50", "search_p95": "search p95", "get_doc_p50": "get_doc p50"}
OVERALL = "overall"


def metric_label(metric: str, k: int) -> str:
    """The column title of a metric: NDCG@5, MRR@5, hit@5, recall@5."""
    return {"ndcg": "NDCG", "mrr": "MRR", "hit": "hit", "recall": "recall"}[metric] + f"@{k}"


def _scores_dict(count: int, scores: QueryScores, interval: Interval) -> dict[str, Any]:
    return {
        "queries": count,
        **{m: round(getattr(scores, m), 6) for m in METRICS},
        "ndcg_ci95": [round(interval.low, 6), round(interval.high, 6)],
    }


def _query_dict(result: QueryResult) -> dict[str, Any]:
    q = result.query
    return {
        "id": q.qid,
        "query": q.query,
        "category": q.category,
        "filters": dict(q.filters),
        "limit": q.limit,
        "max_rounds": q.max_rounds,
        **{m: round(getattr(result.scores, m), 6) for m in METRICS},
        "ranked": list(result.ranked),
        "relevant": [
            {"entry": entry.describe(), "grade": entry.grade, "chunk_ids": sorted(judgment.ids)}
            for entry, judgment in zip(q.relevant, result.judgments)
        ],
        "search_ms": [round(ms, 3) for ms in result.search_ms],
        "get_doc_ms": None if result.get_doc_ms is None else round(result.get_doc_ms, 3),
        "error": result.error,
    }


def run_dict(result: EvalResult) -> dict[str, Any]:
    """Everything about one mode's run, as plain JSON-able data."""
    return {
        "mode": result.mode,
        "expansions": result.expansions,
        "query_precision": result.query_precision,
        "has_vectors": result.has_vectors,
        OVERALL: _scores_dict(len(result.on_topic), result.overall(), result.ndcg_interval()),
        "categories": {
            name: _scores_dict(n, s, result.ndcg_interval(name)) for name, (n, s) in result.by_category().items()
        },
        "off_topic": _off_topic_dict(result),
        "latency_ms": {key: round(value, 3) for key, value in result.latency().items()},
        "queries": [_query_dict(r) for r in result.results],
    }


def _off_topic_dict(result: EvalResult) -> dict[str, Any] | None:
    rate = result.abstention()
    return None if rate is None else {"queries": len(result.off_topic), "zero_hits": round(rate, 6)}


def report_dict(results: Sequence[EvalResult], golden: str) -> dict[str, Any]:
    """The --json report: settings, then one run per mode."""
    first = results[0]
    return {
        "version": REPORT_VERSION,
        "golden": golden,
        "index": first.index_dir,
        "generation": first.generation,
        "k": first.k,
        "transport": first.transport,
        "runs": {str(r.mode): run_dict(r) for r in results},  # orjson takes keys of the exact str type, not a Mode
    }


def write_json(report: Mapping[str, Any], path: Path) -> None:
    """Write the JSON report, indented, keys in a stable order."""
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")


def load_baseline(path: Path) -> dict[str, Any]:
    """Read an earlier --json report.

    Raises:
        BaselineError: the file cannot be read or is not such a report.
    """
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as error:
        raise BaselineError(str(path), f"cannot be read ({error.strerror or error})") from None
    except orjson.JSONDecodeError as error:
        raise BaselineError(str(path), f"is not JSON ({error})") from None
    if (
        not isinstance(data, dict)
        or data.get("version") != REPORT_VERSION
        or not isinstance(data.get("runs"), dict)
        or not data["runs"]
    ):
        raise BaselineError(str(path), f"is not a version-{REPORT_VERSION} eval report (no `runs`)")
    for mode, run in data["runs"].items():
        problem = _run_problem(run)
        if problem:
            raise BaselineError(str(path), f"run {mode!r}: {problem}")
    return data


def _run_problem(run: Any) -> str | None:
    """What in a baseline run does not have the shape run_dict writes (None: it is fine to compare against)."""
    if not isinstance(run, dict):
        return "not a JSON object"
    for key, kind, name in (
        (OVERALL, dict, "an object"),
        ("categories", dict, "an object"),
        ("latency_ms", dict, "an object"),
        ("queries", list, "a list"),
    ):
        if key in run and not isinstance(run[key], kind):
            return f"`{key}` is not {name}"
    scores = [run.get(OVERALL, {}), *run.get("categories", {}).values()]
    if not all(isinstance(s, dict) for s in scores):
        return "a category is not an object"
    figures = [s[m] for s in scores for m in METRICS if m in s] + list(run.get("latency_ms", {}).values())
    if not all(_is_number(value) for value in figures):
        return "a metric or latency is not a number"
    if not all(isinstance(q, dict) and isinstance(q.get("id"), str) for q in run.get("queries", [])):
        return "a query is not an object with a string `id`"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def baseline_run(baseline: Mapping[str, Any], mode: str) -> Mapping[str, Any]:
    """The baseline's run of ``mode``, or its only run when it has a single one."""
    runs = baseline["runs"]
    if mode in runs:
        return runs[mode]
    return next(iter(runs.values())) if len(runs) == 1 else {}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        cells = [str(row[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


def _delta(value: float, before: float, places: int) -> str:
    # Rounded first, and -0.0 folded into 0.0: the baseline JSON keeps 6 decimals, not every bit.
    return f"{round(value - before, places) + 0.0:+.{places}f}"


def _cell(value: float, before: Any) -> str:
    if isinstance(before, (int, float)):
        return f"{value:.3f} ({_delta(value, before, 3)})"
    return f"{value:.3f}"


def render_run(result: EvalResult, baseline: Mapping[str, Any] | None = None) -> str:
    """The terminal table of one run: metrics per category and overall, latencies, failures.

    With ``baseline`` (a run from an earlier --json report) each value carries its delta.
    """
    old = baseline or {}
    rows = []
    for name, (count, scores) in [*result.by_category().items(), (OVERALL, (len(result.on_topic), result.overall()))]:
        before = old.get(OVERALL, {}) if name == OVERALL else old.get("categories", {}).get(name, {})
        interval = result.ndcg_interval(None if name == OVERALL else name)
        rows.append(
            [
                name,
                str(count),
                *(_cell(getattr(scores, m), before.get(m)) for m in METRICS),
                f"[{interval.low:.3f}, {interval.high:.3f}]",
            ]
        )
    header = ["category", "queries", *(metric_label(m, result.k) for m in METRICS), f"NDCG@{result.k} 95% CI"]
    latency = result.latency()
    old_latency = old.get("latency_ms", {})
    timing = "  ".join(
        f"{LATENCY_LABELS[key]} {latency[key]:.1f} ms"
        + (f" ({_delta(latency[key], old_latency[key], 1)})" if key in old_latency else "")
        for key in LATENCIES
    )
    parts = [_title(result), _table(header, rows), _abstention(result), timing]
    if baseline:
        parts.append(_query_changes(result, baseline))
    parts.append(_failures(result))
    return "\n".join(p for p in parts if p) + "\n"


def _abstention(result: EvalResult) -> str:
    rate = result.abstention()
    if rate is None:
        return ""
    return f"off-topic: {len(result.off_topic)} queries, {rate:.1%} returned zero hits"


def _title(result: EvalResult) -> str:
    vectors = "" if result.has_vectors else " (index has no vectors: hybrid = full-text only)"
    settings = "" if result.expansions == "none" else f" · expansions {result.expansions}"
    if result.query_precision != FLOAT32:
        settings += f" · queries {result.query_precision}"
    return f"mode {result.mode}{vectors}{settings} · k {result.k} · {result.transport} · index {result.index_dir} ({result.generation})"


def _query_changes(result: EvalResult, baseline: Mapping[str, Any], shown: int = 5) -> str:
    before = {q["id"]: q.get("ndcg") for q in baseline.get("queries", []) if isinstance(q, dict)}
    changes = []
    for r in result.results:
        was = before.get(r.query.qid)
        if isinstance(was, (int, float)):
            changes.append((r.scores.ndcg - was, r.query.qid, was, r.scores.ndcg))
    moved = [c for c in changes if abs(c[0]) >= 0.0005]
    if not moved:
        return "no query changed NDCG against the baseline"
    worst = sorted(moved)[:shown]
    best = sorted(moved, reverse=True)[:shown]
    lines = [f"{len(moved)} queries changed NDCG against the baseline"]
    lines += [f"  down {qid}: {a:.3f} -> {b:.3f}" for d, qid, a, b in worst if d < 0]
    lines += [f"  up   {qid}: {a:.3f} -> {b:.3f}" for d, qid, a, b in best if d > 0]
    return "\n".join(lines)


def _failures(result: EvalResult) -> str:
    failed = [r for r in result.results if r.error]
    if not failed:
        return ""
    return "\n".join(
        [f"{len(failed)} quer{'y' if len(failed) == 1 else 'ies'} reported errors:"]
        + [f"  {r.query.qid}: {r.error}" for r in failed]
    )


def render_compare(results: Sequence[EvalResult]) -> str:
    """One block per metric with the modes side by side, then the latencies of each mode."""
    modes = [r.mode for r in results]
    k = results[0].k
    categories = list(results[0].by_category())
    blocks = [f"k {k} · {results[0].transport} · index {results[0].index_dir} ({results[0].generation})"]
    for metric in METRICS:
        rows = []
        for name in [*categories, OVERALL]:
            values = [r.overall() if name == OVERALL else r.by_category()[name][1] for r in results]
            rows.append([name, *(f"{getattr(v, metric):.3f}" for v in values)])
        blocks.append(_table([metric_label(metric, k), *modes], rows))
    latency_rows = [[LATENCY_LABELS[key] + " ms", *(f"{r.latency()[key]:.1f}" for r in results)] for key in LATENCIES]
    blocks.append(_table(["latency", *modes], latency_rows))
    if any(r.abstention() is not None for r in results):
        rates = [r.abstention() for r in results]
        blocks.append(
            _table(
                ["off-topic", *modes], [["zero hits", *(f"{rate:.1%}" if rate is not None else "-" for rate in rates)]]
            )
        )
    blocks.extend(f for f in (_failures(r) for r in results) if f)
    return "\n\n".join(blocks) + "\n"
