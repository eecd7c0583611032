"""The meta-tools as registry entries: who calls (from the transport), one gateway operation per tool."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from docs_mcp.server.core.registry import ToolSpec
from docs_mcp.server.gateway.records import CALLER_SCOPE, LOCAL_CALLER, REQUEST_ID_SCOPE, Caller
from docs_mcp.server.gateway.schemas import (
    DESCRIBE_TOOL,
    GATEWAY_TOOLS,
    LIST_TOOL_EXAMPLES,
    SLOW_META_TOOLS,
    TOOL_DISCOVERY,
    TOOL_EXECUTE,
    UPSTREAM_STATUS,
    gateway_tools,
)
from docs_mcp.server.gateway.service import Gateway


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


def gateway_specs(gateway: Gateway) -> list[ToolSpec[Any]]:
    """The meta-tools as registry entries over ``gateway``: tool_execute relays the upstream's result as is,
    the others answer with JSON; each operation checks its own arguments."""
    operations: dict[str, Callable[[Caller, Mapping[str, Any] | None, str | None], Any]] = {
        TOOL_DISCOVERY: gateway.discover,
        TOOL_EXECUTE: gateway.execute,
        DESCRIBE_TOOL: gateway.describe,
        LIST_TOOL_EXAMPLES: gateway.examples,
        UPSTREAM_STATUS: lambda caller, arguments, request_id: gateway.status(caller),
    }
    listed = {tool.name: tool for tool in gateway_tools()}

    def spec(name: str) -> ToolSpec[Any]:
        operation = operations[name]
        return ToolSpec(
            name,
            describe=lambda metadata: listed[name],
            parse=lambda arguments, index: arguments,
            run=lambda arguments, call: operation(caller_of(call.request), arguments, request_id_of(call.request, call.request_id)),
            leases_index=False,
            slow=name in SLOW_META_TOOLS,
        )

    return [spec(name) for name in GATEWAY_TOOLS]
