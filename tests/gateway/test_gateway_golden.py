"""The tool-discovery golden set: at least 60 queries over the 80 tools of our eight upstreams, and
hybrid ranking beating BM25 alone by a clear margin (the same figures `docs-mcp eval --gateway` prints)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_mcp.eval.errors import GoldenResolveError
from docs_mcp.eval.gateway_eval import evaluate_gateway, gateway_for_eval, tool_judgments
from docs_mcp.eval.golden import load_golden
from docs_mcp.server.gateway import Gateway

GOLDEN = Path(__file__).resolve().parents[2] / "eval" / "golden" / "gateway.jsonl"


@pytest.fixture(scope="module")
def service(gateway_config: Path) -> Iterator[Gateway]:
    gateway = gateway_for_eval(gateway_config)
    yield gateway
    gateway.close()


def test_the_golden_set_is_large_enough_and_names_only_real_tools(service: Gateway) -> None:
    queries = load_golden(GOLDEN)
    tools = {tool.key for tool in service.catalog.tools()}
    assert len(queries) >= 60 and len(tools) >= 80 and len({key.split(":")[0] for key in tools}) == 8
    assert all(judged for query, judged in zip(queries, tool_judgments(queries, tools)) if not query.off_topic)
    assert sum(query.off_topic for query in queries) >= 8  # asks no tool has an answer for: relevance must read low
    with pytest.raises(GoldenResolveError, match="github:create_issue"):
        tool_judgments(queries, tools - {"github:create_issue"})


def test_hybrid_discovery_beats_bm25_by_a_clear_margin(service: Gateway) -> None:
    queries = load_golden(GOLDEN)
    hybrid = evaluate_gateway(queries, service, mode="hybrid").overall()
    bm25 = evaluate_gateway(queries, service, mode="bm25").overall()
    # Measured: hybrid 0.851, bm25 0.567 (corpus/guide/gateway.md); the margin, not the exact figure, is the claim.
    assert hybrid.ndcg >= bm25.ndcg + 0.15, (hybrid, bm25)
    assert hybrid.ndcg >= 0.75


def test_relevance_is_absolute_so_the_least_bad_tool_reads_low(service: Gateway) -> None:
    from docs_mcp.server.gateway.discovery import SearchRequest
    from docs_mcp.server.gateway.records import LOCAL_CALLER

    tools = service.available(LOCAL_CALLER)
    asked = ("create a github issue",)
    found = service.local.search(SearchRequest(asked, "", tools, 3)).results
    assert found[0].tool_key == "github:create_issue" and found[0].relevance > 0.5
    # Without a GitHub server the best remaining tool is a poor match, and its relevance says so (it used to read 1.0).
    without = service.local.search(SearchRequest(asked, "", tuple(t for t in tools if t.server != "github"), 3)).results
    assert without and without[0].relevance < 0.1
    assert [r.relevance for r in without] == sorted((r.relevance for r in without), reverse=True)
