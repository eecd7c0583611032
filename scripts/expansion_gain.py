"""What agent-written expansions gain, per development set and query style, with paired 95% intervals.

Each golden set is run three times through the MCP tools (in process, as `docs-mcp eval` does):
the query alone in search_docs, the query with its expansions appended (search_docs, plain
concatenation of the same words) and the query with its typed expansions (search_docs_expanded).
Gains are per-query differences of NDCG@5, bootstrapped (eval/bootstrap.py) over the queries of a
style; off-topic queries report the share that came back empty.

    python scripts/expansion_gain.py --sets /work/devidx   # the layout of the dev indexes
    python scripts/expansion_gain.py --set fastapi=eval/devsets/fastapi-tune.jsonl,eval/devsets/fastapi-heldout.jsonl:/idx/fastapi

Prints a markdown table (the one in corpus/guide/ranking.md) and, with --json, writes every figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docs_mcp.eval.bootstrap import bootstrap_mean
from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.runner import EvalResult, evaluate

REPO = Path(__file__).resolve().parents[1]
DEVSETS = REPO / "eval" / "devsets"
# Set name -> (golden files, index folder name under --sets): the development sets and their corpora.
SETS = {
    "fastapi": (("fastapi-tune.jsonl", "fastapi-heldout.jsonl"), "fastapi"),
    "powershell75": (("powershell-tune.jsonl", "powershell-heldout.jsonl"), "powershell75"),
    "dub": (("dub-report.jsonl",), "dub"),
    "opentelemetry": (("opentelemetry-report.jsonl",), "opentelemetry"),
    "bundled": ((str(REPO / "eval" / "golden" / "corpus.jsonl"),), "bundled"),
}
USES = ("none", "concatenated", "typed")
STYLES = ("keyword", "natural", "paraphrase")


def run_set(golden: list[Path], index: Path, mode: str) -> dict[str, EvalResult]:
    queries = tuple(query for path in golden for query in load_golden(path))
    return {use: evaluate(queries, index, mode=mode, expansions=use) for use in USES}


def per_query(results: dict[str, EvalResult]) -> dict[str, list[tuple[str, float]]]:
    """Each use's (style, NDCG@5) per on-topic query, in the golden files' order."""
    return {use: [(r.query.category, r.scores.ndcg) for r in result.on_topic] for use, result in results.items()}


def figures(
    results: dict[str, EvalResult], scored: dict[str, list[tuple[str, float]]] | None = None
) -> dict[str, dict[str, object]]:
    """Per style (and 'all'): each use's mean NDCG@5, and the paired gains with their intervals."""
    scored = scored or per_query(results)
    out: dict[str, dict[str, object]] = {}
    for style in (*STYLES, "all"):
        ndcg = {use: [value for category, value in rows if style in ("all", category)] for use, rows in scored.items()}
        if not ndcg["none"]:
            continue
        out[style] = {
            "queries": len(ndcg["none"]),
            **{use: round(sum(values) / len(values), 3) for use, values in ndcg.items()},
            "typed_vs_plain": str(bootstrap_mean([t - n for t, n in zip(ndcg["typed"], ndcg["none"])])),
            "typed_vs_concatenated": str(bootstrap_mean([t - c for t, c in zip(ndcg["typed"], ndcg["concatenated"])])),
            "concatenated_vs_plain": str(bootstrap_mean([c - n for c, n in zip(ndcg["concatenated"], ndcg["none"])])),
        }
    for use, result in results.items():
        off = result.off_topic
        out.setdefault("off-topic zero hits", {})[use] = [sum(1 for r in off if not r.ranked), len(off)]
        out.setdefault("on-topic zero hits", {})[use] = sum(1 for r in result.on_topic if not r.ranked)
        out.setdefault("search p50 ms", {})[use] = round(result.latency()["search_p50"], 1)
    return out


def markdown(all_figures: dict[str, dict[str, dict[str, object]]]) -> str:
    lines = [
        "| set | style | n | query alone | concatenated | typed | typed − alone [95%] | typed − concatenated [95%] |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for name, per_style in all_figures.items():
        for style in (*STYLES, "all"):
            row = per_style.get(style)
            if row:
                lines.append(
                    f"| {name} | {style} | {row['queries']} | {row['none']:.3f} | {row['concatenated']:.3f} | {row['typed']:.3f} "
                    f"| {row['typed_vs_plain']} | {row['typed_vs_concatenated']} |"
                )
    lines += [
        "",
        "| set | off-topic zero hits: alone / concatenated / typed | on-topic zero hits | search p50 (ms) |",
        "| --- | --- | --- | --- |",
    ]
    for name, per_style in all_figures.items():
        if "off-topic zero hits" not in per_style:
            continue
        off, on = per_style["off-topic zero hits"], per_style["on-topic zero hits"]
        shown = " / ".join(f"{off[use][0]}/{off[use][1]}" if off[use][1] else "–" for use in USES)
        latency = " / ".join(f"{per_style['search p50 ms'][use]:.0f}" for use in USES)
        lines.append(f"| {name} | {shown} | {' / '.join(str(on[use]) for use in USES)} | {latency} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sets",
        type=Path,
        help="Folder holding one index per development set (fastapi, powershell75, dub, opentelemetry, bundled).",
    )
    parser.add_argument("--set", action="append", default=[], help="NAME=GOLDEN[,GOLDEN...]:INDEX, instead of --sets.")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    plan: dict[str, tuple[list[Path], Path]] = {}
    for spec in options.set:
        name, _, rest = spec.partition("=")
        goldens, _, index = rest.rpartition(":")
        plan[name] = ([Path(g) for g in goldens.split(",")], Path(index))
    if options.sets:
        for name, (files, folder) in SETS.items():
            plan[name] = ([DEVSETS / f if "/" not in f else Path(f) for f in files], options.sets / folder)
    if not plan:
        parser.error("give --sets or --set")
    all_figures = {}
    pooled: dict[str, list[tuple[str, float]]] = {use: [] for use in USES}
    for name, (golden, index) in plan.items():
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results = run_set(golden, index, options.mode)
        all_figures[name] = figures(results)
        for use, rows in per_query(results).items():
            pooled[use].extend(rows)
    if len(plan) > 1:  # every set's queries together, paired as before
        all_figures["all sets"] = figures({}, pooled)
    print(markdown(all_figures))
    if options.json:
        options.json.write_text(json.dumps(all_figures, indent=2))


if __name__ == "__main__":
    main()
