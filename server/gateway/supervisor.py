"""Every upstream server, run in an event loop of its own, behind a blocking API.

The gateway is called from MCP handlers (worker threads of the stdio or HTTP server), from
``docs-mcp eval`` and from benchmarks; upstream sessions must outlive any one of those
callers' requests (stateless HTTP runs a server per request). So the sessions live in a
private event loop on a portal thread, started with the first request that needs an upstream,
and ended by ``close``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskStatus
from anyio.from_thread import BlockingPortal, start_blocking_portal

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.gateway.catalog_bounds import bound_catalog, bound_result
from docs_mcp.server.gateway.errors import ToolNotFoundError, UpstreamTimeoutError, UpstreamUnavailableError
from docs_mcp.server.gateway.gateway_config import GatewayConfig
from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.upstream import Upstream, UpstreamStatus

STOP_TIMEOUT = 10.0


@dataclass(frozen=True)
class Collected:
    """The tools of every running upstream, and why the others gave none."""

    tools: tuple[ToolEntry, ...]
    problems: Mapping[str, str]  # server -> message
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # server -> what the catalog bounds cut


class Supervisor:
    """Starts upstreams on demand, lists their tools, forwards calls, reports their status."""

    def __init__(self, config: GatewayConfig, log_dir: Path, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock`` times restart back-offs (tests freeze it to hold an upstream in its back-off)."""
        self.config = config
        self._guard = threading.Lock()
        self._stack: ExitStack | None = None
        self._portal: BlockingPortal | None = None
        self._upstreams = {
            spec.name: Upstream(spec, config.settings, log_dir, config.base_dir, clock) for spec in config.upstreams
        }
        self._done: anyio.Event | None = None
        self._running: Future[None] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.config.upstreams)

    def collect(self) -> Collected:
        """``tools/list`` of every enabled upstream, concurrently; a failing one is left out with its reason."""
        return self._run(self._collect)

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """``tools/call`` on ``server``.

        Raises:
            ToolNotFoundError: no upstream has that name.
            UpstreamUnavailableError, UpstreamTimeoutError, UpstreamError: from the upstream.
        """
        return self._run(self._call, server, tool, arguments)

    def status_of(self, server: str) -> UpstreamStatus | None:
        """The state of one upstream (None if there is none of that name)."""
        upstream = self._upstreams.get(server)
        return upstream.status() if upstream is not None else None

    def statuses(self) -> list[UpstreamStatus]:
        """The state of every configured upstream, in config order (none is started for this)."""
        # Plain attribute reads: no need to start the event loop, or to wait for it.
        return [self._upstreams[name].status() for name in self.names]

    def close(self) -> None:
        """Stop every upstream session and the event loop; safe to call twice."""
        with self._guard:
            if self._portal is not None and self._done is not None:
                self._portal.call(self._done.set)
                if self._running is not None:
                    self._running.result(timeout=STOP_TIMEOUT)
            if self._stack is not None:
                self._stack.close()
            self._stack = self._portal = self._done = self._running = None

    # -- event loop side -------------------------------------------------------------------

    def _run(self, func: Any, *args: Any) -> Any:
        return self._start().call(func, *args)

    def _start(self) -> BlockingPortal:
        with self._guard:
            if self._portal is None:
                stack = ExitStack()
                portal = stack.enter_context(start_blocking_portal())
                try:
                    self._running, _ = portal.start_task(self._hold_group)
                except BaseException:
                    stack.close()
                    raise
                self._stack, self._portal = stack, portal
            return self._portal

    async def _hold_group(self, *, task_status: TaskStatus[None]) -> None:
        """The task group every upstream's tasks run in, alive until ``close``."""
        async with anyio.create_task_group() as group:
            for upstream in self._upstreams.values():
                upstream.attach(group)
            self._done = anyio.Event()
            task_status.started()
            await self._done.wait()
            for upstream in self._upstreams.values():
                await upstream.stop()
            # Sessions close on their stop event (the SDK shields a stdio server's shutdown);
            # what is left are restarts waiting out a backoff.
            group.cancel_scope.cancel()

    async def _collect(self) -> Collected:
        results: dict[str, tuple[ToolEntry, ...]] = {}
        problems: dict[str, str] = {}
        notes: dict[str, tuple[str, ...]] = {}
        settings = self.config.settings
        # One deadline per upstream for starting it and listing its tools (a retry after a broken connection included).
        deadline = settings.start_timeout + settings.list_timeout

        async def one(upstream: Upstream) -> None:
            name = upstream.spec.name
            try:
                with anyio.fail_after(deadline):
                    listed = await upstream.list_tools()
            except TimeoutError:
                problems[name] = (
                    f"Upstream {name!r} did not start and list its tools within {deadline:g} s (gateway.start_timeout + gateway.list_timeout)."
                )
                return
            except DocsMcpError as error:
                problems[name] = error.message
                return
            bounded = bound_catalog(name, [_entry(name, tool) for tool in listed], settings.bounds)
            upstream.offered(len(bounded.tools), bounded.notes)
            results[name] = bounded.tools
            if bounded.notes:
                notes[name] = bounded.notes

        async with anyio.create_task_group() as group:
            for name in self.names:
                if self._upstreams[name].spec.enabled:
                    group.start_soon(one, self._upstreams[name])
        tools = tuple(entry for name in self.names for entry in sorted(results.get(name, ()), key=lambda e: e.name))
        return Collected(tools, problems, notes)

    async def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        upstream = self._upstreams.get(server)
        if upstream is None:
            raise ToolNotFoundError(f"{server}:{tool}")
        if not upstream.spec.enabled:
            raise UpstreamUnavailableError(f"Upstream {server!r} is disabled.", "Enable it in the config file.")
        timeout = self.config.settings.call_timeout
        try:
            with anyio.fail_after(timeout):  # one deadline for the call, a restart of the server included
                result = await upstream.call_tool(tool, arguments)
        except TimeoutError:
            raise UpstreamTimeoutError(
                f"Upstream {server!r} did not answer within {timeout:g} s (starting it included).",
                "Retry later, or ask for less (gateway.call_timeout sets the limit).",
            ) from None
        return bound_result(server, tool, result, self.config.settings.max_result_bytes)


def _entry(server: str, tool: types.Tool) -> ToolEntry:
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
    return ToolEntry(
        server=server,
        name=tool.name,
        description=(tool.description or "").strip(),
        input_schema=dict(tool.input_schema or {}),
        output_schema=dict(tool.output_schema) if tool.output_schema else None,
        annotations=annotations or None,
        title=tool.title or (annotations or {}).get("title", "") or "",
    )
