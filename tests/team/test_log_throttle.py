"""The bound on repeated connection-level log lines (server/team/log_throttle.py), on a clock the test moves."""

from __future__ import annotations

import logging

from docs_mcp.server.team.log_throttle import BURST, WINDOW_SECONDS, RepeatThrottle


def _record(message: str, logger: str = "docs_mcp.connections", level: int = logging.WARNING) -> logging.LogRecord:
    return logging.LogRecord(logger, level, __file__, 1, message, (), None)


def test_a_repeated_connection_warning_passes_a_burst_a_minute_then_is_counted() -> None:
    now = [0.0]
    throttle = RepeatThrottle(clock=lambda: now[0])
    records = [_record("connection closed") for _ in range(25)]
    assert [throttle.filter(record) for record in records] == [True] * (BURST + 1) + [False] * (25 - BURST - 1)
    assert records[BURST].getMessage() == (
        f"connection closed (repeated {BURST} times: more of these are counted, "
        f"not logged, for up to {WINDOW_SECONDS:g} s)"
    )
    assert throttle.filter(_record("another message"))  # counted per message
    assert all(
        throttle.filter(_record("request", "docs_mcp.access", logging.INFO)) for _ in range(50)
    )  # not about connections
    now[0] = WINDOW_SECONDS
    next_window = _record("connection closed")
    assert throttle.filter(next_window) and next_window.fields == {"suppressed": 25 - BURST - 1}
