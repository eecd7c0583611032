"""Connection limits of the HTTP server: a cap under the process's file limit, and a time limit to send a request.

uvicorn alone holds a connection that never finishes its headers for ever (its keep-alive
timeout starts only after a first answer), and its ``limit_concurrency`` answers 503 only once
headers have arrived, still holding the descriptor and logging a warning per request. Idle
connections by the thousand then use up RLIMIT_NOFILE: accept() fails, asyncio logs each
failure, and the index, PostgreSQL and Redis can no longer be opened either. So, per process:

- at most ``max_connections`` connections are open, fewer than RLIMIT_NOFILE by the files the
  server opens itself and by the connections one accept burst (``backlog``) may bring in before
  the cap is checked; past the cap a new connection closes the oldest connection that has no
  request running (an idle or slow one), or, when every one is busy, is answered 503 at once;
- each request (its headers and body) must arrive within ``read_timeout`` seconds of the
  connection, or of the previous answer, or the connection is closed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from docs_mcp.server.team.errors import HttpProblem, TeamModeError

logger = logging.getLogger("docs_mcp.connections")

RESERVED_FILES = 64  # files the server may open after start: new generations, PostgreSQL, Redis, worker pipes
MIN_CONNECTIONS = 16
_MAX_BACKLOG = 128
TOO_MANY_CONNECTIONS = HttpProblem(
    503,
    "TOO_MANY_CONNECTIONS",
    "This server holds as many connections as it may, each with a request running.",
    "Try again in a moment; reuse one connection for several requests.",
    retry_after=1,
)
_REASONS = {503: "Service Unavailable"}


@dataclass(frozen=True)
class ConnectionLimits:
    """The connection cap, the time to send a request, and the file limit the cap was derived from."""

    max_connections: int
    read_timeout: float
    backlog: int  # the listen queue, and the most connections one accept burst takes before any is checked
    open_files_limit: int  # RLIMIT_NOFILE (soft) of this process
    configured: int  # http.max_connections, before the file limit lowered it


def connection_limits(configured: int, read_timeout: float) -> ConnectionLimits:
    """The limits for this process: ``configured`` connections at most, fewer if RLIMIT_NOFILE leaves less room.

    Raises:
        TeamModeError: the file limit leaves room for fewer than MIN_CONNECTIONS connections.
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = soft if soft != resource.RLIM_INFINITY else 1 << 20
    backlog = max(8, min(_MAX_BACKLOG, files // 32))
    # Connections past the cap are closed a loop turn or two after their burst: four bursts of head-room.
    room = files - _open_now() - RESERVED_FILES - 4 * backlog
    if room < MIN_CONNECTIONS:
        needed = files - room + MIN_CONNECTIONS
        raise TeamModeError(
            f"This process may open only {files} files (RLIMIT_NOFILE), too few to serve HTTP: "
            f"{max(room, 0)} connections would be left after the server's own files.",
            f"Raise the limit to at least {needed} (`ulimit -n 4096` in the shell that starts the server, "
            "or LimitNOFILE=4096 in its systemd unit).",
        )
    return ConnectionLimits(min(configured, room), read_timeout, backlog, files, configured)


def _open_now() -> int:
    """Descriptors this process has open (0 where the system does not list them)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return 0


class ConnectionGuard:
    """The open connections of one server, oldest first, and the cap on them."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.open: dict[GuardedH11Protocol, None] = {}  # a dict keeps the order connections came in

    def admit(self, connection: GuardedH11Protocol) -> bool:
        """Count ``connection`` in, closing the oldest one without a running request if the cap is reached;
        False (refuse it) when every open connection is busy."""
        if len(self.open) >= self.limits.max_connections:
            idle = next((open_one for open_one in self.open if not open_one.busy()), None)
            if idle is None:
                return False
            self.release(idle)
            idle.close("connection closed to make room: the server is at its connection limit")
        self.open[connection] = None
        return True

    def release(self, connection: GuardedH11Protocol) -> None:
        self.open.pop(connection, None)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol under a ConnectionGuard and a deadline for each request to arrive."""

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.guard.admit(self):
            self._arm()
            return
        logger.warning(
            "connection refused: the server is at its connection limit and every connection is busy",
            extra={"fields": {"max_connections": self.guard.limits.max_connections}},
        )
        body = TOO_MANY_CONNECTIONS.body()
        head = (
            f"HTTP/1.1 503 {_REASONS[503]}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"retry-after: {TOO_MANY_CONNECTIONS.retry_after}\r\nconnection: close\r\n\r\n"
        )
        transport.write(head.encode() + body)
        transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.release(self)
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if not self._receiving():
            self._disarm()  # the whole request is in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._receiving():
            self._arm()  # the next request gets its own read_timeout

    def busy(self) -> bool:
        """A request is running on this connection (an idle or half-sent one may be closed to make room)."""
        return self.cycle is not None and not self.cycle.response_complete

    def close(self, reason: str) -> None:
        """Close the connection, saying why (the log throttles this, as a flood repeats it)."""
        self._disarm()
        if not self.transport.is_closing():
            logger.warning(reason, extra={"fields": {"client": _client(self.client)}})
            self.transport.close()

    def _receiving(self) -> bool:
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.guard.limits.read_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._receiving():
            self.close(
                f"connection closed: no complete request within http.read_timeout ({self.guard.limits.read_timeout:g} s)"
            )


def _client(address: tuple[str, int] | None) -> str | None:
    return f"{address[0]}:{address[1]}" if address else None
