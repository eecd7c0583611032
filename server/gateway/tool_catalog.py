"""The available tool list: collected from the running upstreams at request time, reused for a short TTL.

A list is never older than ``list_ttl`` seconds, so a tool an upstream adds or drops shows
within that time; collections are serialised, so a burst of requests triggers one ``tools/list``
per upstream, not one per request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.supervisor import Collected, Supervisor


class ToolCatalog:
    """Every tool the upstreams list now (unfiltered: permissions apply per caller)."""

    def __init__(self, supervisor: Supervisor, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.supervisor = supervisor
        self.ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._collected: Collected | None = None
        self._at = 0.0

    def current(self) -> Collected:
        """The collected tools, refreshed when older than the TTL."""
        with self._lock:
            if self._collected is None or self._clock() - self._at >= self.ttl:
                self._collected = self.supervisor.collect()
                self._at = self._clock()
            return self._collected

    def tools(self) -> tuple[ToolEntry, ...]:
        return self.current().tools

    def by_key(self) -> Mapping[str, ToolEntry]:
        return {tool.key: tool for tool in self.tools()}

    def invalidate(self) -> None:
        """Forget the list (after an upstream crashed, its tools must not be offered)."""
        with self._lock:
            self._collected = None
