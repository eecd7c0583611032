"""Bearer-key authentication for /mcp: 401 AUTH_REQUIRED without a key, AUTH_INVALID with a wrong one."""

from __future__ import annotations

import logging

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from docs_mcp.server.keys import KeyVerifier
from docs_mcp.server.team_errors import HttpProblem, KeyStoreError

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
_STORE_BROKEN = HttpProblem(503, "SERVICE_UNAVAILABLE", "The key store cannot be read.", "Try again shortly.", retry_after=5)


def bearer_token(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header; None when there is no usable header."""
    scheme, _, token = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class AuthMiddleware:
    """Lets a request through only with an active key, which it leaves in ``scope[API_KEY_SCOPE]``."""

    def __init__(self, app: ASGIApp, verifier: KeyVerifier) -> None:
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
        await self.app(scope, receive, send)
