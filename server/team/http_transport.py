"""`docs-mcp serve --transport http`: the MCP server over streamable HTTP, for a team behind a load balancer.

Layers of a request to /mcp, outside in: access log (request ID) -> CORS ->
in-flight count -> Host/Origin check -> body size cap -> API key -> rate limit -> method name
length -> session check -> the MCP SDK's session manager in stateless mode.  Stateless means no
session lives in a process, so any replica answers any request and a restart
loses nothing; a request that still carries a session ID gets 404, which tells
a client (per the MCP spec) to initialize again.  GET /healthz is open to probes.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from docs_mcp import __version__
from docs_mcp.indexer.fleet.control import default_replica_name
from docs_mcp.server.app import SLOW_TOOLS, ServerSettings, build_server, open_live
from docs_mcp.server.capacity import ToolCapacity
from docs_mcp.server.gateway import Gateway
from docs_mcp.server.team.auth import AuthMiddleware, OriginGuard, check_host_policy, host_patterns, origin_patterns
from docs_mcp.server.team.body_limit import BodyLimit
from docs_mcp.server.team.connections import ConnectionGuard, ConnectionLimits, GuardedH11Protocol, connection_limits
from docs_mcp.server.team.errors import HttpProblem, TeamModeError
from docs_mcp.server.team.fleet_mode import open_key_reader, replica_agent
from docs_mcp.server.team.health import readiness, served_generation
from docs_mcp.server.team.keys import KeyReader
from docs_mcp.server.team.logs import REQUEST_ID_HEADER, AccessLogMiddleware, configure_logging, log_event
from docs_mcp.server.team.method_names import MethodNameGuard
from docs_mcp.server.team.ratelimit import Limit, Limiter, RateLimitMiddleware, check_redis, open_limiter
from docs_mcp.server.team.server_settings import TeamSettings, load_settings

MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"
_CORS_HEADERS = (
    "authorization",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    REQUEST_ID_HEADER,
)
_EXPOSED_HEADERS = (
    "mcp-session-id",
    "retry-after",
    REQUEST_ID_HEADER,
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
)

SESSION_NOT_FOUND = HttpProblem(
    404,
    "SESSION_NOT_FOUND",
    "This server keeps no sessions, so it does not know this session ID (the server may have restarted).",
    "Start a new session: send initialize without an Mcp-Session-Id header.",
)
NO_EVENT_STREAM = HttpProblem(
    405,
    "METHOD_NOT_ALLOWED",
    "This server is stateless and has no server-to-client event stream (GET /mcp).",
    "Send requests with POST /mcp; responses come back on the same request.",
    headers=(("Allow", "POST, DELETE"),),
)


class SessionGuard:
    """What a stateless server answers about sessions: 404 for any session ID, 405 for the GET stream."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if Headers(scope=scope).get("mcp-session-id") is not None:
            await SESSION_NOT_FOUND.send(send)
        elif scope["method"] == "GET":
            await NO_EVENT_STREAM.send(send)
        else:
            await self.app(scope, receive, send)


@dataclass
class Traffic:
    """Requests to /mcp being served now, and whether the process is draining after SIGTERM."""

    in_flight: int = 0
    draining: bool = False


class CountInFlight:
    """Keeps ``Traffic.in_flight`` up to date for /healthz (and for people watching a drain)."""

    def __init__(self, app: ASGIApp, traffic: Traffic) -> None:
        self.app, self.traffic = app, traffic

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.traffic.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.traffic.in_flight -= 1


def create_app(
    server: Server[Any],
    settings: TeamSettings,
    verifier: KeyReader,
    limiter: Limiter,
    traffic: Traffic | None = None,
    checks: Mapping[str, Callable[[], dict[str, Any]]] | None = None,
    capacity: ToolCapacity | None = None,
) -> Starlette:
    """The ASGI app: /mcp behind the guards, /healthz open (``checks``: more readiness checks; ``capacity``: the load it
    reports), CORS and the access log around both."""
    traffic = traffic or Traffic()
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,  # one JSON answer per POST: nothing to stream, simplest for proxies
        # OriginGuard checks Host/Origin before authentication; the SDK's copy of the check is off.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    default = Limit(settings["rate_limit.requests_per_minute"], settings["rate_limit.burst"])
    mcp: ASGIApp = MethodNameGuard(SessionGuard(manager.handle_request))
    mcp = BodyLimit(AuthMiddleware(RateLimitMiddleware(mcp, limiter, default), verifier))
    mcp = CountInFlight(OriginGuard(mcp, host_patterns(settings), origin_patterns(settings)), traffic)

    async def healthz(request: Request) -> JSONResponse:
        report = await readiness(
            settings.index,
            verifier,
            limiter,
            shared_limits=bool(settings["rate_limit.redis_url"]),
            draining=lambda: traffic.draining,
            extra=checks,
            capacity=capacity.load if capacity else None,
        )
        return JSONResponse(report.body(traffic.in_flight), status_code=200 if report.ready else 503)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with manager.run():
                yield
        finally:
            await limiter.close()

    middleware = [Middleware(AccessLogMiddleware, quiet_paths=frozenset({HEALTH_PATH}))]
    if settings["http.cors_origins"]:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings["http.cors_origins"]),
                allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                allow_headers=list(_CORS_HEADERS),
                expose_headers=list(_EXPOSED_HEADERS),
            )
        )
    routes = [Route(HEALTH_PATH, healthz, methods=["GET"]), Route(MCP_PATH, mcp)]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


class DrainingServer(uvicorn.Server):
    """uvicorn, but SIGTERM/SIGINT mark the server draining and a clean drain exits with status 0."""

    def __init__(self, config: uvicorn.Config, traffic: Traffic) -> None:
        super().__init__(config)
        self.traffic = traffic

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.traffic.draining = True
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn re-raises the signal after shutting down, so the process would die of SIGTERM
        # even after a clean drain; here it returns and the command exits 0.
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def listen(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: a free port) with a queue of ``backlog`` connections.

    Raises:
        OSError: the host does not resolve or the address cannot be bound.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
    )[0]
    # proto must be IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on such sockets, and
    # without it Nagle + delayed ACKs add ~40 ms to every answer on a keep-alive connection.
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # rebind at once after a restart
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def run_http(
    index: Path | None = None,
    server_settings: ServerSettings | None = None,
    *,
    host: str | None = None,
    port: int | None = None,
    config_file: Path | None = None,
    redis_url: str | None = None,
    log_format: str | None = None,
    log_level: str | None = None,
    gateway: Gateway | None = None,
    allow_any_host: bool | None = None,
    search_workers: int | None = None,
) -> None:
    """Serve the index (and the ``gateway``'s meta-tools, if any) over streamable HTTP until SIGTERM/SIGINT, then drain and return.

    ``index``, ``host``, ``port``, ``redis_url``, ``log_format``, ``log_level``,
    ``allow_any_host`` and ``search_workers`` are command-line flags: None means "not given", so the environment, the config
    file or the default decides.

    Raises:
        ConfigError: a configuration value is invalid.
        TeamModeError: the address cannot be bound, is public without allowed hosts, or Redis does not answer.
        DocsMcpError: the index cannot be opened (from build_server).
    """
    flags = {
        "server.index": str(index) if index is not None else None,
        "server.host": host,
        "server.port": port,
        "rate_limit.redis_url": redis_url,
        "logging.format": log_format,
        "logging.level": log_level,
        "http.allow_any_host": allow_any_host,
        "server.search_workers": search_workers,
    }
    settings = load_settings(flags, config_file=config_file)
    check_host_policy(settings)
    configure_logging(settings["logging.level"], settings["logging.format"], settings.secrets)
    server_settings = replace(
        server_settings or ServerSettings(),
        cursor_secret=settings.cursor_secret,
        search_workers=settings.search_workers,
        sessions_redis_url=settings["rate_limit.redis_url"],
        sessions_redis_prefix=settings["rate_limit.redis_prefix"],
        slow_threads=settings["server.slow_threads"],
        slow_calls_per_caller=settings["server.slow_calls_per_key"],
    )
    agent = replica_agent(settings)  # a fleet replica: the registry's live generation, pulled and verified first
    if agent is not None:
        agent.bootstrap()
        server_settings = replace(server_settings, retain_generations=agent.settings.cursor_lifetime)
    live = open_live(settings.index, server_settings)
    capacity = ToolCapacity(SLOW_TOOLS, server_settings.slow_threads, server_settings.slow_calls_per_caller)
    server = build_server(settings.index, server_settings, gateway, live=live, capacity=capacity)
    verifier = open_key_reader(settings)
    limiter = open_limiter(settings["rate_limit.redis_url"], settings["rate_limit.redis_prefix"])
    if settings["rate_limit.redis_url"]:
        check_redis(settings["rate_limit.redis_url"])
    limits = connection_limits(settings["http.max_connections"], settings["http.read_timeout"])
    try:
        sock = listen(settings["server.host"], settings["server.port"], limits.backlog)
    except OSError as error:
        raise TeamModeError(
            f"Cannot listen on {settings['server.host']}:{settings['server.port']}: {error.strerror or error}.",
            "Choose another --port (or server.port), or stop the process that holds it.",
        ) from None
    traffic = Traffic()
    if agent is not None:
        port = sock.getsockname()[1]
        agent.start(live, name=default_replica_name(port), url=f"http://{settings['server.host']}:{port}")
    app = create_app(server, settings, verifier, limiter, traffic, {"fleet": agent.check} if agent else None, capacity)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        server_header=False,
        timeout_graceful_shutdown=settings["server.shutdown_timeout"],
        backlog=limits.backlog,
        # uvicorn annotates a protocol class, and calls it with keyword arguments: a partial of one serves.
        http=functools.partial(GuardedH11Protocol, guard=ConnectionGuard(limits)),  # type: ignore[arg-type]
    )
    _report_start(settings, verifier, sock, limits)
    try:
        DrainingServer(config, traffic).run(sockets=[sock])
    finally:
        if agent is not None:
            agent.stop()
        verifier.close()
    log_event("stopped", drained=traffic.in_flight == 0)


def _report_start(settings: TeamSettings, verifier: KeyReader, sock: socket.socket, limits: ConnectionLimits) -> None:
    """Log where the server listens and what it serves, and warn about settings that leave it unusable or open."""
    bound_host, bound_port = sock.getsockname()[:2]
    log_event(
        "listening",
        url=f"http://{settings['server.host']}:{bound_port}{MCP_PATH}",
        host=bound_host,
        port=bound_port,
        index=str(settings.index),
        generation=served_generation(settings.index),
        key_store="postgresql" if settings.key_store_url else str(settings.key_store),
        active_keys=verifier.active_count(),
        search_workers=settings.search_workers,
        rate_limiter="redis" if settings["rate_limit.redis_url"] else "memory",
        max_connections=limits.max_connections,
        open_files_limit=limits.open_files_limit,
        read_timeout=limits.read_timeout,
        version=__version__,
    )
    if limits.max_connections < limits.configured:
        log_event(
            f"http.max_connections lowered from {limits.configured} to {limits.max_connections} to fit the "
            f"process's file limit (RLIMIT_NOFILE {limits.open_files_limit})",
            logging.WARNING,
            hint="raise the limit (ulimit -n, LimitNOFILE= in systemd) to serve more connections at once",
        )
    if verifier.active_count() == 0:
        log_event(
            "no API keys yet: every request is refused until one is created",
            logging.WARNING,
            hint=f"docs-mcp keys create NAME --index {settings.index}",
        )
    if host_patterns(settings) is None:
        log_event(
            "Host header not checked (public address, http.allowed_hosts empty, --allow-any-host given)",
            logging.WARNING,
            hint="set http.allowed_hosts to the names clients use",
        )
