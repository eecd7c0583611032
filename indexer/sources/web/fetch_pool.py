"""The fetch pool: where every remote read runs, apart from the threads that serve tools.

A tool thread that needs a page hands the fetch to the pool and waits for its answer. The pool
is one private event loop on a thread of its own (started by the first fetch), so a fetch is a
task, not a thread: cancelling it at its deadline closes its connection at once, wherever it
stands (connecting, waiting for headers that trickle in a byte at a time, reading the body).
At most ``capacity`` fetches run at once, and at most ``per_host`` to one host, so one slow site
holds a few slots, never all of them; a fetch waiting for a slot waits within its own deadline.

``load()`` says how full the pool is (for ``/healthz``).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

DEFAULT_CAPACITY = 16
DEFAULT_PER_HOST = 4

T = TypeVar("T")


@dataclass(frozen=True)
class PoolLoad:
    """How full the pool is: fetches running, fetches waiting for a slot, and the bounds."""

    running: int
    waiting: int
    capacity: int
    per_host: int

    @property
    def saturated(self) -> bool:
        return self.running >= self.capacity and self.waiting > 0

    def as_json(self) -> dict[str, Any]:
        return {"running": self.running, "waiting": self.waiting, "capacity": self.capacity, "per_host": self.per_host}


class FetchPool:
    """A private event loop that runs async jobs for blocking callers, with per-host and total slots."""

    def __init__(
        self, capacity: int = DEFAULT_CAPACITY, per_host: int = DEFAULT_PER_HOST, name: str = "docs-mcp-fetch"
    ) -> None:
        self.capacity = max(1, capacity)
        self.per_host = max(1, min(per_host, self.capacity))
        self._name = name
        self._guard = threading.Lock()
        self._stack: ExitStack | None = None
        self._portal: BlockingPortal | None = None
        self._total: anyio.CapacityLimiter | None = None
        self._hosts: dict[str, tuple[anyio.CapacityLimiter, int]] = {}  # host -> (its limiter, jobs using it)
        self._running = 0
        self._waiting = 0
        self._closed = False

    def call(self, job: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``job(*args)`` on the pool's event loop and wait for its result (its exception is raised here).

        The job bounds its own time (see ``slot``); ``call`` adds no limit of its own.
        """
        return self._start().call(job, *args)

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        """Hold one of the pool's slots and one of ``host``'s while the block runs (waiting for them if needed).

        Used inside a job, under the job's deadline: time spent waiting counts against it.
        """
        assert self._total is not None, "slot() runs inside call()"
        limiter, users = self._hosts.get(host) or (anyio.CapacityLimiter(self.per_host), 0)
        self._hosts[host] = (limiter, users + 1)
        self._waiting += 1
        entered = False
        try:
            async with limiter, self._total:
                self._waiting -= 1
                entered = True
                self._running += 1
                try:
                    yield
                finally:
                    self._running -= 1
        finally:
            if not entered:
                self._waiting -= 1
            limiter, users = self._hosts[host]
            if users <= 1:
                del self._hosts[host]  # no unbounded growth with the number of hosts ever fetched
            else:
                self._hosts[host] = (limiter, users - 1)

    def load(self) -> PoolLoad:
        """The pool's load now (plain reads: no need to reach the event loop)."""
        return PoolLoad(self._running, self._waiting, self.capacity, self.per_host)

    def close(self) -> None:
        """Stop the event loop (after the jobs running now end); safe to call twice."""
        with self._guard:
            self._closed = True
            stack, self._stack, self._portal = self._stack, None, None
        if stack is not None:
            stack.close()

    def _start(self) -> BlockingPortal:
        with self._guard:
            if self._closed:
                raise RuntimeError("the fetch pool is closed")
            if self._portal is None:
                stack = ExitStack()
                portal = stack.enter_context(start_blocking_portal(name=self._name))
                self._total = portal.call(_limiter, self.capacity)
                self._stack, self._portal = stack, portal
            return self._portal


async def _limiter(capacity: int) -> anyio.CapacityLimiter:
    return anyio.CapacityLimiter(capacity)  # made inside the loop it belongs to
