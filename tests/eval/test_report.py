"""Rendering eval results: terminal tables, JSON, baseline deltas and the HTML page (pure, no index)."""

from __future__ import annotations

from html.parser import HTMLParser

import orjson
import pytest

from docs_mcp.eval.errors import BaselineError
from docs_mcp.eval.golden import GoldenQuery, RelevantEntry
from docs_mcp.eval.html_report import render_html
from docs_mcp.eval.metrics import Judgment, score_query
from docs_mcp.eval.report import baseline_run, load_baseline, render_compare, render_run, report_dict, write_json
from docs_mcp.eval.runner import EvalResult, QueryResult

QUERIES = (
    GoldenQuery(
        "k1", "RateLimitError", (RelevantEntry(chunk_id="errors.md#rate-limits", grade=2),), category="keyword"
    ),
    GoldenQuery(
        "n1",
        "how do I page <results>?",
        (RelevantEntry(filepath="paging.md", heading=None, grade=2),),
        {"language": "go"},
        "natural",
    ),
    GoldenQuery(
        "n2",
        "retry later",
        (RelevantEntry(chunk_id="retries.md#backoff"), RelevantEntry(chunk_id="errors.md#rate-limits", grade=2)),
        category="natural",
    ),
)
JUDGMENTS = (
    (Judgment(frozenset({"errors.md#rate-limits"}), 2.0),),
    (Judgment(frozenset({"paging.md#_preamble", "paging.md#cursor"}), 2.0),),
    (Judgment(frozenset({"retries.md#backoff"}), 1.0), Judgment(frozenset({"errors.md#rate-limits"}), 2.0)),
)


def run(mode: str, rankings: list[list[str]], search_ms: float = 2.0) -> EvalResult:
    results = tuple(
        QueryResult(
            q, j, tuple(r), score_query(r, j, 5), (search_ms, search_ms * 2), 0.5, None if r else "search_docs: boom"
        )
        for q, j, r in zip(QUERIES, JUDGMENTS, rankings)
    )
    return EvalResult(mode, 5, "/tmp/index", "gen-1", "in-process", True, results)


HYBRID = run(
    "hybrid",
    [["errors.md#rate-limits", "x.md"], ["x.md", "paging.md#cursor"], ["retries.md#backoff", "errors.md#rate-limits"]],
)
BM25 = run("bm25", [["errors.md#rate-limits"], ["x.md", "y.md"], []], search_ms=1.0)


def test_single_run_table(snapshot):
    assert render_run(HYBRID) == snapshot


def test_compare_table(snapshot):
    assert render_compare([HYBRID, BM25]) == snapshot


def test_json_report_holds_every_figure_and_ranked_ids(snapshot):
    report = report_dict([HYBRID, BM25], "golden.jsonl")
    assert list(report["runs"]) == ["hybrid", "bm25"]
    assert report["runs"]["hybrid"]["queries"][1]["ranked"] == ["x.md", "paging.md#cursor"]
    assert report == snapshot


def test_baseline_deltas_and_changed_queries(tmp_path, snapshot):
    path = tmp_path / "before.json"
    write_json(report_dict([BM25], "golden.jsonl"), path)
    baseline = load_baseline(path)
    text = render_run(HYBRID, baseline_run(baseline, "hybrid"))  # a one-run baseline matches any mode
    assert "overall" in text and "(+" in text
    assert text == snapshot


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "is not JSON"),
        (b'{"version": 1, "runs": {}}', "is not a version-1 eval report"),
        (b"[]", "is not a version-1 eval report"),
        (b'{"version": 1, "runs": {"hybrid": {"overall": "x"}}}', "run 'hybrid': `overall` is not an object"),
        (b'{"version": 1, "runs": {"hybrid": 3}}', "run 'hybrid': not a JSON object"),
        (
            b'{"version": 1, "runs": {"bm25": {"categories": {"natural": []}}}}',
            "run 'bm25': a category is not an object",
        ),
        (
            b'{"version": 1, "runs": {"bm25": {"overall": {"ndcg": "0.5"}}}}',
            "run 'bm25': a metric or latency is not a number",
        ),
        (
            b'{"version": 1, "runs": {"bm25": {"latency_ms": {"search_p50": null}}}}',
            "run 'bm25': a metric or latency is not a number",
        ),
        (b'{"version": 1, "runs": {"bm25": {"queries": {}}}}', "run 'bm25': `queries` is not a list"),
        (
            b'{"version": 1, "runs": {"bm25": {"queries": [{"ndcg": 1}]}}}',
            "run 'bm25': a query is not an object with a string `id`",
        ),
    ],
)
def test_a_bad_baseline_says_what_to_pass(tmp_path, content, reason):
    path = tmp_path / "b.json"
    path.write_bytes(content)
    with pytest.raises(BaselineError) as caught:
        load_baseline(path)
    assert reason in caught.value.message
    assert "docs-mcp eval ... --json FILE" in caught.value.hint


def test_a_missing_baseline(tmp_path):
    with pytest.raises(BaselineError, match="cannot be read"):
        load_baseline(tmp_path / "absent.json")


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [value for name, value in attrs if name in ("src", "href") and value]


def test_html_report_is_self_contained_with_a_chart_per_metric(snapshot):
    page = render_html([HYBRID, BM25], "golden.jsonl")
    parser = _Collector()
    parser.feed(page)
    assert parser.links == []  # no external stylesheet, script or image
    assert "script" not in parser.tags
    assert parser.tags.count("svg") == 4  # NDCG, MRR, hit, recall
    assert page.count("<details>") == len(QUERIES)
    assert "how do I page &lt;results&gt;?" in page and "<results>" not in page
    assert page == snapshot


def test_json_is_written_indented(tmp_path):
    path = tmp_path / "out.json"
    write_json({"version": 1, "runs": {}}, path)
    assert orjson.loads(path.read_bytes()) == {"version": 1, "runs": {}}
    assert path.read_text().endswith("\n")


def test_off_topic_queries_count_as_abstention_not_ndcg():
    off = [GoldenQuery(f"o{i}", "capital of France", (), category="off-topic") for i in range(4)]
    answered = [(q, (), ("x.md",) if q.qid == "o0" else ()) for q in off]
    extra = tuple(QueryResult(q, j, r, score_query(r, j, 5), (1.0,), None) for q, j, r in answered)
    result = EvalResult("hybrid", 5, "/tmp/index", "gen-1", "in-process", True, HYBRID.results + extra)
    assert result.abstention() == 0.75 and result.overall() == HYBRID.overall()
    assert "off-topic: 4 queries, 75.0% returned zero hits" in render_run(result)
    run_json = report_dict([result], "g.jsonl")["runs"]["hybrid"]
    assert run_json["off_topic"] == {"queries": 4, "zero_hits": 0.75} and run_json["overall"]["queries"] == 3
    low, high = run_json["overall"]["ndcg_ci95"]
    assert low <= run_json["overall"]["ndcg"] <= high
