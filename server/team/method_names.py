"""Requests whose JSON-RPC method name is longer than any MCP method are answered here, over HTTP.

The SDK answers an unknown method with "Method not found" and the whole name as the error's
data: a megabyte echoed for a megabyte sent. stdio's guard answers such lines itself
(server/stdio_guard.py); this layer does the same for a POST to /mcp: it reads the body (the
body limit outside it bounds that), and answers a request with a too-long method name with
the same short error, a notification with 202 and nothing. Anything else goes on, its body
replayed unchanged.
"""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from docs_mcp.server.stdio_guard import long_method
from docs_mcp.server.team.asgi_body import replay_body


class MethodNameGuard:
    """Answers (with a short error) a JSON-RPC request whose method name is too long; passes the rest on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to answer
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:
            value = None
        refused = long_method(value) if isinstance(value, dict) else None
        if refused is None:
            await self.app(scope, replay_body(bytes(body), receive), send)
        elif refused.request_id is None:
            await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
        else:
            answer = refused.reply().message.model_dump_json(by_alias=True, exclude_none=True).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": answer})
