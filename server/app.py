"""The MCP server: a factory that wires the index to the low-level SDK server, and the stdio runner.

The low-level ``Server`` is used on purpose: the tool schemas are built at run
time from the index's taxonomy, and tool errors must reach the client with
exactly our text (MCPServer prefixes them).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
import orjson

from docs_mcp import __version__
from docs_mcp.server.capacity import DEFAULT_SLOW_PER_CALLER, DEFAULT_SLOW_THREADS, TooBusyError, ToolCapacity
from docs_mcp.server.contract.cursor import cursor_generation
from docs_mcp.server.core.live_index import LiveIndex, ServedIndex
from docs_mcp.server.core.mcp_sdk import MCPError, Server, ServerRequestContext, without_idle_tracing
from docs_mcp.server.core.tool_registry import ToolAnswer, ToolCall, ToolRegistry, ToolSpec
from docs_mcp.server.errors import quoted
from docs_mcp.server.instructions import IndexSummary, server_instructions
from docs_mcp.server.libraries import prompts, resources
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.sessions import LOCAL_SESSION, SESSION_SCOPE, SessionStore, SessionValues, redis_sessions
from docs_mcp.server.stdio_guard import guarded_stdio
from docs_mcp.server.tools.offered import SLOW_TOOLS, tool_list, tool_registry

if TYPE_CHECKING:  # the gateway's modules load only for a server that has upstream servers
    from docs_mcp.server.gateway import Gateway

logger = logging.getLogger(__name__)

SERVER_NAME = "docs-mcp"


@dataclass(frozen=True)
class ServerSettings:
    """How the server ranks and runs; the defaults suit a per-session stdio server."""

    mode: Mode = Mode.hybrid
    # Shared by every replica behind one balancer; empty: cursor keys derive from the index alone.
    cursor_secret: bytes = b""
    # Load the query model in the background at start (unless mode is bm25) instead of on the first search.
    warm: bool = True
    # Search worker processes (server/search/pool.py); 0: searches run in this process's threads.
    search_workers: int = 0
    # Seconds a replaced generation stays open to answer the cursors it issued (a fleet replica: the cursor lifetime).
    retain_generations: float = 0.0
    # Redis holding the per-session state (resolved libraries, announced tools) shared by replicas; empty: this process.
    sessions_redis_url: str = ""
    sessions_redis_prefix: str = "docs-mcp"
    # Tools that wait on remote sites or upstream servers: threads of their own, and calls at once per caller (capacity.py).
    slow_threads: int = DEFAULT_SLOW_THREADS
    slow_calls_per_caller: int = DEFAULT_SLOW_PER_CALLER


@dataclass
class AnnouncedTools:
    """The tool list each session last received (its digest), so it can be told when an index swap changes it."""

    seen: SessionValues[str] = field(default_factory=SessionStore)

    @classmethod
    def in_redis(cls, url: str, prefix: str) -> AnnouncedTools:
        return cls(redis_sessions(url, prefix, "tools", str.encode, bytes.decode))

    def record(self, session: str, index: ServedIndex) -> None:
        self.seen.put(session, _tools_digest(index))

    def changed(self, session: str, index: ServedIndex) -> bool:
        """Whether the session saw another list than ``index``'s; the new one counts as announced from now on."""
        previous, now = self.seen.get(session), _tools_digest(index)
        if previous == now:
            return False  # the common case: nothing to store (with Redis, no write a call)
        self.seen.put(session, now)
        return previous is not None


def _tools_digest(index: ServedIndex) -> str:
    """The digest of a generation's tool list, computed once per generation (40 us: it was paid on every call)."""

    def digest() -> str:
        return hashlib.sha256(orjson.dumps([tool.model_dump(mode="json") for tool in index.tools])).hexdigest()

    return index.derived(_tools_digest, digest)


@dataclass(frozen=True)
class AppState:
    """What every request handler needs: the live index, the tools, the remote sources and the settings."""

    live: LiveIndex
    settings: ServerSettings
    sources: Sources
    registry: ToolRegistry
    gateway: Gateway | None = None
    capacity: ToolCapacity = field(default_factory=lambda: ToolCapacity(SLOW_TOOLS))
    sessions: resources.LibrarySessions = field(default_factory=resources.LibrarySessions)
    announced: AnnouncedTools = field(default_factory=AnnouncedTools)


def open_live(index_dir: Path | str, settings: ServerSettings) -> LiveIndex:
    """The live index a server built with ``settings`` serves (a fleet replica opens it first, to prepare generations).

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    return LiveIndex(
        Path(index_dir),
        secret=settings.cursor_secret,
        tool_list=tool_list,
        warm=settings.mode,
        workers=settings.search_workers,
        retain=settings.retain_generations,
    )


def build_server(
    index_dir: Path | str,
    settings: ServerSettings | None = None,
    gateway: Gateway | None = None,
    live: LiveIndex | None = None,
    capacity: ToolCapacity | None = None,
) -> Server[AppState]:
    """A server for the index at ``index_dir``, opened now so a bad index fails before serving.

    With a ``gateway`` (owned and closed by the caller), the meta-tools over its upstream
    servers' tools are offered too. ``live``: the index from ``open_live``, when the caller needs it too.
    ``capacity`` (default: one from ``settings``) bounds the slow tools; team mode passes its own, to report
    its load on /healthz.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    settings = settings or ServerSettings()
    live = live or open_live(index_dir, settings)
    served = live.current()
    # Hybrid and fusion search fall back to full text on an index without vectors: the log says what really ranks.
    full_text = settings.mode in ("hybrid", "fusion") and not served.engine.has_vectors
    logger.info(
        "serving %s (generation %s, %d chunks, %s, %s)",
        index_dir,
        served.generation,
        served.engine.size,
        "full-text ranking: the index has no vectors (built without an embedding model)"
        if full_text
        else f"{settings.mode} ranking",
        f"{settings.search_workers} search workers" if settings.search_workers else "searching in process",
    )
    if settings.mode == Mode.hybrid and served.engine.has_vectors and served.engine.ranker is None:
        logger.warning(
            "the index records no learned ranking for its embedding model: hybrid search falls back to the fusion, "
            "whose scores are not probabilities, and holds off-topic queries back by the index's own gate (over its "
            "probe questions); re-index with the packaged model, or train a ranking for this one (docs-mcp train-ranking)"
        )
    sources = Sources.opened_on_use(Path(index_dir), live)
    registry = tool_registry(settings.mode, sources, gateway)
    capacity = capacity or ToolCapacity(SLOW_TOOLS, settings.slow_threads, settings.slow_calls_per_caller)
    capacity.fetches = sources.fetch_pool  # None until a tool first reads a remote page

    @asynccontextmanager
    async def lifespan(_: Server[AppState]) -> AsyncIterator[AppState]:
        if settings.warm:
            live.warm_in_background()  # the first tools/list must not wait for the model
        try:
            yield AppState(
                live, settings, sources, registry, gateway=gateway, capacity=capacity, **_shared_sessions(settings)
            )
        finally:
            # Let a background index write of fetched pages finish, join the warm-up and close DuckDB before
            # the interpreter shuts down (else: SIGABRT, or "terminate called without an active exception").
            await anyio.to_thread.run_sync(sources.close)
            await anyio.to_thread.run_sync(live.close)

    server = Server(
        SERVER_NAME,
        version=__version__,
        # When to search, which tool first, how to read a hit: built from what the index holds (server/instructions.py).
        instructions=server_instructions(
            IndexSummary.from_metadata(served.engine.metadata), gateway=gateway is not None
        ),
        lifespan=lifespan,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,  # type: ignore[arg-type]  # the SDK types a CallToolResult; its runner takes a dict too
        on_list_resources=resources.on_list_resources,
        on_read_resource=resources.on_read_resource,
        on_list_resource_templates=resources.on_list_resource_templates,
        on_list_prompts=prompts.on_list_prompts,
        on_get_prompt=prompts.on_get_prompt,
    )
    return without_idle_tracing(server)


async def _list_tools(
    ctx: ServerRequestContext[AppState], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    state = ctx.lifespan_context
    index = await anyio.to_thread.run_sync(state.live.current)
    state.announced.record(resources.session_key(ctx), index)
    # In gateway mode the upstream tools stay behind the meta-tools, never in this list.
    return types.ListToolsResult(tools=[*index.tools, *state.registry.fixed_tools()])


async def _call_tool(
    ctx: ServerRequestContext[AppState], params: types.CallToolRequestParams
) -> types.CallToolResult | dict[str, Any]:
    """A tool's answer: a relayed result as the model it came as, ours as the SDK would dump it (ToolAnswer.wire)."""
    state = ctx.lifespan_context
    spec = state.registry.get(params.name)
    if spec is None:
        # An unknown tool is protocol misuse (the client did not use tools/list), not a tool error.
        available = state.registry.names
        raise MCPError(
            types.INVALID_PARAMS,
            f"Unknown tool {quoted(params.name)}. Call one of the available tools: {', '.join(available)}.",
        )
    try:
        async with state.capacity.claim(params.name, _caller(ctx.request)) as threads:
            return await _answer(ctx, state, spec, params, threads)
    except TooBusyError as busy:
        return spec.refusal(busy).wire()


async def _answer(
    ctx: ServerRequestContext[AppState],
    state: AppState,
    spec: ToolSpec,
    params: types.CallToolRequestParams,
    threads: anyio.CapacityLimiter | None,
) -> types.CallToolResult | dict[str, Any]:
    """Run one call on ``threads`` (None: the shared ones), with a lease on the served generation if the tool reads it."""
    if not spec.leases_index:
        call = ToolCall(None, params.arguments, ctx.request, ctx.request_id)
        answer = await anyio.to_thread.run_sync(spec.answer, call, limiter=threads)
        return answer if isinstance(answer, types.CallToolResult) else answer.wire()
    generation = _issuing_generation(state.live, spec.cursor(params.arguments))

    def leased_answer() -> tuple[ServedIndex, ToolAnswer | types.CallToolResult]:
        # Lease, answer and release on one worker thread: each hop between the event loop and a thread
        # waits for the scheduler, which on a busy machine is most of a search's time.
        index = state.live.acquire(generation)
        try:
            return index, spec.answer(ToolCall(index, params.arguments, ctx.request, ctx.request_id))
        finally:
            state.live.release(index)

    if _on_the_loop(state, spec, threads):
        index, answer = leased_answer()
    else:
        index, answer = await anyio.to_thread.run_sync(leased_answer, limiter=threads)
    if isinstance(answer, types.CallToolResult):
        return answer
    if not answer.is_error and spec.after_call is not None:
        await spec.after_call(ctx, params.arguments)
    if state.announced.changed(resources.session_key(ctx), index):
        await ctx.session.send_tool_list_changed()
    # Every tool's error also carries the one structured shape {code, message, recoverable, suggestion}; a search
    # carries its SearchResult plus the libraries it searched (the text stays exactly the contract's).
    return answer.wire()


def _on_the_loop(state: AppState, spec: ToolSpec, threads: anyio.CapacityLimiter | None) -> bool:
    """Whether a call may run on the event loop instead of a worker thread: a quick tool (a full-text search, 1-2 ms)
    on a settled generation (no swap to open first), while no other call holds one of the shared threads.

    The hop to a thread and back (two wake-ups, the interpreter lock handed over twice) costs 0.2 ms of CPU a
    call; other requests wait at most one such call, and only when none runs beside it. A call on the loop cannot
    be interrupted by a cancellation, as one on a thread could not (its thread ran to the end either way).
    """
    if threads is not None or spec.quick is None:
        return False
    if anyio.to_thread.current_default_thread_limiter().borrowed_tokens:
        return False
    served = state.live.settled()
    return served is not None and spec.quick(served)


def _caller(request: Any) -> str:
    """Whose allowance a call counts against: the API key over HTTP (never a header the caller picks), the local user over stdio."""
    scope = getattr(request, "scope", None) or {}
    return str(scope.get(SESSION_SCOPE) or LOCAL_SESSION)


def _issuing_generation(live: LiveIndex, cursor: str | None) -> str | None:
    """The generation that issued a call's cursor, when this server still holds it open (a fleet replica, around a swap)."""
    return cursor_generation(cursor, live.held()) if cursor else None


def _shared_sessions(settings: ServerSettings) -> dict[str, Any]:
    """AppState's session stores in Redis when the settings name one (team mode with Redis), else none (in memory)."""
    url, prefix = settings.sessions_redis_url, settings.sessions_redis_prefix
    if not url:
        return {}
    return {
        "sessions": resources.LibrarySessions.in_redis(url, prefix),
        "announced": AnnouncedTools.in_redis(url, prefix),
    }


async def serve_stdio(
    index_dir: Path | str, settings: ServerSettings | None = None, gateway: Gateway | None = None
) -> None:
    """Serve the index (and the gateway's meta-tools, if any) over stdio until the client closes the connection."""
    server = build_server(index_dir, settings, gateway)
    try:
        async with guarded_stdio() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options(resources.NOTIFICATIONS))
    except* (BrokenPipeError, ConnectionResetError):
        # The client stopped reading (it exited, or closed its end of the pipe): nobody is left to answer.
        logger.info("the client closed the connection: stopping")


def run_stdio(index_dir: Path | str, settings: ServerSettings | None = None, gateway: Gateway | None = None) -> None:
    """Blocking entry point of ``docs-mcp serve --transport stdio``.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    anyio.run(serve_stdio, index_dir, settings, gateway)
