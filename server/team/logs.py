"""Logs on stderr: one JSON object per line (or a readable line with --log-format pretty), and the access log.

Each HTTP request is logged once, when it ends, with its request ID, the key's
*name* (never the key), the JSON-RPC method and tool, the latency and an
outcome read from the response: ``ok``, ``tool_error``, ``rpc_error``, or the
lower-cased error code of a refused request (``auth_invalid``, ``rate_limited``...).
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docs_mcp.redact import redact
from docs_mcp.server.gateway import REQUEST_ID_SCOPE
from docs_mcp.server.team.auth import API_KEY_SCOPE
from docs_mcp.server.team.log_throttle import RepeatThrottle

REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")  # a caller's ID is echoed only if it is this tame
_CAPTURE_LIMIT = 1 << 20  # bodies larger than this are not parsed for the log
_LOGGED_NAME_CHARS = 128  # of a JSON-RPC method or tool name: a caller's megabyte must not become a log line

access_logger = logging.getLogger("docs_mcp.access")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, msg, plus the record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


class PrettyFormatter(logging.Formatter):
    """A line for people: time, level, message, then key=value fields."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        fields = " ".join(f"{k}={v}" for k, v in getattr(record, "fields", {}).items() if v is not None)
        line = f"{stamp} {record.levelname:<7} {record.getMessage()} {fields}".rstrip()
        return line + ("\n" + self.formatException(record.exc_info) if record.exc_info else "")


class RedactingFormatter(logging.Formatter):
    """Another formatter's line with URL passwords and the configured secrets masked: the last net under every log line."""

    def __init__(self, inner: logging.Formatter, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self.inner, self.secrets = inner, secrets

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record), self.secrets)


def configure_logging(level: str, fmt: str, secrets: tuple[str, ...] = ()) -> None:
    """Send every log record (ours, uvicorn's, the MCP SDK's) to stderr in ``fmt`` ("json" or "pretty"), ``secrets`` masked."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(JsonFormatter() if fmt == "json" else PrettyFormatter(), secrets))
    handler.addFilter(RepeatThrottle())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # replaced by AccessLogMiddleware
    if level != "debug":
        # The SDK logs every message it processes at INFO; at a team's request rate that is noise.
        logging.getLogger("mcp").setLevel(logging.WARNING)


def log_event(message: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``message`` with structured ``fields`` (for start-up, shutdown and other events)."""
    logging.getLogger("docs_mcp").log(level, message, extra={"fields": fields})


def rpc_call(body: bytes) -> tuple[str | None, str | None]:
    """The JSON-RPC method of a request body and, for tools/call, the tool name."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(message, dict):
        return ("batch", None) if isinstance(message, list) else (None, None)
    method = message.get("method")
    params = message.get("params")
    tool = params.get("name") if method == "tools/call" and isinstance(params, dict) else None
    return _name(method), _name(tool)


def _name(value: Any) -> str | None:
    """A method or tool name as logged: at most _LOGGED_NAME_CHARS characters, then how long it was."""
    if not isinstance(value, str):
        return None
    return value if len(value) <= _LOGGED_NAME_CHARS else f"{value[:_LOGGED_NAME_CHARS]}… ({len(value)} characters)"


def outcome(status: int, content_type: str, body: bytes) -> str:
    """What happened, read from the response: ok, tool_error, rpc_error, an error code, or http_STATUS."""
    parsed: Any = None
    if content_type.startswith("application/json") and body and len(body) < _CAPTURE_LIMIT:
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
    if status >= 400:
        code = parsed.get("code") if isinstance(parsed, dict) else None
        return code.lower() if isinstance(code, str) else f"http_{status}"
    if isinstance(parsed, dict):
        if "error" in parsed:
            return "rpc_error"
        result = parsed.get("result")
        if isinstance(result, dict) and result.get("isError") is True:
            return "tool_error"
    return "ok"


class AccessLogMiddleware:
    """Gives each request an ID (echoed in X-Request-Id) and logs it once it has been answered."""

    def __init__(self, app: ASGIApp, quiet_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.quiet_paths = quiet_paths  # logged at DEBUG only: load-balancer probes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        offered = Headers(scope=scope).get(REQUEST_ID_HEADER, "")
        request_id = offered if _REQUEST_ID_RE.fullmatch(offered) else uuid.uuid4().hex
        scope[REQUEST_ID_SCOPE] = request_id  # the gateway's audit lines carry it too
        started = time.perf_counter()
        request_body, response_body = bytearray(), bytearray()
        response: dict[str, Any] = {"status": 500, "content_type": ""}

        async def capture_request() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(request_body) < _CAPTURE_LIMIT:
                request_body.extend(message.get("body", b""))
            return message

        async def capture_response(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                response.update(status=message["status"], content_type=headers.get("content-type", ""))
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
            elif message["type"] == "http.response.body" and len(response_body) < _CAPTURE_LIMIT:
                response_body.extend(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, capture_request, capture_response)
        finally:
            self._log(scope, request_id, started, bytes(request_body), response, bytes(response_body))

    def _log(
        self,
        scope: Scope,
        request_id: str,
        started: float,
        request_body: bytes,
        response: dict[str, Any],
        response_body: bytes,
    ) -> None:
        rpc, tool = rpc_call(request_body) if request_body else (None, None)
        key = scope.get(API_KEY_SCOPE)
        fields = {
            "request_id": request_id,
            "method": scope["method"],
            "path": scope["path"],
            "status": response["status"],
            "key": key.name if key is not None else None,
            "rpc": rpc,
            "tool": tool,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
            "outcome": outcome(response["status"], response["content_type"], response_body),
        }
        level = logging.DEBUG if scope["path"] in self.quiet_paths else logging.INFO
        access_logger.log(level, "request", extra={"fields": fields})
