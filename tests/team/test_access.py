"""Who may call /mcp, as pure functions: Host/Origin patterns, and the shape of a refusal."""

from __future__ import annotations

import json

import pytest

from docs_mcp.server.team.auth import AUTH_REQUIRED, host_patterns, matches, origin_patterns
from docs_mcp.server.team.errors import HttpProblem
from docs_mcp.server.team.ratelimit import Decision, Limit
from docs_mcp.server.team.server_settings import load_settings

LOOPBACK_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*")


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("http://localhost:3100", True),
        ("http://127.0.0.1:8080", True),
        ("http://localhost", False),  # no port: only "base:*" patterns are given here
        ("http://localhost:3100.evil.example", False),  # "a port" that is really another host
        ("http://localhost:", False),
        ("http://evil.example", False),
        ("https://localhost:3100", False),
    ],
)
def test_port_wildcards_match_a_port_and_nothing_else(value: str, allowed: bool) -> None:
    assert matches(value, LOOPBACK_ORIGINS) is allowed


def test_star_allows_everything() -> None:
    assert matches("https://anything.example", ("*",))


def test_host_check_defaults_follow_the_bind_address() -> None:
    loopback = host_patterns(load_settings({"server.host": "127.0.0.1"}, environ={}))
    assert loopback is not None and matches("localhost:3100", loopback) and matches("127.0.0.1", loopback)
    assert not matches("evil.example:3100", loopback)
    assert host_patterns(load_settings({"server.host": "0.0.0.0"}, environ={})) is None
    configured = load_settings({"server.host": "0.0.0.0"}, environ={"DOCS_MCP_ALLOWED_HOSTS": "docs.internal"})
    assert host_patterns(configured) == ("docs.internal",)


def test_cors_origins_are_also_allowed_origins() -> None:
    settings = load_settings(environ={"DOCS_MCP_CORS_ORIGINS": "https://app.example"})
    assert matches("https://app.example", origin_patterns(settings))
    assert not matches("https://other.example", origin_patterns(settings))


def test_a_refusal_carries_the_spec_fields_and_a_json_rpc_error(snapshot) -> None:  # type: ignore[no-untyped-def]
    limited = HttpProblem(
        429,
        "RATE_LIMITED",
        "Key 'alice' used its 6 requests per minute (burst 3).",
        "Try again after 10 seconds.",
        retry_after=10,
    )
    assert json.loads(limited.body()) == snapshot
    assert json.loads(AUTH_REQUIRED.body()) == snapshot


def test_rate_limit_headers_describe_the_bucket() -> None:
    decision = Decision(True, Limit(per_minute=60, burst=10), tokens=4.5)
    assert dict(decision.headers()) == {
        b"x-ratelimit-limit": b"60",
        b"x-ratelimit-remaining": b"4",
        b"x-ratelimit-reset": b"6",
    }
