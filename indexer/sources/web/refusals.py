"""Pages recently refused as not documentation, so a retry gets the same answer without a fetch.

A page refused for its content (binary, too large, no text, HTML nested too deep) would be
refused again: fetching and parsing it on every call (a 5 MB page nested 5,000 levels deep
takes the better part of a second to parse) would only let a caller burn the server's time.
The refusal is kept for ``ttl`` seconds, in memory, for at most ``capacity`` URLs (the oldest
dropped first).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from docs_mcp.indexer.sources.errors import InvalidContentError

DEFAULT_TTL = 600.0
DEFAULT_CAPACITY = 1000


class Refusals:
    """URL -> the InvalidContentError it got, until it expires; thread-safe."""

    def __init__(
        self, ttl: float = DEFAULT_TTL, capacity: int = DEFAULT_CAPACITY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self._capacity = capacity
        self._clock = clock
        self._lock = threading.Lock()
        self._refused: OrderedDict[str, tuple[float, InvalidContentError]] = OrderedDict()

    def check(self, url: str) -> None:
        """Raise the refusal ``url`` got, if it is recent.

        Raises:
            InvalidContentError: the page was refused within the last ``ttl`` seconds.
        """
        with self._lock:
            entry = self._refused.get(url)
            if entry is None:
                return
            until, error = entry
            if self._clock() >= until:
                del self._refused[url]
                return
        minutes = max(1, round((until - self._clock()) / 60))
        raise InvalidContentError(
            error.message, f"{error.hint} (This answer is remembered for {minutes} more minute(s).)"
        )

    def remember(self, url: str, error: InvalidContentError) -> None:
        with self._lock:
            self._refused[url] = (self._clock() + self.ttl, error)
            self._refused.move_to_end(url)
            while len(self._refused) > self._capacity:
                self._refused.popitem(last=False)
