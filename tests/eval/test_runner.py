"""Golden queries end to end through the MCP tools: in-process against build_server, and over stdio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.eval.errors import EvalRunError, GoldenResolveError
from docs_mcp.eval.golden import GoldenQuery, RelevantEntry, load_golden
from docs_mcp.eval.runner import evaluate

SKYLINE = Path(__file__).parent / "fixtures" / "skyline"

CASES = SKYLINE / "cases.json"


@pytest.fixture(scope="module")
def in_process(skyline_index):
    return evaluate(CASES, skyline_index, k=5)


def test_the_reference_five_case_fixture_runs_end_to_end(in_process, skyline_index):
    assert [r.query.qid for r in in_process.results] == [
        "python client setup",
        "throttled by the api",
        "webhook signature",
        "python timeouts",
        "rust timeouts",
    ]
    assert (in_process.mode, in_process.transport, in_process.has_vectors, in_process.index_dir) == (
        "hybrid",
        "in-process",
        True,
        str(skyline_index),
    )
    for result in in_process.results:
        assert result.error is None
        assert 1 <= len(result.ranked) <= 5
        assert len(result.search_ms) == 1  # limit 5 fills k 5 in one round
        assert result.get_doc_ms is not None
        assert 0.0 <= result.scores.ndcg <= 1.0
    # 13 chunks and a top 5: each expected chunk is found.
    assert in_process.overall().hit == 1.0
    assert set(in_process.by_category()) == {"intent", "lexical", "paraphrased"}


def test_filters_reach_search_docs(in_process):
    python, rust = in_process.results[3], in_process.results[4]
    assert not any(cid.startswith("sdks/rust/") for cid in python.ranked)
    assert not any(cid.startswith("sdks/python/") for cid in rust.ranked)


def test_stdio_returns_the_same_rankings(in_process, skyline_index):
    over_stdio = evaluate(CASES, skyline_index, k=5, via_mcp=True)
    assert over_stdio.transport == "stdio"
    assert [r.ranked for r in over_stdio.results] == [r.ranked for r in in_process.results]


def test_our_golden_format_resolves_sections_files_and_preambles(skyline_index):
    result = evaluate(SKYLINE / "golden.jsonl", skyline_index, k=5, mode="bm25")
    judged = {r.query.qid: r.judgments for r in result.results}
    assert [sorted(j.ids) for j in judged["sky-1"]] == [["guides/webhooks.md#webhooks/verifying-signatures"]]
    assert len(judged["sky-2"][1].ids) == 3  # the whole python client page
    assert [sorted(j.ids) for j in judged["sky-4"]] == [
        ["guides/webhooks.md#webhooks/delivery-schedule"],
        ["guides/webhooks.md#_preamble"],
    ]
    assert result.results[0].scores.ndcg == 1.0  # an exact header name, full-text only


def test_pages_through_cursors_until_k_hits(skyline_index):
    query = GoldenQuery("paged", "client", (RelevantEntry(chunk_id="sdks/rust/client.md"),), limit=2, max_rounds=5)
    [result] = evaluate([query], skyline_index, k=5, mode="bm25").results
    assert len(result.search_ms) == 3  # pages of 2 until at least k = 5 hits
    assert len(result.ranked) == 6 == len(set(result.ranked))


def test_a_query_error_is_recorded_and_the_others_still_run(skyline_index):
    queries = [
        GoldenQuery("bad", "timeouts", (RelevantEntry(chunk_id="sdks/rust/client.md"),), {"language": "cobol"}),
        GoldenQuery("good", "timeouts", (RelevantEntry(chunk_id="sdks/rust/client.md"),)),
    ]
    bad, good = evaluate(queries, skyline_index, mode="bm25").results
    assert bad.error.startswith("search_docs: ") and "cobol" in bad.error
    assert bad.ranked == () and bad.scores.ndcg == 0.0
    assert good.error is None and good.ranked


def test_vector_mode_needs_vectors(skyline_text_index):
    with pytest.raises(EvalRunError) as caught:
        evaluate(CASES, skyline_text_index, mode="vector")
    assert "has no vectors" in caught.value.message and "--embeddings default" in caught.value.hint


def test_hybrid_on_a_text_only_index_says_so(skyline_text_index):
    result = evaluate(CASES, skyline_text_index, mode="hybrid")
    assert result.has_vectors is False


def test_an_unknown_mode(skyline_index):
    with pytest.raises(EvalRunError, match="Unknown mode 'dense'"):
        evaluate(CASES, skyline_index, mode="dense")


def test_a_golden_file_for_another_corpus_fails_before_running(skyline_index, tmp_path):
    path = tmp_path / "other.jsonl"
    path.write_text(
        json.dumps({"query": "a", "relevant": [{"filepath": "tutorial/cors.md", "heading": "CORS", "grade": 2}]}) + "\n"
    )
    with pytest.raises(GoldenResolveError, match="tutorial/cors.md § CORS: the file is not in the index"):
        evaluate(path, skyline_index)


def test_golden_queries_load_once_and_run_in_every_mode(skyline_index):
    queries = load_golden(CASES)
    modes = {mode: evaluate(queries, skyline_index, mode=mode) for mode in ("hybrid", "bm25", "vector")}
    assert all(len(run.results) == 5 for run in modes.values())
    assert {run.mode for run in modes.values()} == {"hybrid", "bm25", "vector"}
