"""One upstream MCP server: started on demand, its client session held open, restarted after a crash.

A session is entered and left by one "holder" task (anyio cancel scopes must be left by the
task that entered them); callers borrow the session while the holder waits to be told to stop.
A connection that breaks marks the upstream crashed: the next restart waits a backoff (none the
first time, then 1, 2, 4 ... 30 s), and a background task restarts it when the wait is over, so
a crashed server comes back without waiting for a request. An upstream that stayed up for
``HEALTHY_AFTER`` seconds starts over with no backoff.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from docs_mcp.server.gateway.errors import UpstreamError, UpstreamTimeoutError, UpstreamUnavailableError
from docs_mcp.server.gateway.gateway_config import GatewaySettings
from docs_mcp.server.gateway.records import UpstreamSpec
from docs_mcp.server.gateway.stdio_transport import RESPONSE_TOO_LARGE, bounded_stdio

logger = logging.getLogger(__name__)

HEALTHY_AFTER = 60.0
MAX_BACKOFF = 30.0
MAX_LIST_PAGES = 50


def backoff(failures: int) -> float:
    """Seconds to wait before restart number ``failures``: 0, 1, 2, 4 ... capped at MAX_BACKOFF."""
    return 0.0 if failures <= 1 else min(2.0 ** (failures - 2), MAX_BACKOFF)


@dataclass(frozen=True)
class UpstreamStatus:
    """What ``upstream_status`` reports of one server."""

    name: str
    transport: str
    target: str
    state: str  # stopped, running, crashed, disabled
    restarts: int
    tools: int | None
    last_error: str | None
    retry_in: float | None  # seconds until the next restart may happen (crashed only)
    log: str | None  # the stdio server's stderr file
    notes: tuple[str, ...] = ()  # what the catalog bounds cut or left out of its tools


class Upstream:
    """The connection to one upstream server; its methods run in the gateway's event loop."""

    def __init__(
        self,
        spec: UpstreamSpec,
        settings: GatewaySettings,
        log_dir: Path,
        base_dir: Path = Path("."),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec
        self.base_dir = base_dir
        self.settings = settings
        self._group: TaskGroup | None = None
        self._clock = clock
        self._log = log_dir / f"{spec.name}.log"
        self._lock = anyio.Lock()
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._started_at = 0.0
        self._failures = 0
        self._restarts = 0
        self._ever_started = False
        self._retry_at = 0.0
        self._last_error: str | None = None
        self._tool_count: int | None = None
        self._notes: tuple[str, ...] = ()

    def attach(self, group: TaskGroup) -> None:
        """The task group this upstream's session and restarts run in (the supervisor's)."""
        self._group = group

    # -- calls -----------------------------------------------------------------------------

    async def list_tools(self) -> list[types.Tool]:
        """Every tool the server lists (all pages); one restart is tried if the connection broke.

        Raises:
            UpstreamUnavailableError, UpstreamTimeoutError, UpstreamError: see ``_request``.
        """
        try:
            tools = await self._request(self._all_tools, "list_timeout")
        except UpstreamTimeoutError as error:
            self._last_error = error.message  # upstream_status says why its tools are missing
            raise
        except UpstreamUnavailableError:
            if self._retry_at > self._clock():
                raise
            tools = await self._request(self._all_tools, "list_timeout")  # listing is safe to repeat
        return tools

    def offered(self, count: int, notes: tuple[str, ...]) -> None:
        """Record how many of its tools are offered after the catalog bounds, and what they cut (for upstream_status)."""
        self._tool_count, self._notes = count, notes

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """``tools/call`` on the server; never repeated (a call may not be idempotent).

        Raises:
            UpstreamUnavailableError, UpstreamTimeoutError, UpstreamError: see ``_request``.
        """
        timeout = self.settings.call_timeout
        return await self._request(
            lambda client: client.call_tool(name, arguments, read_timeout_seconds=timeout), "call_timeout"
        )

    async def _all_tools(self, client: Client) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        # Without a deadline a server that never answers tools/list would hold discovery forever.
        with anyio.fail_after(self.settings.list_timeout):
            for _ in range(MAX_LIST_PAGES):
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        return tools

    async def _request(self, send: Callable[[Client], Any], limit: str) -> Any:
        """Run ``send`` on a live session, translating every failure to a gateway error.

        ``limit`` names the setting that bounds ``send`` (call_timeout, passed to the SDK;
        list_timeout, a deadline around the listing), for the timeout error's words.

        Raises:
            UpstreamUnavailableError: the server is disabled, cannot start, or its connection broke.
            UpstreamTimeoutError: it did not answer within that limit.
            UpstreamError: it answered with a JSON-RPC error.
        """
        client = await self._ensure_started()
        try:
            return await send(client)
        except (MCPError, TimeoutError) as error:
            if isinstance(error, TimeoutError) or error.code == types.REQUEST_TIMEOUT:
                raise UpstreamTimeoutError(
                    f"Upstream {self.spec.name!r} did not answer within {getattr(self.settings, limit):g} s.",
                    f"Retry later, or ask for less (gateway.{limit} sets the limit).",
                ) from None
            if error.code == RESPONSE_TOO_LARGE:
                raise UpstreamError(
                    f"Upstream {self.spec.name!r}: {error.message}",
                    "Ask the tool for less (a narrower query, a page of results).",
                ) from None
            if error.code != types.CONNECTION_CLOSED:
                raise UpstreamError(
                    f"Upstream {self.spec.name!r} refused the call: {error}.",
                    "Check the arguments against describe_tool(detail='schema').",
                ) from None
            raise self._crashed(f"connection closed: {error}") from None
        except Exception as error:  # noqa: BLE001 - a broken pipe, a dropped HTTP connection, an unreadable answer:
            # whatever it was, the session cannot be trusted any more; a new one is the way out.
            raise self._crashed(f"{error.__class__.__name__}: {error}") from None

    # -- lifecycle -------------------------------------------------------------------------

    async def _ensure_started(self) -> Client:
        if not self.spec.enabled:
            raise UpstreamUnavailableError(f"Upstream {self.spec.name!r} is disabled.", "Enable it in the config file.")
        async with self._lock:
            if self._client is not None:
                return self._client
            wait = self._retry_at - self._clock()
            if wait > 0:
                raise UpstreamUnavailableError(
                    f"Upstream {self.spec.name!r} crashed ({self._last_error}); it restarts in {math.ceil(wait)} s.",
                    "Retry after that; upstream_status shows its state.",
                )
            try:
                with anyio.fail_after(self.settings.start_timeout):
                    assert self._group is not None, "attach() first"
                    client = await self._group.start(self._hold)
            except Exception as error:  # noqa: BLE001 - any start failure (spawn, handshake, timeout) is reported alike
                raise self._crashed(f"could not start: {_reason(error)}") from None
            self._restarts += self._ever_started
            self._ever_started = True
            return client

    async def _hold(self, *, task_status: TaskStatus[Client]) -> None:
        """Enter the client session, hand it out, and keep it until told to stop."""
        stop = anyio.Event()
        started = False
        try:
            async with Client(self._transport(), mode="legacy", cache=None) as client:
                self._client, self._stop, self._started_at = client, stop, self._clock()
                started = True
                task_status.started(client)
                await stop.wait()
        except Exception as error:  # noqa: BLE001 - after start, a broken session must not take the group down
            if not started:
                raise
            logger.info("upstream %s session ended: %s", self.spec.name, error)
        finally:
            if self._stop is stop:
                self._client = self._stop = None

    def _transport(self) -> Any:
        if self.spec.url:
            return self.spec.url
        # Relative paths in the command and its arguments mean "next to the config file".
        params = StdioServerParameters(
            command=self.spec.command, args=list(self.spec.args), env=dict(self.spec.env) or None, cwd=self.base_dir
        )
        return _stdio(params, self._log, self.settings.max_message_bytes)

    def _crashed(self, reason: str) -> UpstreamUnavailableError:
        """Record a failure, drop the session, schedule the restart; returns the error to raise."""
        now = self._clock()
        if self._client is not None and now - self._started_at >= HEALTHY_AFTER:
            self._failures = 0
        self._failures += 1
        delay = backoff(self._failures)
        self._retry_at = now + delay
        self._last_error = reason
        if self._stop is not None:
            self._stop.set()
        self._client = self._stop = None
        logger.warning("upstream %s failed (%s); restart in %.0f s", self.spec.name, reason, delay)
        if self._group is not None:
            self._group.start_soon(self._restart_later, delay)
        return UpstreamUnavailableError(
            f"Upstream {self.spec.name!r} is unavailable ({reason}); it is being restarted.",
            "Retry the call; upstream_status shows when the server is back.",
        )

    async def _restart_later(self, delay: float) -> None:
        await anyio.sleep(delay)
        try:
            await self._ensure_started()
        except UpstreamUnavailableError:
            pass  # _crashed already scheduled the next attempt

    async def stop(self) -> None:
        """Close the session (a stdio server is terminated by the SDK's transport)."""
        async with self._lock:
            if self._stop is not None:
                self._stop.set()

    def status(self) -> UpstreamStatus:
        now = self._clock()
        if not self.spec.enabled:
            state = "disabled"
        elif self._client is not None:
            state = "running"
        else:
            state = "crashed" if self._last_error and self._failures else "stopped"
        return UpstreamStatus(
            name=self.spec.name,
            transport=self.spec.transport,
            target=self.spec.describe(),
            state=state,
            restarts=self._restarts,
            tools=self._tool_count,
            last_error=self._last_error,
            retry_in=round(max(self._retry_at - now, 0.0), 1) if state == "crashed" else None,
            log=str(self._log) if self.spec.transport == "stdio" else None,
            notes=self._notes,
        )


@asynccontextmanager
async def _stdio(params: StdioServerParameters, log: Path, max_message_bytes: int) -> AsyncIterator[Any]:
    """The bounded stdio transport, with the server's stderr appended to ``log`` (our own stderr may carry other output)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as errlog:
        async with bounded_stdio(params, errlog, max_message_bytes) as streams:
            yield streams


def _reason(error: BaseException) -> str:
    """The innermost cause of a failed start (task groups wrap it in ExceptionGroups)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{error.__class__.__name__}: {error}".rstrip(": ")
