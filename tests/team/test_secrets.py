"""No secret leaves a team server: not the API key, the Redis password or the cursor secret, in any
response body or header, log line or CLI output, including while Redis is down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from docs_mcp.redact import MASK, redact

CURSOR_SECRET = "cursor-secret-9b2e44"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("redis://:pw@127.0.0.1:6380/0", "redis://:***@127.0.0.1:6380/0"),
        ("rediss://default:pw@cache:6380", "rediss://default:***@cache:6380"),
        ("redis://token@cache", "redis://***@cache"),
        ("unix://:pw@/run/redis.sock", "unix://:***@/run/redis.sock"),
        ("redis://cache:6379/0?password=pw&db=1", "redis://cache:6379/0?password=***&db=1"),
        ("Redis at redis://u:p@h:1/0 does not answer", "Redis at redis://u:***@h:1/0 does not answer"),
        ("redis://cache:6379/0", "redis://cache:6379/0"),
        ("/srv/docs-mcp/index", "/srv/docs-mcp/index"),
        ("redis://user:rPASS@WORD@localhost:6379/0", "redis://user:***@localhost:6379/0"),  # an unencoded '@'
        ("https:/user:pw@docs.example.com/llms.txt", "https:/user:***@docs.example.com/llms.txt"),  # one slash
        ("https://docs.example.com/llms.txt?api_key=k1&page=2", "https://docs.example.com/llms.txt?api_key=***&page=2"),
        ("https://x.example/a?X-Amz-Signature=abc#top", "https://x.example/a?X-Amz-Signature=***#top"),
    ],
)
def test_urls_lose_their_credentials_and_keep_the_rest(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_named_secrets_are_masked_anywhere() -> None:
    assert redact("key dm_abc in a sentence", ("dm_abc", "")) == f"key {MASK} in a sentence"


def test_config_show_masks_secrets_and_says_whether_they_are_set(cli, clean_env) -> None:
    url = "redis://:hunter2pw@127.0.0.1:6380/0"
    shown = cli("config", "show", env=clean_env(DOCS_MCP_CURSOR_SECRET=CURSOR_SECRET, DOCS_MCP_REDIS_URL=url))
    assert shown.returncode == 0, shown.stderr
    assert CURSOR_SECRET not in shown.stdout + shown.stderr and "hunter2pw" not in shown.stdout + shown.stderr
    assert "server.cursor_secret = *** (set)  # env" in shown.stdout
    assert "rate_limit.redis_url = 'redis://:***@127.0.0.1:6380/0'  # env" in shown.stdout
    unset = cli("config", "show", env=clean_env()).stdout
    assert "server.cursor_secret = (not set)  # default" in unset


def test_a_password_pasted_as_the_redis_url_is_refused_without_being_shown(cli, clean_env) -> None:
    shown = cli("config", "show", env=clean_env(DOCS_MCP_REDIS_URL="hunter2pw"))
    assert shown.returncode != 0 and "hunter2pw" not in shown.stdout + shown.stderr
    assert "$DOCS_MCP_REDIS_URL = *** (set) (env): expected empty, or a URL that starts with redis://" in shown.stderr


def test_a_team_session_never_shows_its_secrets(index_dir: Path, servers, password_redis, new_key, clean_env) -> None:
    key = new_key(index_dir, "alice")
    secrets = (key, password_redis.password, CURSOR_SECRET)
    env = clean_env(DOCS_MCP_CURSOR_SECRET=CURSOR_SECRET)
    server = servers.start(index_dir, "--redis-url", password_redis.url, env=env)
    responses = [*_session(server.url, key), httpx.get(f"{server.url}/healthz")]
    password_redis.stop()  # an outage: refusals and health must still not quote the URL's password
    outage = [
        _post(server.url, key, {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
        httpx.get(f"{server.url}/healthz"),
    ]
    assert [r.status_code for r in outage] == [503, 503]
    assert server.stop() == 0
    rendered = [_rendered(response) for response in responses + outage]
    logged = [str(record) for record in server.log()]
    assert len(rendered) >= 10 and len(logged) >= 10
    leaks = [(secret, text) for text in rendered + logged for secret in secrets if secret in text]
    assert leaks == []


def test_an_unreachable_redis_at_start_is_reported_without_its_password(index_dir: Path, cli, tmp_path: Path) -> None:
    url = f"unix://:hunter2pw@{tmp_path}/no-redis.sock"
    done = cli("serve", "--transport", "http", "--index", str(index_dir), "--port", "0", "--redis-url", url)
    assert done.returncode == 1 and "does not answer" in done.stderr, done.stderr
    assert "hunter2pw" not in done.stdout + done.stderr and "unix://:***@" in done.stderr


def _session(url: str, key: str) -> list[httpx.Response]:
    """A working session: tool calls that succeed, fail and page, resources, and refused requests."""
    calls: list[dict[str, Any]] = [
        {
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"method": "tools/list"},
        {"method": "tools/call", "params": {"name": "search_docs", "arguments": {"query": "token", "limit": 1}}},
        {"method": "tools/call", "params": {"name": "get_doc", "arguments": {"chunk_id": "nope.md#x"}}},
        {"method": "tools/call", "params": {"name": "search_docs", "arguments": {"query": "x", "cursor": "bad"}}},
        {"method": "tools/call", "params": {"name": "resolve_library", "arguments": {"query": "auth"}}},
        {"method": "resources/read", "params": {"uri": "docs-mcp://health"}},
        {"method": "no/such/method"},
    ]
    answered = [_post(url, key, {"jsonrpc": "2.0", "id": n, **call}) for n, call in enumerate(calls, 1)]
    refused = [
        _post(url, None, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        _post(url, "dm_" + "B" * 40, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]
    return answered + refused


def _post(url: str, key: str | None, message: dict[str, Any]) -> httpx.Response:
    auth = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{url}/mcp", json=message, headers={**MCP_HEADERS, **auth}, timeout=60)


def _rendered(response: httpx.Response) -> str:
    return "\n".join([*(f"{name}: {value}" for name, value in response.headers.items()), response.text])
