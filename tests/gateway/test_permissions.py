"""Per-project allow/deny rules, default deny over HTTP, trust over stdio; the restart backoff."""

from __future__ import annotations

import pytest

from docs_mcp.server.gateway.errors import PermissionDeniedError
from docs_mcp.server.gateway.permissions import Permissions, ProjectRules
from docs_mcp.server.gateway.records import LOCAL_CALLER, Caller
from docs_mcp.server.gateway.upstream import MAX_BACKOFF, backoff

RULES = Permissions(
    {"backend": ProjectRules(allow=("github", "db:list_*"), deny=("github:delete_*",)), "empty": ProjectRules()}
)


@pytest.mark.parametrize(
    ("tool_key", "allowed"),
    [
        ("github:create_issue", True),
        ("github:delete_branch", False),
        ("db:list_tables", True),
        ("db:query", False),
        ("githubx:create_issue", False),
        ("slack:post_message", False),
    ],
)
def test_allow_patterns_minus_deny_patterns(tool_key: str, allowed: bool) -> None:
    assert RULES.permits(Caller("alice", "backend"), tool_key) is allowed


def test_stdio_is_trusted_and_http_defaults_to_deny() -> None:
    assert RULES.permits(LOCAL_CALLER, "anything:at_all")
    RULES.check_caller(LOCAL_CALLER)
    assert not RULES.permits(Caller("bob", "empty"), "github:create_issue")
    for caller, message in [
        (Caller(), "carries no API key"),
        (Caller("dave"), "belongs to no project"),
        (Caller("erin", "unknown"), "Project 'unknown' has no tool permissions"),
    ]:
        assert not RULES.permits(caller, "github:create_issue")
        with pytest.raises(PermissionDeniedError, match=message):
            RULES.check_caller(caller)


def test_restarts_back_off_from_none_to_the_cap() -> None:
    assert [backoff(n) for n in range(1, 8)] == [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, MAX_BACKOFF]
    assert backoff(50) == MAX_BACKOFF
