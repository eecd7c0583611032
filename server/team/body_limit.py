"""A cap on the size of a request body, so one POST cannot make a replica buffer gigabytes.

The MCP SDK reads the whole body of a POST before parsing it. stdio caps a message at
MAX_MESSAGE_BYTES (server/stdio_guard.py); over HTTP the same cap applies to a body, checked on
the Content-Length header when there is one and on the bytes actually received otherwise
(chunked uploads, or a client that sends more than it announced).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docs_mcp.server.stdio_guard import MAX_MESSAGE_BYTES
from docs_mcp.server.team.errors import HttpProblem


def too_large(limit: int) -> HttpProblem:
    return HttpProblem(
        413,
        "PAYLOAD_TOO_LARGE",
        f"The request body is larger than {limit} bytes, the most this server reads.",
        "Send one JSON-RPC message per POST; a tool call needs a few KB.",
        recoverable=False,
    )


class _Overflow(Exception):
    """The body grew past the limit while the app was reading it."""


class BodyLimit:
    """Refuses (413) a request whose body is, or turns out to be, larger than ``limit`` bytes."""

    def __init__(self, app: ASGIApp, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            await too_large(self.limit).send(send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise _Overflow
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _Overflow:
            if started:  # too late to answer 413; the connection is dropped instead
                raise
            await too_large(self.limit).send(send)
