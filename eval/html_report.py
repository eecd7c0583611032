"""Render eval results as one self-contained HTML page: inline CSS, inline SVG charts, no scripts.

The page has a summary table per mode, a bar chart per metric (categories on the x axis,
one bar per mode), and every query with what was expected and what came back.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from importlib.resources import files
from string import Template
from typing import TYPE_CHECKING

from docs_mcp.eval.report import LATENCIES, LATENCY_LABELS, METRICS, OVERALL, metric_label

if TYPE_CHECKING:
    from docs_mcp.eval.runner import EvalResult, QueryResult

COLORS = ("#0969da", "#bf8700", "#8250df", "#1a7f37")
_BAR, _GAP, _HEIGHT, _TOP, _BOTTOM, _LEFT = 14, 18, 150, 12, 46, 34


def render_html(results: Sequence[EvalResult], golden: str) -> str:
    """The whole page for the runs in ``results`` (one per mode) of the golden file ``golden``."""
    first = results[0]
    template = Template(files("docs_mcp.eval").joinpath("templates/report.html").read_text(encoding="utf-8"))
    return template.substitute(
        title=escape(f"docs-mcp eval: {golden}"),
        settings=escape(
            f"index {first.index_dir} (generation {first.generation}) · k {first.k} · {first.transport} · {len(first.results)} queries"
        ),
        summary=_summary(results),
        legend=" ".join(
            f'<span><i class="swatch" style="background:{_color(i)}"></i>{escape(r.mode)}</span>'
            for i, r in enumerate(results)
        ),
        charts="\n".join(_chart(results, metric) for metric in METRICS),
        queries=_queries(results),
    )


def _color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def _summary(results: Sequence[EvalResult]) -> str:
    k = results[0].k
    head = "".join(
        f"<th>{escape(h)}</th>"
        for h in ["mode", *(metric_label(m, k) for m in METRICS), *(f"{LATENCY_LABELS[key]} ms" for key in LATENCIES)]
    )
    rows = []
    for result in results:
        overall, latency = result.overall(), result.latency()
        cells = [f"{getattr(overall, m):.3f}" for m in METRICS] + [f"{latency[key]:.1f}" for key in LATENCIES]
        rows.append(f"<tr><td>{escape(result.mode)}</td>{''.join(f'<td>{c}</td>' for c in cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _chart(results: Sequence[EvalResult], metric: str) -> str:
    """A grouped bar chart of ``metric``: one group per category (and overall), one bar per mode."""
    groups = [*results[0].by_category(), OVERALL]
    group_width = _BAR * len(results) + _GAP
    width = _LEFT + group_width * len(groups)
    height = _TOP + _HEIGHT + _BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" font-size="10" font-family="system-ui, sans-serif">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _TOP + _HEIGHT * (1 - tick)
        parts.append(f'<line x1="{_LEFT}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d0d7de" stroke-width="1"/>')
        parts.append(f'<text x="{_LEFT - 4}" y="{y + 3:.1f}" text-anchor="end" fill="#59636e">{tick:.2f}</text>')
    for g, name in enumerate(groups):
        x0 = _LEFT + g * group_width + _GAP / 2
        for i, result in enumerate(results):
            scores = result.overall() if name == OVERALL else result.by_category()[name][1]
            value = getattr(scores, metric)
            bar_height = _HEIGHT * value
            x, y = x0 + i * _BAR, _TOP + _HEIGHT - bar_height
            label = escape(f"{result.mode} · {name}: {value:.3f}")
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{_BAR - 2}" height="{bar_height:.1f}" fill="{_color(i)}"><title>{label}</title></rect>'
            )
        center = x0 + _BAR * len(results) / 2
        parts.append(
            f'<text x="{center:.1f}" y="{_TOP + _HEIGHT + 12}" text-anchor="end" transform="rotate(-30 {center:.1f} {_TOP + _HEIGHT + 12})" fill="#1f2328">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return f"<figure><figcaption>{escape(metric_label(metric, results[0].k))}</figcaption>{''.join(parts)}</figure>"


def _queries(results: Sequence[EvalResult]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in ["id", "category", "query", *(f"NDCG {r.mode}" for r in results)])
    rows = []
    for position, first in enumerate(results[0].results):
        per_mode = [r.results[position] for r in results]
        shade = ' class="low"' if first.scores.ndcg < 0.5 else ""
        ndcgs = "".join(f"<td>{r.scores.ndcg:.3f}</td>" for r in per_mode)
        rows.append(
            f"<tr{shade}><td>{escape(first.query.qid)}</td><td>{escape(first.query.category)}</td>"
            f'<td class="query"><details><summary>{escape(first.query.query)}{_filters(first)}</summary>{_details(results, per_mode)}</details></td>{ndcgs}</tr>'
        )
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _filters(result: QueryResult) -> str:
    if not result.query.filters:
        return ""
    text = ", ".join(f"{key}={value}" for key, value in sorted(result.query.filters.items()))
    return f' <span class="filters">[{escape(text)}]</span>'


def _details(results: Sequence[EvalResult], per_mode: Sequence[QueryResult]) -> str:
    first = per_mode[0]
    expected = "".join(
        f"<li>grade {entry.grade:g}: <code>{escape(entry.describe())}</code>"
        + (f" → {len(judgment.ids)} chunks" if len(judgment.ids) > 1 else "")
        + "</li>"
        for entry, judgment in zip(first.query.relevant, first.judgments)
    )
    parts = [f"<p>Expected:</p><ol>{expected}</ol>"]
    for run, result in zip(results, per_mode):
        parts.append(f"<p>Returned by {escape(run.mode)}:</p>{_ranked(result, run.k)}")
        if result.error:
            parts.append(f'<p class="error">{escape(result.error)}</p>')
    return "".join(parts)


def _ranked(result: QueryResult, k: int) -> str:
    if not result.ranked:
        return '<p class="miss">no hits</p>'
    items = []
    for chunk_id in result.ranked[:k]:
        grades = [j.grade for j in result.judgments if chunk_id in j.ids]
        mark = f'<span class="hit">✓ {max(grades):g}</span> ' if grades else '<span class="miss">·</span> '
        items.append(f"<li>{mark}<code>{escape(chunk_id)}</code></li>")
    return f"<ol>{''.join(items)}</ol>"
