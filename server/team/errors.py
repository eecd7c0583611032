"""What team mode (HTTP transport, keys, limits, config) says when something goes wrong.

    TeamModeError(DocsMcpError)      start-up and CLI problems: printed, non-zero exit
    ├── ConfigError                  docs-mcp.toml, DOCS_MCP_* or a flag has an invalid value
    ├── KeyStoreError                the key store file cannot be read or written
    ├── KeyExistsError               `keys create` with a name that already has an active key
    ├── KeyNotFoundError             `keys revoke` with a name that has no active key
    └── RateLimiterUnavailableError  Redis cannot be reached

``HttpProblem`` is the other half: the JSON body of a refused HTTP request
(401, 403, 404, 405, 413, 429, 503).  Its shape is the spec's error format
(``code``, ``message``, ``recoverable``, ``suggestion``, ``retryAfter``) and it
also carries a JSON-RPC error envelope, so MCP clients, which only read
JSON-RPC, show the message to the agent instead of a bare status code.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from starlette.types import Receive, Scope, Send

from docs_mcp.errors import DocsMcpError

# JSON-RPC "server error" range (-32000..-32099) is reserved for implementation-defined errors.
_RPC_CODES = {
    "AUTH_REQUIRED": -32001,
    "AUTH_INVALID": -32001,
    "RATE_LIMITED": -32002,
    "ORIGIN_NOT_ALLOWED": -32003,
    "HOST_NOT_ALLOWED": -32003,
    "SESSION_NOT_FOUND": -32600,
    "METHOD_NOT_ALLOWED": -32600,
    "PAYLOAD_TOO_LARGE": -32600,
    "SERVICE_UNAVAILABLE": -32603,
}


class TeamModeError(DocsMcpError):
    """Base of the errors of team mode that stop a command or the server's start."""


class ConfigError(TeamModeError):
    """A configuration value (file, environment or flag) is invalid."""

    exit_code = 2


class KeyStoreError(TeamModeError):
    """The API key store cannot be opened, read or written."""


class KeyExistsError(TeamModeError):
    """An active key already has this name."""


class KeyNotFoundError(TeamModeError):
    """No active key has this name."""


class RateLimiterUnavailableError(TeamModeError):
    """The shared rate-limit store (Redis) does not answer."""


@dataclass(frozen=True)
class HttpProblem:
    """A refused HTTP request: status, the spec's error fields and extra response headers."""

    status: int
    code: str
    message: str
    suggestion: str
    recoverable: bool = True
    retry_after: int | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> bytes:
        """The JSON body: the spec's error object plus a JSON-RPC error envelope."""
        fields: dict[str, object] = {
            "code": self.code,
            "message": self.message,
            "recoverable": self.recoverable,
            "suggestion": self.suggestion,
        }
        if self.retry_after is not None:
            fields["retryAfter"] = self.retry_after
        rpc_error = {
            "code": _RPC_CODES.get(self.code, -32603),
            "message": f"{self.code}: {self.message} {self.suggestion}",
        }
        return orjson.dumps({**fields, "jsonrpc": "2.0", "id": None, "error": rpc_error})

    async def send(self, send: Send, extra_headers: list[tuple[bytes, bytes]] | None = None) -> None:
        """Write this problem as the complete HTTP response."""
        body = self.body()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *((name.lower().encode(), value.encode()) for name, value in self.headers),
            *(extra_headers or []),
        ]
        if self.retry_after is not None:
            headers.append((b"retry-after", str(self.retry_after).encode()))
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer as an ASGI app, so a problem can stand in for the app that refused."""
        await self.send(send)
