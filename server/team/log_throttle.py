"""A bound on repeated connection-level log lines: a flood of connections must not become a flood of log.

Warnings about connections (ours, uvicorn's "Invalid HTTP request received.", asyncio's
"socket.accept() out of system resource" with its traceback) come once per connection, so
a client can make a replica write as much log as it likes. Per message, at most ``burst``
such lines a ``window`` pass; the next one says the rest are being counted, and the first
line of the following window carries how many were left out (``suppressed``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

THROTTLED_LOGGERS = ("asyncio", "uvicorn.error", "docs_mcp.connections")
BURST = 10  # lines of one message per window
WINDOW_SECONDS = 60.0
_MAX_MESSAGES = 256  # distinct messages tracked; past it, windows restart (a bound on the throttle's own memory)


@dataclass
class _Window:
    started: float
    passed: int = 0
    suppressed: int = 0


class RepeatThrottle(logging.Filter):
    """Passes at most ``burst`` records of one message a ``window`` from the connection-level loggers."""

    def __init__(
        self, burst: int = BURST, window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.burst, self.window, self.clock = burst, window, clock
        self._windows: dict[str, _Window] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or not record.name.startswith(THROTTLED_LOGGERS):
            return True
        key = f"{record.name}:{str(record.msg).partition(chr(10))[0][:200]}"
        now = self.clock()
        window = self._windows.get(key)
        if window is None or now - window.started >= self.window:
            if len(self._windows) >= _MAX_MESSAGES:
                self._windows.clear()
            self._windows[key] = _Window(now, passed=1)
            if window is not None and window.suppressed:
                record.fields = {**getattr(record, "fields", {}), "suppressed": window.suppressed}
            return True
        window.passed += 1
        if window.passed <= self.burst:
            return True
        if window.passed > self.burst + 1:
            window.suppressed += 1
            return False
        # The first one past the burst says so, short (no traceback): the rest are only counted.
        record.msg = (
            f"{str(record.msg).partition(chr(10))[0]} (repeated {self.burst} times: more of these are counted, "
            f"not logged, for up to {self.window:g} s)"
        )
        record.args, record.exc_info, record.exc_text = (), None, None
        return True
