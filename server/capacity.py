"""How much of a server slow tools may take: threads of their own, and a few calls per caller at once.

A slow tool waits on something outside the index: a documentation site (read_page by URL,
get_docs and get_library_info on an llms.txt library, get_context7_docs) or an upstream MCP
server (tool_execute, tool_discovery). Each call holds a worker thread while it waits, up to
its deadline. On the threads every tool shares, 40 such calls from one API key would hold
them all, and the replica would stop answering every other key. So:

- slow tools run on threads of their own (``slow_threads``); search_docs, get_doc and the
  other tools that only read the index keep the shared threads;
- one caller (an API key over HTTP, the local user over stdio) runs at most
  ``slow_per_caller`` slow calls at once; one more is refused at once (TOO_BUSY), never queued
  behind the caller's own slow calls.

``load()`` reports both, and the fetch pool, for ``/healthz``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from docs_mcp.errors import CodedError
from docs_mcp.server.errors import ServerError

DEFAULT_SLOW_THREADS = 24
DEFAULT_SLOW_PER_CALLER = 6
OK, BUSY, SATURATED = "ok", "busy", "saturated"


class TooBusyError(ServerError, CodedError):
    """The caller already runs as many slow calls as it may at once."""

    code = "TOO_BUSY"


class Loaded(Protocol):
    """Anything that reports its load as JSON and whether it is saturated (the fetch pool)."""

    def load(self) -> Any: ...


@dataclass
class ToolCapacity:
    """The slow tools' threads and per-caller counts of one server process (used from its event loop)."""

    slow_tools: frozenset[str]
    slow_threads: int = DEFAULT_SLOW_THREADS
    slow_per_caller: int = DEFAULT_SLOW_PER_CALLER
    fetches: Callable[[], Loaded | None] = lambda: None  # the fetch pool, once the server has opened one
    _running: Counter[str] = field(default_factory=Counter)
    _limiter: anyio.CapacityLimiter | None = None

    @asynccontextmanager
    async def claim(self, tool: str, caller: str) -> AsyncIterator[anyio.CapacityLimiter | None]:
        """The thread limiter a call of ``tool`` by ``caller`` runs on, for the duration of the call.

        None (the shared threads) for a fast tool; the slow threads for a slow one, counted
        against the caller's allowance.

        Raises:
            TooBusyError: ``caller`` already runs ``slow_per_caller`` slow calls.
        """
        if tool not in self.slow_tools:
            yield None
            return
        if self._running[caller] >= self.slow_per_caller:
            raise TooBusyError(
                f"This caller already has {self._running[caller]} calls running of the tools that wait on remote sites or "
                f"upstream servers ({', '.join(sorted(self.slow_tools))}); at most {self.slow_per_caller} run at once.",
                "Retry in a few seconds, when one of them has answered; search_docs and get_doc are not limited this way.",
            )
        self._running[caller] += 1
        try:
            yield self._slow_limiter()
        finally:
            self._running[caller] -= 1
            if not self._running[caller]:
                del self._running[caller]

    def load(self) -> dict[str, Any]:
        """Threads in use and waiting (shared and slow), the busiest caller, the fetch pool, and a status.

        ``saturated``: calls wait for one of the shared threads (the server answers late, whatever
        is asked); ``busy``: slow calls or fetches wait for a slot (other tools are unaffected).
        """
        shared = _limiter_load(anyio.to_thread.current_default_thread_limiter())
        slow = _limiter_load(self._slow_limiter())
        pool = self.fetches()
        fetches = pool.load() if pool is not None else None
        status = OK
        if slow["waiting"] or (fetches is not None and fetches.saturated):
            status = BUSY
        if shared["waiting"]:
            status = SATURATED
        report: dict[str, Any] = {
            "status": status,
            "tool_threads": shared,
            "slow_threads": slow,
            "slow_calls_per_caller": {"busiest": max(self._running.values(), default=0), "limit": self.slow_per_caller},
        }
        if fetches is not None:
            report["fetches"] = fetches.as_json()
        return report

    def _slow_limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made on first use, inside the event loop it belongs to
            self._limiter = anyio.CapacityLimiter(self.slow_threads)
        return self._limiter


def _limiter_load(limiter: anyio.CapacityLimiter) -> dict[str, int]:
    statistics = limiter.statistics()
    return {
        "in_use": int(statistics.borrowed_tokens),
        "limit": int(statistics.total_tokens),
        "waiting": statistics.tasks_waiting,
    }
