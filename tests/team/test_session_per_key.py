"""In team mode a session is the caller's API key: what one key looked up never shows up for another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
RESOLVED = {"method": "resources/read", "params": {"uri": "docs-mcp://session/resolved-libraries"}}


def _call(url: str, key: str, message: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(
        f"{url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, **message},
        headers={**MCP_HEADERS, "Authorization": f"Bearer {key}"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()["result"]


def _resolved(url: str, key: str) -> list[str]:
    text = _call(url, key, RESOLVED)["contents"][0]["text"]
    return [library["id"] for library in json.loads(text)["libraries"]]


def test_resolved_libraries_belong_to_the_key_that_looked_them_up(index_dir: Path, servers, new_key) -> None:
    alice, bob = new_key(index_dir, "alice"), new_key(index_dir, "bob")
    server = servers.start(index_dir)
    info = _call(
        server.url,
        alice,
        {"method": "tools/call", "params": {"name": "get_library_info", "arguments": {"library_id": "local/guides"}}},
    )
    assert info["isError"] is False
    assert _resolved(server.url, alice) == ["local/guides"]
    assert _resolved(server.url, bob) == []  # bob's session is his own


def test_with_redis_a_session_is_shared_by_every_replica_and_expires(
    index_dir: Path, servers, new_key, own_redis
) -> None:
    alice, bob = new_key(index_dir, "alice"), new_key(index_dir, "bob")
    first = servers.start(index_dir, "--redis-url", own_redis.url)
    second = servers.start(index_dir, "--redis-url", own_redis.url)
    info = _call(
        first.url,
        alice,
        {"method": "tools/call", "params": {"name": "get_library_info", "arguments": {"library_id": "local/guides"}}},
    )
    assert info["isError"] is False
    assert _resolved(second.url, alice) == ["local/guides"]  # looked up on one replica, remembered on the other
    assert _resolved(second.url, bob) == []

    import redis

    client = redis.Redis.from_url(own_redis.url)
    keys = sorted(key.decode() for key in client.keys("docs-mcp:session:*"))
    assert keys and all(key.startswith("docs-mcp:session:") for key in keys)
    assert all(0 < client.ttl(key) <= 3600 for key in keys)  # the idle timeout of today, kept by Redis
    client.close()
