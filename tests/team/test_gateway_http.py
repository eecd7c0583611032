"""The gateway in team mode: each key's project decides which upstream tools it finds and runs;
a key without a project gets nothing; the audit line names the key and its project."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_upstreams import http_upstream, write_gateway_config
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@pytest.fixture(scope="module")
def upstream_url() -> Iterator[str]:
    with http_upstream() as url:
        yield url


def calls(url: str, key: str, *requests: tuple[str, dict[str, Any]]) -> list[Any]:
    """Run tool calls in one SDK session over streamable HTTP with ``key``; results in order."""

    async def run() -> list[Any]:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
                return [await client.call_tool(name, arguments) for name, arguments in requests]

    return anyio.run(run)


def payload(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)


def test_projects_filter_discovery_and_execution(
    index_dir: Path, servers, new_key, upstream_url: str, tmp_path: Path
) -> None:
    config = write_gateway_config(tmp_path / "config", upstream_url)
    keys = {
        "alice": new_key(index_dir, "alice", "--project", "backend"),
        "carol": new_key(index_dir, "carol", "--project", "support"),
        "dave": new_key(index_dir, "dave"),
    }
    server = servers.start(index_dir, "--config", str(config))
    find_all = (
        "tool_discovery",
        {"query": ["create or list things", "send a message", "run a query", "fetch or delete"], "max_results": 50},
    )

    alice, alice_runs, alice_denied, alice_hidden = calls(
        server.url,
        keys["alice"],
        find_all,
        ("tool_execute", {"tool_key": "postgres:query", "arguments": {"sql": "SELECT 1"}}),
        ("tool_execute", {"tool_key": "github:delete_branch", "arguments": {"branch": "old"}}),
        ("describe_tool", {"tool_key": "slack:post_message"}),
    )
    assert not alice.is_error, alice.content[0].text
    found = {r["tool_key"] for r in payload(alice)["results"]}
    assert found and all(
        k.startswith("github:")
        or k
        in {
            "postgres:query",
            "postgres:list_tables",
            "postgres:list_indexes",
            "postgres:list_schemas",
            "browser:fetch_url",
        }
        for k in found
    )
    assert "github:create_issue" in found and "github:delete_branch" not in found  # deny beats allow
    assert not alice_runs.is_error and json.loads(alice_runs.content[0].text)["tool"] == "query"
    # A forbidden tool looks exactly like one that does not exist: nothing tells it is there.
    assert payload(alice_denied)["code"] == "NOT_FOUND" and payload(alice_hidden)["code"] == "NOT_FOUND"

    carol, carol_status = calls(server.url, keys["carol"], find_all, ("upstream_status", {}))
    assert {r["tool_key"].split(":")[0] for r in payload(carol)["results"]} == {"slack"}
    # Only the servers her project may use, and not what runs them (commands, URLs, log files).
    (slack,) = payload(carol_status)["upstreams"]
    assert slack["name"] == "slack" and slack["target"] is None and slack["log"] is None

    dave_find, dave_run = calls(server.url, keys["dave"], find_all, ("tool_execute", {"tool_key": "slack:list_users"}))
    for refused in (dave_find, dave_run):
        shape = payload(refused)
        assert refused.is_error and shape["code"] == "PERMISSION_DENIED" and "--project" in shape["suggestion"]

    server.wait_for(lambda r: r.get("event") == "tool_execute" and r.get("key") == "dave")
    audit = [record for record in server.seen if record.get("event") == "tool_execute"]
    runs = {(r["key"], r["project"], r["tool_key"], r["outcome"]) for r in audit}
    assert {
        ("alice", "backend", "postgres:query", "ok"),
        ("alice", "backend", "github:delete_branch", "not_found"),
        ("dave", None, "slack:list_users", "permission_denied"),
    } <= runs
    assert all(r["request_id"] for r in audit) and not any(key in json.dumps(server.seen) for key in keys.values())
