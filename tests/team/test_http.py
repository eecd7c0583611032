"""`docs-mcp serve --transport http` as a team runs it: real processes, real HTTP on loopback, the SDK's client."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__

Server = Any  # conftest.ServerProcess; fixtures hand it over, since test modules cannot import conftest

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "search_docs", "arguments": {"query": "get_token"}},
}


def post(server: Server, key: str | None, message: dict[str, Any] = TOOLS_LIST, **headers: str) -> httpx.Response:
    """One raw JSON-RPC POST to /mcp, with ``key`` as bearer token when given."""
    auth = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{server.url}/mcp", json=message, headers={**MCP_HEADERS, **auth, **headers}, timeout=60)


def sdk_call(url: str, key: str | None, mode: str = "auto") -> tuple[list[str], str]:
    """Through the MCP SDK's streamable HTTP client: the tool names and search_docs' text for 'get_token'."""

    async def run() -> tuple[list[str], str]:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client:
                tools = await client.list_tools()
                result = await client.call_tool("search_docs", {"query": "get_token"})
                assert not result.is_error, result
                return sorted(tool.name for tool in tools.tools), result.content[0].text  # type: ignore[union-attr]

    return anyio.run(run)


def problem(response: httpx.Response) -> tuple[int, str]:
    """Status and error code of a refused request, after checking the body has the spec's shape."""
    body = response.json()
    assert {"code", "message", "recoverable", "suggestion"} <= body.keys(), body
    assert body["error"]["message"].startswith(body["code"])  # the JSON-RPC envelope carries the same text
    return response.status_code, body["code"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_tools_answer_over_streamable_http(index_dir: Path, servers, mode: str, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    names, text = sdk_call(server.url, key, mode)
    assert {"get_doc", "search_docs"} <= set(names)  # the tool list itself is tests/server's business
    assert json.loads(text)["hits"][0]["chunk_id"] == "auth.md#authentication/tokens"
    # Team mode searches in one worker process per usable core by default (tests/server/test_search_pool.py).
    listening = next(record for record in server.seen if record.get("msg") == "listening")
    assert listening["search_workers"] == len(os.sched_getaffinity(0))


def test_serving_writes_nothing_in_the_index_directory(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")

    def files() -> dict[str, tuple[int, int]]:
        return {
            str(p.relative_to(index_dir)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(index_dir.rglob("*"))
            if p.is_file()
        }

    before = files()
    server = servers.start(index_dir)
    assert [post(server, key, SEARCH).status_code, post(server, None).status_code] == [200, 401]
    assert server.stop() == 0
    assert files() == before  # the key store too: the server opens it read-only


def test_keys_survive_index_rebuilds_and_the_server_follows_the_new_generation(
    tmp_path: Path, servers, new_key
) -> None:
    from docs_mcp.indexer import build_index

    corpus, index = tmp_path / "docs", tmp_path / "index"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Alpha\n\nThe alpha guide.\n", encoding="utf-8")
    key = new_key(index, "alice")  # keys may come first: the folder then holds only keys.sqlite
    build_index(corpus, index, embeddings="none")
    server = servers.start(index)
    first = httpx.get(f"{server.url}/healthz").json()["generation"]

    (corpus / "b.md").write_text("# Zeppelin\n\nAirships explained.\n", encoding="utf-8")
    build_index(corpus, index, embeddings="none")  # a new generation, swapped in while serving

    second = httpx.get(f"{server.url}/healthz").json()["generation"]
    assert second != first and second == (index / "CURRENT").read_text().strip()
    found = post(server, key, {**SEARCH, "params": {"name": "search_docs", "arguments": {"query": "zeppelin"}}})
    assert found.status_code == 200  # the same key, after the swap
    assert json.loads(found.json()["result"]["content"][0]["text"])["hits"][0]["filepath"] == "b.md"


def test_healthz_is_open_and_reports_status_generation_version(index_dir: Path, servers) -> None:
    server = servers.start(index_dir)
    body = httpx.get(f"{server.url}/healthz").json()
    generation = (index_dir / "CURRENT").read_text().strip()
    capacity = body["checks"].pop("capacity")
    assert body == {
        "status": "ok",
        "generation": generation,
        "version": __version__,
        "in_flight": 0,
        "checks": {
            "index": {"status": "ok", "generation": generation},
            "keys": {"status": "ok", "active": 0},
            "redis": {"status": "not_configured"},
        },
    }
    assert capacity == {
        "status": "ok",
        "tool_threads": {"in_use": 0, "limit": 40, "waiting": 0},
        "slow_threads": {"in_use": 0, "limit": 24, "waiting": 0},
        "slow_calls_per_caller": {"busiest": 0, "limit": 6},
    }
    # (the fetch pool is reported once a tool has read a remote page: tests/team/test_slow_sites.py)
    # With no key created yet the server says how to make one, and refuses every /mcp request.
    warning = server.wait_for(lambda r: r.get("level") == "warning" and "no API keys" in r.get("msg", ""))
    assert warning["hint"] == f"docs-mcp keys create NAME --index {index_dir}"
    assert problem(post(server, None)) == (401, "AUTH_REQUIRED")


def test_missing_malformed_and_unknown_keys_are_refused(index_dir: Path, servers, new_key) -> None:
    new_key(index_dir, "alice")
    server = servers.start(index_dir)
    missing = post(server, None)
    assert problem(missing) == (401, "AUTH_REQUIRED")
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert problem(post(server, None, Authorization="Basic YWxpY2U6c2VjcmV0")) == (401, "AUTH_REQUIRED")
    assert problem(post(server, "dm_" + "A" * 40)) == (401, "AUTH_INVALID")
    assert problem(post(server, "not-even-a-key")) == (401, "AUTH_INVALID")
    with pytest.raises(BaseExceptionGroup) as caught:  # the client's task group wraps the MCP error
        sdk_call(server.url, None)
    assert caught.group_contains(MCPError, match="AUTH_REQUIRED: .*Authorization: Bearer", depth=None)


def test_key_lifecycle_through_the_cli_takes_effect_without_restart(index_dir: Path, servers, new_key, cli) -> None:
    key = new_key(index_dir, "alice", "--rate", "120", "--burst", "20")
    server = servers.start(index_dir)
    assert post(server, key).status_code == 200

    listed = json.loads(cli("keys", "list", "--json", "--index", str(index_dir)).stdout)
    assert [(k["name"], k["key_prefix"], k["rate"], k["burst"], k["revoked_at"]) for k in listed] == [
        ("alice", key[:7], 120, 20, None)
    ]
    assert key not in cli("keys", "list", "--index", str(index_dir)).stdout

    revoked = cli("keys", "revoke", "alice", "--index", str(index_dir))
    assert revoked.returncode == 0, revoked.stderr
    assert problem(post(server, key)) == (401, "AUTH_INVALID")

    again = cli("keys", "revoke", "alice", "--index", str(index_dir))
    assert again.returncode == 1 and "No active key named 'alice'" in again.stderr and "Traceback" not in again.stderr
    replacement = new_key(index_dir, "alice")
    assert post(server, replacement).status_code == 200
    assert problem(post(server, key)) == (401, "AUTH_INVALID")


def test_rate_limit_headers_on_every_response_and_429_when_empty(index_dir: Path, servers, new_key) -> None:
    slow = new_key(index_dir, "slow", "--rate", "1", "--burst", "2")
    other = new_key(index_dir, "other")
    server = servers.start(index_dir)

    first, second, third = (post(server, slow) for _ in range(3))
    assert [r.status_code for r in (first, second)] == [200, 200]
    assert [(r.headers["x-ratelimit-limit"], r.headers["x-ratelimit-remaining"]) for r in (first, second)] == [
        ("1", "1"),
        ("1", "0"),
    ]
    assert 0 < int(second.headers["x-ratelimit-reset"]) <= 120
    assert problem(third) == (429, "RATE_LIMITED")
    assert third.headers["x-ratelimit-remaining"] == "0"
    assert 1 <= int(third.headers["retry-after"]) <= 60 and third.json()["retryAfter"] == int(
        third.headers["retry-after"]
    )
    with pytest.raises(BaseExceptionGroup) as caught:  # what an MCP client shows its agent
        sdk_call(server.url, slow)
    assert caught.group_contains(MCPError, match="RATE_LIMITED: .*Try again after", depth=None)
    fresh = post(server, other)  # another key has its own bucket, with the server's defaults
    assert (fresh.status_code, fresh.headers["x-ratelimit-limit"], fresh.headers["x-ratelimit-remaining"]) == (
        200,
        "60",
        "9",
    )


def test_two_servers_share_one_redis_bucket(index_dir: Path, servers, redis_url: str, new_key, clean_env) -> None:
    key = new_key(index_dir, "alice", "--rate", "1", "--burst", "3")
    prefix = f"test-{index_dir.parent.name}"
    env = clean_env(DOCS_MCP_REDIS_PREFIX=prefix)
    a = servers.start(index_dir, "--redis-url", redis_url, env=env)
    b = servers.start(index_dir, "--redis-url", redis_url, env=env)
    answers = [post(a, key), post(b, key), post(a, key), post(b, key)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert [r.headers["x-ratelimit-remaining"] for r in answers] == ["2", "1", "0", "0"]


def test_a_cursor_from_one_replica_pages_on_another(index_dir: Path, servers, new_key, clean_env) -> None:
    key = new_key(index_dir, "alice")
    a = servers.start(index_dir, env=clean_env(DOCS_MCP_CURSOR_SECRET="shared-secret"))
    b = servers.start(index_dir, env=clean_env(DOCS_MCP_CURSOR_SECRET="shared-secret"))
    other = servers.start(index_dir, env=clean_env(DOCS_MCP_CURSOR_SECRET="another-secret"))

    def search(server: Server, **arguments: Any) -> dict[str, Any]:
        call = {
            **SEARCH,
            "params": {"name": "search_docs", "arguments": {"query": "key token pages", "limit": 1, **arguments}},
        }
        return post(server, key, call).json()["result"]

    first = json.loads(search(a)["content"][0]["text"])
    assert first["next_cursor"] is not None
    second = json.loads(search(b, cursor=first["next_cursor"])["content"][0]["text"])
    assert second["hits"] and second["hits"][0]["chunk_id"] != first["hits"][0]["chunk_id"]
    assert search(other, cursor=first["next_cursor"])["isError"] is True  # the secret does sign cursors


def test_a_redis_outage_refuses_requests_instead_of_dropping_the_limit(
    index_dir: Path, servers, own_redis, new_key
) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir, "--redis-url", own_redis.url)
    assert post(server, key).status_code == 200
    own_redis.stop()
    refused = post(server, key)
    assert problem(refused) == (503, "SERVICE_UNAVAILABLE")
    assert refused.json()["recoverable"] is True and refused.headers["retry-after"] == "5"
    assert server.wait_for(lambda r: r.get("outcome") == "service_unavailable")["key"] == "alice"


def test_readiness_fails_while_a_dependency_is_down(index_dir: Path, servers, own_redis, new_key) -> None:
    new_key(index_dir, "alice")
    server = servers.start(index_dir, "--redis-url", own_redis.url)
    assert httpx.get(f"{server.url}/healthz").json()["checks"]["redis"] == {"status": "ok"}
    own_redis.stop()
    down = httpx.get(f"{server.url}/healthz")
    assert down.status_code == 503 and down.json()["status"] == "unavailable"
    assert down.json()["checks"]["redis"]["status"] == "unavailable"
    assert down.json()["checks"]["index"]["status"] == "ok"
    (index_dir / "CURRENT").write_text("damaged\n")
    assert httpx.get(f"{server.url}/healthz").json()["checks"]["index"]["status"] == "unavailable"


def test_a_restarted_server_answers_the_same_client_and_unknown_sessions_get_404(
    index_dir: Path, servers, new_key
) -> None:
    key = new_key(index_dir, "alice")
    first = servers.start(index_dir)
    port = first.port

    stale = post(first, key, **{"Mcp-Session-Id": "0123456789abcdef"})  # a session from before a restart
    assert problem(stale) == (404, "SESSION_NOT_FOUND")
    assert "initialize" in stale.json()["suggestion"]

    async def across_restart() -> list[str]:
        headers = {"Authorization": f"Bearer {key}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode="legacy"
            ) as client:
                before = await client.call_tool("search_docs", {"query": "next_cursor"})
                assert first.stop() == 0
                servers.start(index_dir, "--port", str(port))
                after = await client.call_tool("search_docs", {"query": "next_cursor"})
                return [r.content[0].text for r in (before, after)]  # type: ignore[union-attr]

    before, after = anyio.run(across_restart)
    assert before == after


def test_origin_and_host_are_checked_before_the_key(index_dir: Path, servers, new_key, clean_env) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir, env=clean_env(DOCS_MCP_ALLOWED_ORIGINS="https://tools.example"))
    assert problem(post(server, None, Origin="http://evil.example")) == (403, "ORIGIN_NOT_ALLOWED")
    assert problem(post(server, key, Origin="http://evil.example")) == (403, "ORIGIN_NOT_ALLOWED")
    assert problem(post(server, key, Host="evil.example")) == (421, "HOST_NOT_ALLOWED")
    assert problem(post(server, key, Host=f"attacker.example:{server.port}")) == (421, "HOST_NOT_ALLOWED")
    assert post(server, key, Origin=f"http://localhost:{server.port}").status_code == 200
    assert post(server, key, Origin="https://tools.example").status_code == 200
    assert post(server, key, Host=f"localhost:{server.port}").status_code == 200
    assert "access-control-allow-origin" not in post(server, key, Origin="https://tools.example").headers


def test_cors_when_configured(index_dir: Path, servers, new_key, clean_env) -> None:
    new_key(index_dir, "alice")
    server = servers.start(index_dir, env=clean_env(DOCS_MCP_CORS_ORIGINS="https://app.example"))
    preflight = httpx.options(
        f"{server.url}/mcp",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    refused = post(server, None, Origin="https://app.example")
    assert problem(refused) == (401, "AUTH_REQUIRED")
    assert refused.headers["access-control-allow-origin"] == "https://app.example"
    assert "x-ratelimit-remaining" in refused.headers["access-control-expose-headers"]


def test_get_has_no_event_stream_in_stateless_mode(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    response = httpx.get(f"{server.url}/mcp", headers={"Authorization": f"Bearer {key}", "Accept": "text/event-stream"})
    assert problem(response) == (405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "POST, DELETE"


def test_sigterm_drains_the_request_in_flight_then_exits_0(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    body = json.dumps(SEARCH).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as conn:
        conn.sendall(head + body[:20])  # the request is in flight: its body is still coming
        for _ in range(2000):
            if httpx.get(f"{server.url}/healthz").json()["in_flight"] == 1:
                break
        else:
            raise AssertionError("the partial request never reached the app")
        server.process.send_signal(signal.SIGTERM)
        # uvicorn's own line, logged once it stopped listening and started waiting for this request.
        server.wait_for(lambda r: str(r.get("msg", "")).startswith("Waiting for connections to close"))
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=5).close()  # no new work
        conn.sendall(body[20:])
        response = _read_http_response(conn)
    head, _, payload = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    text = json.loads(payload)["result"]["content"][0]["text"]
    assert json.loads(text)["hits"][0]["chunk_id"] == "auth.md#authentication/tokens"
    assert server.stop() == 0
    assert server.wait_for("stopped")["drained"] is True


def _read_http_response(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):  # the server closes the connection after answering while draining
        chunks.append(chunk)
    return b"".join(chunks)


def test_logs_name_the_key_never_the_key(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    response = post(server, key, SEARCH, **{"X-Request-Id": "trace-42"})
    assert response.headers["x-request-id"] == "trace-42"
    record = server.wait_for(lambda r: r.get("msg") == "request" and r.get("rpc") == "tools/call")
    assert {k: record[k] for k in ("request_id", "key", "tool", "status", "outcome", "path")} == {
        "request_id": "trace-42",
        "key": "alice",
        "tool": "search_docs",
        "status": 200,
        "outcome": "ok",
        "path": "/mcp",
    }
    assert isinstance(record["latency_ms"], float)
    post(server, "dm_" + "B" * 40)
    assert server.wait_for(lambda r: r.get("outcome") == "auth_invalid")["key"] is None
    assert server.stop() == 0
    server.wait_for("stopped")
    assert key not in json.dumps(server.seen) and key[3:] not in json.dumps(server.seen)


def test_pretty_logs_are_for_people(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir, "--log-format", "pretty")
    post(server, key, SEARCH)
    line = server.wait_for(lambda r: "tool=search_docs" in r.get("raw", ""))["raw"]
    assert "INFO" in line and "key=alice" in line and "outcome=ok" in line


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ((), {"DOCS_MCP_PORT": "abc"}, "$DOCS_MCP_PORT = 'abc' (env): expected an integer"),
        (("--redis-url", "unix:///nonexistent/redis.sock"), {}, "does not answer"),
    ],
)
def test_bad_configuration_is_one_clear_error_at_start(
    index_dir: Path, args: tuple[str, ...], env: dict[str, str], expected: str, cli, clean_env
) -> None:
    done = cli("serve", "--transport", "http", "--index", str(index_dir), *args, env=clean_env(**env))
    assert done.returncode != 0
    assert expected in done.stderr and "Traceback" not in done.stderr


def test_a_missing_index_is_one_clear_error(tmp_path: Path, cli, clean_env) -> None:
    done = cli("serve", "--transport", "http", "--index", str(tmp_path / "nothing"), "--port", "0", env=clean_env())
    assert done.returncode != 0 and "Traceback" not in done.stderr and "nothing" in done.stderr


def test_notifications_do_not_use_rate_limit_tokens(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "chatty", "--rate", "1", "--burst", "2")
    server = servers.start(index_dir)
    for method in ("notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"):
        note = post(server, key, {"jsonrpc": "2.0", "method": method, "params": {"requestId": 9}})
        assert note.status_code == 202, note.text
    first, second, third = (post(server, key) for _ in range(3))
    assert [r.status_code for r in (first, second, third)] == [200, 200, 429]  # the burst is all there for requests
    assert first.headers["x-ratelimit-remaining"] == "1"


def test_a_body_over_the_cap_is_refused_with_413(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {key}"}
    padding = "x" * (4 * 1024 * 1024)  # with the envelope, just over the 4 MiB cap
    oversized = json.dumps({**SEARCH, "params": {**SEARCH["params"], "padding": padding}}).encode()
    announced = httpx.post(f"{server.url}/mcp", content=oversized, headers=auth, timeout=60)
    assert problem(announced) == (413, "PAYLOAD_TOO_LARGE")
    assert announced.json()["message"] == "The request body is larger than 4194304 bytes, the most this server reads."

    def chunks():  # no Content-Length: the cap counts the bytes as they arrive
        for start in range(0, len(oversized), 65536):
            yield oversized[start : start + 65536]

    streamed = httpx.post(f"{server.url}/mcp", content=chunks(), headers=auth, timeout=60)
    assert problem(streamed) == (413, "PAYLOAD_TOO_LARGE")
    assert post(server, key, SEARCH).status_code == 200  # the server is fine, and a normal call passes


def test_a_megabyte_method_name_is_answered_with_a_short_error_not_echoed(index_dir: Path, servers, new_key) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    response = post(server, key, {"jsonrpc": "2.0", "id": 9, "method": "m" * 1_000_000})
    assert response.status_code == 200 and len(response.content) < 400
    error = response.json()["error"]
    assert (
        error["code"] == -32601
        and error["message"].startswith("Method not found: 'mmmm")
        and "(1000000 characters)" in error["message"]
    )
    assert (
        post(server, key, {"jsonrpc": "2.0", "method": "n" * 1_000_000}).status_code == 202
    )  # a notification: no answer
    assert post(server, key, SEARCH).status_code == 200  # the server goes on


def test_a_megabyte_method_name_neither_stalls_the_replica_nor_fills_its_log(index_dir: Path, servers, new_key) -> None:
    """The access log logged the whole name, and masking secrets in a megabyte of letters took hours: every request waited."""
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    for message in (
        {"jsonrpc": "2.0", "id": 3, "method": "m" * 1_000_000},
        {"jsonrpc": "2.0", "method": "n" * 1_000_000},
        {**SEARCH, "params": {"name": "t" * 1_000_000, "arguments": {}}},
    ):
        assert post(server, key, message).status_code in (200, 202)
    assert httpx.get(f"{server.url}/healthz", timeout=60).status_code == 200
    logged = server.wait_for(
        lambda record: record.get("msg") == "request" and (record.get("tool") or "").startswith("tttt")
    )
    assert logged["tool"].endswith("… (1000000 characters)") and len(logged["tool"]) < 160
