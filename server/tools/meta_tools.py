"""What the gateway's meta-tools share (corpus/guide/gateway.md#the-meta-tools): who calls (from the transport), the tool key argument,
the read-only annotation, and the spec of a tool that reads no index and runs on the gateway."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.arguments import required_string
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.gateway.records import CALLER_SCOPE, LOCAL_CALLER, REQUEST_ID_SCOPE, Caller
from docs_mcp.server.tools.context import ToolContext

if TYPE_CHECKING:  # the gateway's service loads only for a server that has upstream servers
    from docs_mcp.server.gateway import Gateway

MAX_TOOL_KEY_CHARS = 200
TOOL_KEY = {
    "type": "string",
    "maxLength": MAX_TOOL_KEY_CHARS,
    "description": "A tool key 'server:tool' from tool_discovery.",
}
READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)

# A meta-tool's work: the gateway, the caller, the arguments as sent, the request ID for the audit log.
Operation = Callable[["Gateway", Caller, Mapping[str, Any] | None, "str | None"], Any]


def tool_key(given: Mapping[str, Any]) -> str:
    """The ``tool_key`` argument: 'server:tool', as tool_discovery returned it.

    Raises:
        InvalidArgumentError: it is missing or malformed.
    """
    key = required_string(given, "tool_key", "a tool key 'server:tool' from tool_discovery").strip()
    if ":" not in key.strip(":") or len(key) > MAX_TOOL_KEY_CHARS:
        raise InvalidArgumentError(
            f"Tool key {key[:MAX_TOOL_KEY_CHARS]!r} is not 'server:tool'.",
            "Use a tool_key exactly as tool_discovery returned it.",
        )
    return key


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


def meta_spec(context: ToolContext, listed: types.Tool, run: Operation, *, slow: bool = False) -> ToolSpec[Any]:
    """A meta-tool over ``context.gateway``: it reads no index, checks its arguments inside ``run`` (so the audit
    log records a refused call too), and answers with JSON (tool_execute relays the upstream's result as is)."""
    return ToolSpec(
        listed.name,
        describe=lambda metadata: listed,
        parse=lambda arguments, index: arguments,
        run=lambda arguments, call: run(
            context.needed_gateway(), caller_of(call.request), arguments, request_id_of(call.request, call.request_id)
        ),
        leases_index=False,
        slow=slow,
    )
