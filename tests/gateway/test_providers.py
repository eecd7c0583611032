"""Search providers: the local engine over the catalog's own index generation, and the remote
``POST /catalog/search`` service (a loopback stub) falling back to the local engine on any failure."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from catalogs import CATALOGS, input_schema

from docs_mcp.server.gateway.catalog_index import CatalogIndex
from docs_mcp.server.gateway.discovery import (
    FallbackProvider,
    LocalProvider,
    RemoteProvider,
    SearchRequest,
    select_provider,
)
from docs_mcp.server.gateway.records import ToolEntry

TOOLS = tuple(
    ToolEntry(server, name, description, input_schema(params))
    for server, tools in CATALOGS.items()
    for name, description, params in tools
)


@dataclass(frozen=True)
class StaticCatalog:
    entries: tuple[ToolEntry, ...]

    def tools(self) -> tuple[ToolEntry, ...]:
        return self.entries


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> LocalProvider:
    index = CatalogIndex(tmp_path_factory.mktemp("catalog") / "index", embeddings="none")
    return LocalProvider(index, StaticCatalog(TOOLS), {}, mode="bm25")


class Stub:
    """A loopback /catalog/search service whose answer the test sets; it records what it was sent."""

    def __init__(self) -> None:
        self.status, self.body = 200, b"{}"
        self.received: list[dict[str, Any]] = []
        self.release = threading.Event()  # a "hang" answer waits for this (set when the test ends)
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                stub.received.append(
                    {"path": self.path, **json.loads(self.rfile.read(int(self.headers["Content-Length"])))}
                )
                if stub.status == 0:
                    stub.release.wait(30)
                    return
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(stub.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=30)


@pytest.fixture
def stub() -> Iterator[Stub]:
    service = Stub()
    yield service
    service.close()


def request(*keys: str, queries: tuple[str, ...] = ("send a chat message",), max_results: int = 5) -> SearchRequest:
    tools = tuple(t for t in TOOLS if not keys or t.key in keys)
    return SearchRequest(queries, "on-call hand-over", tools, max_results)


def test_the_local_provider_ranks_only_the_tools_it_is_given(local: LocalProvider) -> None:
    everything = local.search(request())
    assert everything.provider == "local" and everything.results[0].tool_key == "slack:send_direct_message"
    assert everything.results[0].relevance == 1.0 and "name matches send, message" in everything.results[0].explanation
    only = local.search(request("slack:post_message", "files:read_file"))
    assert [r.tool_key for r in only.results] == ["slack:post_message"]


def test_the_remote_provider_is_asked_first_and_cannot_widen_the_tool_list(stub: Stub, local: LocalProvider) -> None:
    stub.body = json.dumps(
        {
            "results": [
                {
                    "toolKey": "slack:post_message",
                    "toolName": "post_message",
                    "serverName": "slack",
                    "relevance": 1.7,
                    "explanation": "LLM pick",
                },
                {"toolKey": "github:delete_branch", "relevance": 0.9},  # not offered: dropped
            ]
        }
    ).encode()
    provider = select_provider(stub.url, 5.0, local)
    ranking = provider.search(request("slack:post_message", "slack:add_reaction"))
    assert (ranking.provider, ranking.fallback_reason) == ("remote", None)
    assert [(r.tool_key, r.relevance, r.explanation) for r in ranking.results] == [
        ("slack:post_message", 1.0, "LLM pick")
    ]
    sent = stub.received[0]
    assert sent["path"] == "/catalog/search" and sent["query"] == ["send a chat message"]
    assert sent["context"] == "on-call hand-over" and sent["maxResults"] == 5
    assert sent["tools"][0] == {
        "toolKey": "slack:post_message",
        "toolName": "post_message",
        "serverName": "slack",
        "description": "Post a message to a Slack channel, optionally in a thread.",
    }


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (500, b'{"error": "boom"}', "HTTPStatusError"),
        (200, b"<html>not json</html>", "JSONDecodeError"),
        (200, b'{"results": [{"toolKey": 3}]}', "ValueError: malformed result"),
        (0, b"", "TimeoutError: no answer within 0.5 s"),  # the service never answers within the timeout
    ],
)
def test_any_remote_failure_falls_back_to_the_local_engine(
    stub: Stub, local: LocalProvider, status: int, body: bytes, reason: str
) -> None:
    stub.status, stub.body = status, body
    ranking = FallbackProvider(RemoteProvider(stub.url, timeout=0.5), local).search(request())
    assert ranking.provider == "local" and reason in (ranking.fallback_reason or "")
    assert ranking.results == local.search(request()).results


def test_an_unreachable_service_falls_back_too(local: LocalProvider) -> None:
    stub = Stub()
    url = stub.url
    stub.close()  # nothing listens on the port any more
    ranking = select_provider(url, 5.0, local).search(request())
    assert ranking.provider == "local" and "ConnectError" in (ranking.fallback_reason or "")


def test_tool_discovery_falls_back_when_the_service_fails(stub: Stub, docs_index: Path, tmp_path: Path) -> None:
    import sys

    from gateway_upstreams import UPSTREAM_SERVER
    from mcp_session import serve_over_stdio

    config = tmp_path / "docs-mcp.toml"
    config.write_text(
        f'[gateway]\nsearch_url = "{stub.url}"\n\n[[upstream]]\nname = "slack"\ncommand = "{sys.executable}"\n'
        f'args = ["{UPSTREAM_SERVER}", "slack"]\n',
        encoding="utf-8",
    )
    stub.status, stub.body = 503, b"{}"
    with serve_over_stdio(docs_index, tmp_path / "serve.log", "--config", str(config)) as session:
        answer = session.json(
            "tool_discovery", {"query": ["send a chat message"], "context": "deploy", "max_results": 2}
        )
    assert answer["provider"] == "local" and "503" in answer["fallback_reason"]
    assert [r["tool_key"] for r in answer["results"]] == ["slack:send_direct_message", "slack:post_message"]
    assert stub.received[0]["context"] == "deploy" and len(stub.received[0]["tools"]) == 11
