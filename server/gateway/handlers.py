"""The meta-tools as MCP handlers: who calls (from the transport), one gateway call, the result or error shape."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, Callable, Mapping

import anyio
import mcp_types as types
import orjson

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.gateway.records import CALLER_SCOPE, LOCAL_CALLER, REQUEST_ID_SCOPE, Caller
from docs_mcp.server.gateway.schemas import DESCRIBE_TOOL, LIST_TOOL_EXAMPLES, TOOL_DISCOVERY, TOOL_EXECUTE, UPSTREAM_STATUS
from docs_mcp.server.gateway.service import Gateway
from docs_mcp.server.core.tool_errors import error_shape, render_error

logger = logging.getLogger(__name__)


def caller_of(request: Any) -> Caller:
    """The caller of an MCP request: the local user over stdio (no HTTP request), else whom team mode's
    auth layer named; an HTTP request it did not name is an anonymous, untrusted caller (denied)."""
    if request is None:
        return LOCAL_CALLER
    caller = getattr(request, "scope", {}).get(CALLER_SCOPE)
    return caller if isinstance(caller, Caller) else Caller()


def request_id_of(request: Any, rpc_id: Any) -> str | None:
    """The HTTP request ID (X-Request-Id, as in the access log), else the JSON-RPC request ID."""
    scoped = getattr(request, "scope", {}).get(REQUEST_ID_SCOPE) if request is not None else None
    return scoped or (str(rpc_id) if rpc_id is not None else None)


def _operation(gateway: Gateway, name: str) -> Callable[[Caller, Mapping[str, Any] | None, str | None], Any]:
    operations = {
        TOOL_DISCOVERY: gateway.discover,
        TOOL_EXECUTE: gateway.execute,
        DESCRIBE_TOOL: gateway.describe,
        LIST_TOOL_EXAMPLES: gateway.examples,
        UPSTREAM_STATUS: lambda caller, arguments, request_id: gateway.status(caller),
    }
    return operations[name]


async def call_gateway_tool(gateway: Gateway, name: str, arguments: Mapping[str, Any] | None, request: Any,
                            rpc_id: Any) -> types.CallToolResult:
    """Run meta-tool ``name``; tool_execute answers with the upstream's result as is, the others with JSON."""
    run = partial(_operation(gateway, name), caller_of(request), arguments, request_id_of(request, rpc_id))
    try:
        answer = await anyio.to_thread.run_sync(run)
    except DocsMcpError as error:
        return _error(error)
    except Exception as error:  # noqa: BLE001 - a bug becomes a message, not a dropped connection
        logger.exception("%s failed", name)
        return _error(error)
    if isinstance(answer, types.CallToolResult):
        return answer
    text = orjson.dumps(answer, option=orjson.OPT_INDENT_2).decode()
    return types.CallToolResult(content=[types.TextContent(text=text)])


def _error(error: BaseException) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=render_error(error))], structured_content=error_shape(error),
                                is_error=True)
