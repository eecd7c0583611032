"""Per-session state is bounded: least recently used sessions go first, idle ones expire."""

from __future__ import annotations

from types import SimpleNamespace

from docs_mcp.server.sessions import LOCAL_SESSION, SESSION_SCOPE, SessionStore, request_session


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_least_recently_used_session_goes_first() -> None:
    store: SessionStore[int] = SessionStore(max_sessions=2, clock=Clock())
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # a is now the most recent
    store.put("c", 3)
    assert (store.get("a"), store.get("b"), store.get("c")) == (1, None, 3)
    assert len(store) == 2


def test_idle_sessions_expire_and_activity_keeps_them() -> None:
    clock = Clock()
    store: SessionStore[dict[str, int]] = SessionStore(ttl=60, clock=clock)
    store.setdefault("busy", dict)["x"] = 1
    store.put("idle", {})
    clock.now = 50
    assert store.get("busy") == {"x": 1}
    clock.now = 100
    assert store.get("idle") is None and store.get("busy") == {"x": 1}
    assert len(store) == 1


def test_a_session_is_the_caller_and_its_mcp_session() -> None:
    assert request_session(None) == LOCAL_SESSION  # stdio: one client
    caller = SimpleNamespace(scope={SESSION_SCOPE: "key:alice@2026"}, headers={})
    assert request_session(caller) == "key:alice@2026"
    with_id = SimpleNamespace(scope={SESSION_SCOPE: "key:alice@2026"}, headers={"mcp-session-id": "s1"})
    assert request_session(with_id) == "key:alice@2026/s1"
