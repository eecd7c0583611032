"""Who may call /mcp: Host/Origin checks against DNS rebinding, then a bearer API key.

OriginGuard answers 421 HOST_NOT_ALLOWED or 403 ORIGIN_NOT_ALLOWED; AuthMiddleware
answers 401 AUTH_REQUIRED without a key and 401 AUTH_INVALID with a wrong one.
"""

from __future__ import annotations

import logging

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from docs_mcp.server.gateway import CALLER_SCOPE, Caller
from docs_mcp.server.sessions import SESSION_SCOPE
from docs_mcp.server.team.errors import HttpProblem, KeyStoreError, TeamModeError
from docs_mcp.server.team.keys import KeyReader
from docs_mcp.server.team.server_settings import TeamSettings

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
API_KEY_SCOPE = "docs_mcp.api_key"  # where the authenticated ApiKey is left for inner layers and logs

logger = logging.getLogger(__name__)

_CHALLENGE = (("WWW-Authenticate", 'Bearer realm="docs-mcp"'),)
AUTH_REQUIRED = HttpProblem(
    401,
    "AUTH_REQUIRED",
    "This server needs an API key.",
    "Provide API key via Authorization header: 'Authorization: Bearer dm_...'. "
    "An administrator creates one with `docs-mcp keys create NAME`.",
    headers=_CHALLENGE,
)
AUTH_INVALID = HttpProblem(
    401,
    "AUTH_INVALID",
    "The API key is unknown or was revoked.",
    "Check your API key, or ask an administrator for a new one (`docs-mcp keys create NAME`).",
    recoverable=False,
    headers=(("WWW-Authenticate", 'Bearer realm="docs-mcp", error="invalid_token"'),),
)
_STORE_BROKEN = HttpProblem(
    503, "SERVICE_UNAVAILABLE", "The key store cannot be read.", "Try again shortly.", retry_after=5
)


def bearer_token(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header; None when there is no usable header."""
    scheme, _, token = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class AuthMiddleware:
    """Lets a request through only with an active key, which it leaves in ``scope[API_KEY_SCOPE]``."""

    def __init__(self, app: ASGIApp, verifier: KeyReader) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = bearer_token(Headers(scope=scope))
        if token is None:
            await AUTH_REQUIRED.send(send)
            return
        try:
            key = self.verifier.verify(token)
        except KeyStoreError as error:
            logger.error("key store unreadable: %s", error.message)
            await _STORE_BROKEN.send(send)
            return
        if key is None:
            await AUTH_INVALID.send(send)
            return
        scope[API_KEY_SCOPE] = key
        scope[CALLER_SCOPE] = Caller(key_name=key.name, project=key.project)  # who the gateway's permissions see
        # The caller's session state (resolved libraries, announced tools) is keyed by its key: see server.sessions.
        scope[SESSION_SCOPE] = f"key:{key.name}@{key.created_at}"
        await self.app(scope, receive, send)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def host_patterns(settings: TeamSettings) -> tuple[str, ...] | None:
    """Accepted Host headers: configured, else loopback names when bound to loopback, else None (no check)."""
    if settings["http.allowed_hosts"]:
        return settings["http.allowed_hosts"]
    if is_loopback(settings["server.host"]):
        return _LOOPBACK_NAMES + tuple(f"{name}:*" for name in _LOOPBACK_NAMES)
    return None


def check_host_policy(settings: TeamSettings) -> None:
    """Refuse a public bind address that would accept any Host header, unless the operator said so.

    Raises:
        TeamModeError: bound to a public address, http.allowed_hosts empty, http.allow_any_host off.
    """
    if host_patterns(settings) is None and not settings["http.allow_any_host"]:
        raise TeamModeError(
            f"Refusing to serve {settings['server.host']} with http.allowed_hosts empty: any Host header would be "
            "accepted, which leaves the server open to DNS rebinding.",
            "Set http.allowed_hosts (DOCS_MCP_ALLOWED_HOSTS) to the names clients use, "
            "or pass --allow-any-host (http.allow_any_host = true) if a proxy in front checks Host.",
        )


def origin_patterns(settings: TeamSettings) -> tuple[str, ...]:
    """Accepted Origin headers: loopback origins, configured origins and the CORS origins."""
    loopback = tuple(f"http://{name}{port}" for name in _LOOPBACK_NAMES for port in ("", ":*"))
    return loopback + settings["http.allowed_origins"] + settings["http.cors_origins"]


def matches(value: str, patterns: tuple[str, ...]) -> bool:
    """``value`` equals a pattern, or a ``base:*`` pattern with any port, or the pattern is ``*``."""
    for pattern in patterns:
        if pattern in ("*", value):
            return True
        if pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit():
            return True
    return False


class OriginGuard:
    """DNS-rebinding protection: refuse unknown Host headers (421) and browser Origins (403)."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...] | None, origins: tuple[str, ...]) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if self.hosts is not None and not matches(headers.get("host", ""), self.hosts):
            await HttpProblem(
                421,
                "HOST_NOT_ALLOWED",
                "The Host header names a host this server does not serve.",
                "Add the host name to http.allowed_hosts.",
                recoverable=False,
            ).send(send)
            return
        origin = headers.get("origin")
        if origin is not None and not matches(origin, self.origins):
            await HttpProblem(
                403,
                "ORIGIN_NOT_ALLOWED",
                f"Requests from origin {origin} are not allowed.",
                "Add the origin to http.allowed_origins or http.cors_origins.",
                recoverable=False,
            ).send(send)
            return
        await self.app(scope, receive, send)
