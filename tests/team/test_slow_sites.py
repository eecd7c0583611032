"""A slow documentation site must not take a team replica down: per-key limits, threads of their own, /healthz.

A real `docs-mcp serve --transport http` reads pages from a hostile site on loopback whose
answers are held until the test releases them (tests/hostile_site.py), so every call is in
flight exactly as long as the test needs, with no timer.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import httpx
from hostile_site import HostileSite, held

from docs_mcp.server.team.health import Readiness

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PAGE = b"# Held page\n\nThis page answers only when the test lets it, like a very slow documentation site.\n"


def call(server: Any, key: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tools/call over raw JSON-RPC; the tool's result (isError, structured content, text)."""
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    response = httpx.post(
        f"{server.url}/mcp", json=message, headers={**MCP_HEADERS, "Authorization": f"Bearer {key}"}, timeout=120
    )
    assert response.status_code == 200, response.text
    return response.json()["result"]


def code(result: dict[str, Any]) -> str:
    return result["structuredContent"]["code"] if result.get("isError") else "ok"


def healthz(server: Any) -> tuple[int, dict[str, Any]]:
    response = httpx.get(f"{server.url}/healthz", timeout=30)
    return response.status_code, response.json()


def held_site_env(clean_env: Any, index_dir: Path, slow_calls_per_key: int, slow_threads: int) -> dict[str, str]:
    """A server that may read the site on loopback (no other library sources), a deadline far past any held read."""
    return clean_env(
        DOCS_MCP_ALLOW_PRIVATE_FETCH="1",
        DOCS_MCP_FETCH_ALLOW="127.0.0.1",
        DOCS_MCP_CURATED_LIBRARIES="0",
        DOCS_MCP_CUSTOM_LIBRARIES=str(index_dir / "none.json"),
        DOCS_MCP_FETCH_TIMEOUT="120",
        DOCS_MCP_SLOW_CALLS_PER_KEY=str(slow_calls_per_key),
        DOCS_MCP_SLOW_THREADS=str(slow_threads),
    )


def test_one_key_reading_a_slow_site_cannot_starve_the_others(index_dir: Path, servers, new_key, clean_env) -> None:
    site = HostileSite()
    url = site.route("/held.md", held(PAGE))
    slow, other = new_key(index_dir, "slow", "--rate", "100000", "--burst", "1000"), new_key(index_dir, "other")
    env = held_site_env(clean_env, index_dir, slow_calls_per_key=3, slow_threads=8)
    server = servers.start(index_dir, env=env)
    try:
        with ThreadPoolExecutor(45) as pool:
            # 45 reads of the held page from one key, as in the audit: 3 run, 42 are refused at once.
            reads = [pool.submit(call, server, slow, "read_page", {"url": url}) for _ in range(45)]
            refused = []
            for future in as_completed(
                reads, timeout=120
            ):  # the 3 admitted are held: the first 42 answers are the others
                refused.append(future.result())
                if len(refused) == 42:
                    break
            assert site.wait_for_requests(3)
            assert len(refused) == 42 and {code(result) for result in refused} == {"TOO_BUSY"}
            assert "at most 3 run at once" in refused[0]["structuredContent"]["message"]
            # Meanwhile every other key is answered, and so is the slow key's search.
            for key in (other, slow):
                assert code(call(server, key, "search_docs", {"query": "get_token"})) == "ok"
            status, body = healthz(server)
            capacity = body["checks"]["capacity"]
            assert (status, body["status"], capacity["status"]) == (200, "ok", "ok")
            assert capacity["slow_calls_per_caller"] == {"busiest": 3, "limit": 3}
            assert capacity["fetches"]["running"] == 3 and capacity["slow_threads"]["in_use"] == 3
            site.release_held()
            answered = [future.result(timeout=60) for future in reads if code(future.result(timeout=60)) == "ok"]
        assert len(answered) == 3 and json.loads(answered[0]["content"][0]["text"])["title"] == "Held page"
        assert site.hits("/held.md") == 3  # only the admitted reads reached the site
    finally:
        site.close()


def test_healthz_says_busy_while_slow_calls_wait_for_their_threads(
    index_dir: Path, servers, new_key, clean_env
) -> None:
    site = HostileSite()
    urls = [site.route(f"/held-{n}.md", held(PAGE)) for n in range(4)]
    keys = [new_key(index_dir, name) for name in ("ann", "bob")]
    env = held_site_env(clean_env, index_dir, slow_calls_per_key=2, slow_threads=2)
    server = servers.start(index_dir, env=env)
    try:
        with ThreadPoolExecutor(4) as pool:
            reads = [pool.submit(call, server, keys[n % 2], "read_page", {"url": url}) for n, url in enumerate(urls)]
            assert site.wait_for_requests(2)
            assert _eventually(lambda: healthz(server)[1]["checks"]["capacity"]["slow_threads"]["waiting"] == 2)
            status, body = healthz(server)
            assert (status, body["status"], body["checks"]["capacity"]["status"]) == (200, "ok", "busy")
            assert (
                code(call(server, keys[0], "search_docs", {"query": "get_token"})) == "ok"
            )  # fast tools keep their threads
            site.release_held()
            assert [code(future.result(timeout=60)) for future in reads] == ["ok"] * 4
        assert healthz(server)[1]["checks"]["capacity"]["status"] == "ok"
    finally:
        site.close()


def _eventually(condition: Any, tries: int = 600) -> bool:
    for _ in range(tries):
        if condition():
            return True
    return condition()


def test_a_saturated_replica_answers_503_so_the_balancer_sends_requests_elsewhere(index_dir: Path) -> None:
    import anyio

    from docs_mcp.server.team.health import readiness
    from docs_mcp.server.team.keys import KeyVerifier
    from docs_mcp.server.team.ratelimit import MemoryLimiter

    def report(status: str) -> Readiness:
        load = {"status": status, "tool_threads": {"in_use": 40, "limit": 40, "waiting": 3}}
        return anyio.run(
            lambda: readiness(
                index_dir,
                KeyVerifier(index_dir / "keys.sqlite"),
                MemoryLimiter(),
                shared_limits=False,
                draining=lambda: False,
                capacity=lambda: load,
            )
        )

    saturated, busy = report("saturated"), report("busy")
    assert (saturated.status, saturated.ready, saturated.checks["capacity"]["status"]) == (
        "saturated",
        False,
        "saturated",
    )
    assert (busy.status, busy.ready) == ("ok", True)  # slow tools waiting: the other tools still answer
