"""bench-serve times real `docs-mcp serve` processes over MCP stdio: starts, searches, memory, and its own build."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.eval.bench_serve import (
    OURS_BM25,
    OURS_HYBRID,
    ServeBench,
    ServePlan,
    _Server,
    _servers,
    _warm_searches,
    corpus_queries,
    our_server_command,
    render_serve_bench,
    run_serve_bench,
)
from docs_mcp.eval.errors import EvalRunError
from docs_mcp.indexer import build_index
from docs_mcp.indexer.errors import ModelLoadError

SKYLINE = Path(__file__).parent / "fixtures" / "skyline"


def test_both_of_our_modes_are_timed_over_stdio_from_a_build_of_the_corpus(tmp_path: Path) -> None:
    bench = run_serve_bench(ServePlan(docs=SKYLINE / "docs", queries=10, starts=2), tmp_path / "work")
    assert [figures.label for figures in bench.servers] == [OURS_HYBRID, OURS_BM25]
    for figures in bench.servers:
        assert len(figures.starts_s) == 2 and all(start > 0 for start in figures.starts_s)
        assert 0 < figures.start_cpu_p50_s  # the process's CPU from spawn to its first answer (the load moves it less)
        assert 0 < figures.search_p50_ms <= figures.search_p95_ms
        assert figures.peak_rss_mb > 50 and figures.cpu_ms_per_search > 0
        assert figures.first_answer_identical  # a fresh server answers its first search as a warm one does
    (build,) = bench.builds
    assert build.seconds > 0 and set(build.live_after) >= {"full-text"}
    assert bench.queries == 10 and set(bench.load) == {"start", "after starts", "end"}
    table = render_serve_bench(bench)
    assert OURS_HYBRID in table and "spawn to 1st search s" in table and "its CPU s" in table


def test_the_queries_are_distinct_and_the_same_for_a_seed() -> None:
    first = corpus_queries(SKYLINE / "docs", None, 20, seed=3)
    assert len(first) == len(set(first)) == 20
    assert corpus_queries(SKYLINE / "docs", None, 20, seed=3) == first


def test_a_reference_checkout_that_is_not_built_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(EvalRunError) as refused:
        run_serve_bench(ServePlan(docs=SKYLINE / "docs", reference=tmp_path), tmp_path / "work")
    assert "packages/server/dist/bin.js" in str(refused.value)


def test_a_bad_query_precision_is_refused_before_anything_runs_and_int8_queries_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCS_MCP_QUERY_PRECISION", "int4")  # our servers would inherit it and fail every search
    with pytest.raises(ModelLoadError, match="DOCS_MCP_QUERY_PRECISION is 'int4'"):
        run_serve_bench(ServePlan(docs=SKYLINE / "docs", reference=tmp_path), tmp_path / "work")
    int8 = ServeBench("docs", "today", "this machine", 0, {"start": 1.0}, 10, (), query_precision="int8")
    assert (
        render_serve_bench(int8).splitlines()[0]
        == "docs: 10 distinct queries over MCP stdio; today; this machine; queries int8"
    )


def test_our_servers_may_write_the_bytecode_cache_when_the_shell_forbids_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started from a clone without its bytecode cache compiles every module at each start: not a user's."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("DOCS_MCP_BENCH_MARK", "kept")
    servers = _servers(ServePlan(docs=SKYLINE / "docs"), tmp_path / "index", None)
    for label in (OURS_HYBRID, OURS_BM25):
        env = servers[label].env
        assert env is not None and "PYTHONDONTWRITEBYTECODE" not in env and env["DOCS_MCP_BENCH_MARK"] == "kept"


def test_a_server_that_answers_a_search_with_an_error_fails_the_benchmark(tmp_path: Path) -> None:
    """Timing tool errors would report a fast failure as a fast search (a server refusing its index's model)."""
    build_index(SKYLINE / "docs", tmp_path / "index", embeddings="none")
    vector_only = (*our_server_command(), "serve", "--index", str(tmp_path / "index"), "--mode", "vector")
    with pytest.raises(EvalRunError) as failed:
        _warm_searches({"vector search of a text-only index": _Server(vector_only)}, ["rust client"] * 12, tmp_path)
    assert "vector search of a text-only index answered the search 'rust client' with an error" in str(failed.value)
    assert "has no vectors" in str(failed.value) and "--work-dir" in (failed.value.hint or "")
