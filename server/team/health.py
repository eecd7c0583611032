"""GET /healthz: readiness of one replica, dependency by dependency.

Each dependency a request needs gets a status: the index generation (CURRENT
names a readable one), the API key store, and Redis when rate limits are
shared.  ``capacity`` says how loaded the replica is (server/capacity.py): ``busy``
while slow tools or fetches wait for a slot (other tools are unaffected: still
200), ``saturated`` while calls wait for the threads every tool shares (503: the
replica answers late whatever is asked).  The probe answers 200 only when every
dependency is ``ok``, the replica is not saturated and not draining, so a load
balancer stops sending requests that would fail or wait.  The endpoint is open,
so it says *what* is down, never where (no URL, no path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.index_file import live_generation
from docs_mcp.server.capacity import SATURATED
from docs_mcp.server.team.errors import KeyStoreError, RateLimiterUnavailableError
from docs_mcp.server.team.keys import KeyReader
from docs_mcp.server.team.ratelimit import Limiter

OK = "ok"
UNAVAILABLE = "unavailable"
NOT_CONFIGURED = "not_configured"
PING_TIMEOUT = 2.0  # seconds: a probe must answer well within a balancer's own timeout


@dataclass(frozen=True)
class Readiness:
    """What /healthz reports: the overall status, and each dependency's."""

    status: str  # ok, unavailable, saturated or draining
    generation: str | None
    checks: dict[str, dict[str, Any]]

    @property
    def ready(self) -> bool:
        return self.status == OK

    def body(self, in_flight: int) -> dict[str, Any]:
        return {
            "status": self.status,
            "generation": self.generation,
            "version": __version__,
            "in_flight": in_flight,
            "checks": self.checks,
        }


def served_generation(index_dir: Path) -> str | None:
    """The generation CURRENT names (what the next request is served from); None if there is none or it is damaged."""
    try:
        return live_generation(index_dir)
    except DocsMcpError:
        return None


async def readiness(
    index_dir: Path,
    verifier: KeyReader,
    limiter: Limiter,
    *,
    shared_limits: bool,
    draining: Callable[[], bool],
    extra: Mapping[str, Callable[[], dict[str, Any]]] | None = None,
    capacity: Callable[[], dict[str, Any]] | None = None,
) -> Readiness:
    """Check every dependency now; ``shared_limits``: rate limits live in Redis; ``extra``: more checks by name (fleet);
    ``capacity``: the server's load report."""
    generation = served_generation(index_dir)
    checks = {
        "index": {"status": OK, "generation": generation}
        if generation
        else {"status": UNAVAILABLE, "error": "no readable index generation (CURRENT missing or damaged)"},
        "keys": _keys(verifier),
        "redis": await _redis(limiter) if shared_limits else {"status": NOT_CONFIGURED},
        **{name: check() for name, check in (extra or {}).items()},
    }
    healthy = all(check["status"] in (OK, NOT_CONFIGURED) for check in checks.values())
    load = capacity() if capacity is not None else None
    if load is not None:
        checks["capacity"] = load
    status = (
        "draining"
        if draining()
        else UNAVAILABLE
        if not healthy
        else SATURATED
        if load and load["status"] == SATURATED
        else OK
    )
    return Readiness(status, generation, checks)


def _keys(verifier: KeyReader) -> dict[str, Any]:
    try:
        return {"status": OK, "active": verifier.active_count()}
    except KeyStoreError:
        return {"status": UNAVAILABLE, "error": "the API key store cannot be read"}


async def _redis(limiter: Limiter) -> dict[str, Any]:
    try:
        with anyio.fail_after(PING_TIMEOUT):
            await limiter.ping()
    except (RateLimiterUnavailableError, TimeoutError):
        return {"status": UNAVAILABLE, "error": "Redis (shared rate limits) does not answer"}
    return {"status": OK}
