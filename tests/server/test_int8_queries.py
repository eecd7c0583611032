"""A server asked for int8 queries (DOCS_MCP_QUERY_PRECISION=int8) answers hybrid searches with the int8 query graph,
over a real MCP session; a value it does not know is the search's error, naming the values it does."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from corpus_files import write_corpus
from mcp_session import serve_over_stdio

from docs_mcp.indexer import build_index
from docs_mcp.indexer.models.onnx_wire import decode_model

CORPUS = {
    "retries.md": "# Retries\n\n## Backoff\n\nRetry a failed request after a delay that doubles each time.\n",
    "auth.md": "# Authentication\n\n## API keys\n\nSend the API key in the Authorization header of every request.\n",
    "limits.md": "# Rate limits\n\n## Quotas\n\nEach project may send a thousand requests a minute.\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("int8")
    build_index(write_corpus(root / "docs", CORPUS), root / "index")
    return root / "index"


def test_a_server_asked_for_int8_queries_embeds_them_with_the_int8_graph(index: Path, tmp_path: Path) -> None:
    env = {"DOCS_MCP_QUERY_PRECISION": "int8", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with serve_over_stdio(index, tmp_path / "server.log", "--mode", "hybrid", env=env) as session:
        hits = session.search(query="wait longer between attempts when a call fails")["hits"]
    assert hits[0]["heading"] == "Backoff"
    # What the server loaded: the int8 query graph only (documents are not embedded by a server).
    saved = list((tmp_path / "cache" / "docs-mcp" / "models").iterdir())
    assert len(saved) == 1
    graph, _ = decode_model(saved[0].read_bytes())
    assert Counter(node.op_type for node in graph.nodes)["DynamicQuantizeMatMul"] == 36


def test_an_unknown_query_precision_is_the_searchs_error_with_the_values_to_set(index: Path, tmp_path: Path) -> None:
    env = {"DOCS_MCP_QUERY_PRECISION": "fp16", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with serve_over_stdio(index, tmp_path / "server.log", "--mode", "hybrid", env=env) as session:
        message = session.error("search_docs", {"query": "retry a failed request"})
        assert session.alive()
    assert "DOCS_MCP_QUERY_PRECISION is 'fp16', which is not a query precision." in message
    assert "Set it to float32 or int8, or unset it for float32." in message
