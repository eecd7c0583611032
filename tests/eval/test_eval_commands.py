"""`docs-mcp eval` as a user runs it: through the root CLI entry point, exit codes included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SKYLINE = Path(__file__).parent / "fixtures" / "skyline"

CASES = str(SKYLINE / "cases.json")


@pytest.fixture
def failing_golden(tmp_path):
    """One query whose only relevant chunk is unrelated to it, so NDCG stays below 1."""
    path = tmp_path / "hard.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "hard",
                "query": "SkylineClient connection pool",
                "relevant": [{"chunk_id": "guides/units.md", "grade": 2}],
            }
        )
        + "\n"
    )
    return path


def test_eval_prints_the_table(run_cli, skyline_index):
    code, out, _ = run_cli("eval", CASES, "--index", str(skyline_index), "--mode", "bm25")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("mode bm25 · k 5 · in-process · index ")
    assert lines[1].split() == ["category", "queries", "NDCG@5", "MRR@5", "hit@5", "recall@5", "NDCG@5", "95%", "CI"]
    assert [line.split()[0] for line in lines[2:6]] == ["intent", "lexical", "paraphrased", "overall"]
    assert lines[6].startswith("search p50 ")


def test_min_ndcg_gate_fails_with_status_one(run_cli, skyline_index, failing_golden):
    code, out, err = run_cli("eval", str(failing_golden), "--index", str(skyline_index), "--min-ndcg", "1.0")
    assert code == 1
    assert "overall" in out  # the table is printed before the verdict
    assert "error: NDCG@5 " in err and "is below --min-ndcg 1.0000." in err
    assert "hint: A ranking or chunking change lost quality" in err


def test_min_ndcg_gate_passes(run_cli, skyline_index, failing_golden):
    code, _, err = run_cli("eval", str(failing_golden), "--index", str(skyline_index), "--min-ndcg", "0")
    assert code == 0
    assert "gate passed" in err


def test_json_then_baseline_prints_deltas(run_cli, skyline_index, tmp_path):
    before = tmp_path / "before.json"
    code, _, _ = run_cli("eval", CASES, "--index", str(skyline_index), "--mode", "bm25", "--json", str(before))
    assert code == 0
    report = json.loads(before.read_text())
    assert report["k"] == 5 and list(report["runs"]) == ["bm25"]
    assert [q["id"] for q in report["runs"]["bm25"]["queries"]] == [
        "python client setup",
        "throttled by the api",
        "webhook signature",
        "python timeouts",
        "rust timeouts",
    ]
    assert all(q["ranked"] for q in report["runs"]["bm25"]["queries"])

    code, out, _ = run_cli("eval", CASES, "--index", str(skyline_index), "--mode", "bm25", "--baseline", str(before))
    assert code == 0
    overall = next(line for line in out.splitlines() if line.startswith("overall"))
    assert overall.count("(+0.000)") == 4  # same index, same ranking: no change
    assert "no query changed NDCG against the baseline" in out


def test_compare_and_html_report(run_cli, skyline_index, tmp_path):
    page = tmp_path / "report.html"
    code, out, _ = run_cli("eval", CASES, "--index", str(skyline_index), "--compare", "--report", str(page))
    assert code == 0
    assert out.splitlines()[2].split() == ["NDCG@5", "hybrid", "fusion", "bm25", "vector"]
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 4
    assert "SkylineClient setup" in html


def test_compare_skips_vector_on_a_text_only_index(run_cli, skyline_text_index):
    code, out, err = run_cli("eval", CASES, "--index", str(skyline_text_index), "--compare")
    assert code == 0
    assert "skipping mode vector: The index at" in err
    assert out.splitlines()[2].split() == ["NDCG@5", "hybrid", "fusion", "bm25"]


def test_bad_inputs_exit_with_a_message_not_a_traceback(run_cli, skyline_index, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    code, _, err = run_cli("eval", str(bad), "--index", str(skyline_index))
    assert code == 1 and "bad.jsonl, line 1: no relevant entry" in err and "Traceback" not in err
    code, _, err = run_cli("eval", CASES, "--index", str(tmp_path / "nowhere"))
    assert code != 0 and "error: " in err and "Traceback" not in err
    code, _, err = run_cli("eval", CASES, "--index", str(skyline_index), "--baseline", str(bad))
    assert code == 1 and "is not a version-1 eval report" in err


def test_eval_with_int8_queries_says_so_and_a_bad_precision_stops_it_first(
    run_cli, skyline_index, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the int8 graph is saved there, not in the user's
    monkeypatch.setenv("DOCS_MCP_QUERY_PRECISION", "int8")
    report = tmp_path / "int8.json"
    code, out, _ = run_cli("eval", CASES, "--index", str(skyline_index), "--json", str(report))
    assert code == 0 and out.startswith("mode hybrid · queries int8 · k 5 · in-process · index ")
    assert json.loads(report.read_text())["runs"]["hybrid"]["query_precision"] == "int8"
    monkeypatch.setenv("DOCS_MCP_QUERY_PRECISION", "bf16")
    code, out, err = run_cli("eval", CASES, "--index", str(skyline_index), "--mode", "bm25")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "error: DOCS_MCP_QUERY_PRECISION is 'bf16', which is not a query precision.",
        "hint: Set it to float32 or int8, or unset it for float32.",
    ]


@pytest.mark.parametrize("sizes", ["1k,2", "0,5", ","])
def test_bench_rejects_bad_sizes(run_cli, sizes):
    code, _, err = run_cli("bench", "--sizes", sizes)
    assert code == 2
    assert "is not a comma-separated list of positive integers" in err and "hint: Example: --sizes 1000,10000" in err
