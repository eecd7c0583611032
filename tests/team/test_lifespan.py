"""Stateless HTTP serves each request with a fresh MCP session, but the server's lifespan (the open
index, the model warm-up, closing DuckDB) belongs to the process: it runs once, not per request."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx

from docs_mcp.server.app import ServerSettings, build_server
from docs_mcp.server.team.http_transport import create_app
from docs_mcp.server.team.keys import KeyStore, KeyVerifier
from docs_mcp.server.team.ratelimit import MemoryLimiter
from docs_mcp.server.team.server_settings import load_settings

REQUESTS = 3


def _call(number: int) -> dict:
    arguments = {"query": "token", "limit": 1}
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": arguments},
    }


def test_the_lifespan_runs_once_per_process_not_per_request(index_dir: Path) -> None:
    settings = load_settings({"server.index": str(index_dir)})
    server = build_server(index_dir, ServerSettings(mode="bm25"))
    entered: list[int] = []
    lifespan = server.lifespan

    @asynccontextmanager
    async def counted(app):
        entered.append(1)
        async with lifespan(app) as state:
            yield state

    server.lifespan = counted
    _, key = KeyStore(settings.key_store).create("alice")
    app = create_app(server, settings, KeyVerifier(settings.key_store), MemoryLimiter())
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }

    async def serve() -> list[int]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
                answers = [await client.post("/mcp", json=_call(n), headers=headers) for n in range(REQUESTS)]
        assert all(a.status_code == 200 and not a.json()["result"]["isError"] for a in answers), [
            a.text for a in answers
        ]
        return entered

    assert anyio.run(serve) == [1]
