"""tool_execute: a call of a tool found with tool_discovery, forwarded to its upstream server after the permission
and status checks; the upstream's result is relayed as it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.arguments import json_type, present
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.gateway.records import Caller
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.meta_tools import TOOL_KEY, meta_spec, tool_key

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway

NAME = "tool_execute"
DESCRIPTION = "Use it to run a tool found with tool_discovery: pass its tool_key and its arguments. Returns the tool's own result."
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool_key": TOOL_KEY,
        "arguments": {
            "type": "object",
            "description": "The tool's arguments, as its input schema says (describe_tool detail='schema').",
        },
    },
    "required": ["tool_key"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ExecuteArgs:
    tool_key: str
    arguments: Mapping[str, Any]


def parse(arguments: Mapping[str, Any] | None) -> ExecuteArgs:
    """Check tool_execute arguments (the tool's own arguments are the upstream's to check).

    Raises:
        InvalidArgumentError: tool_key is missing or malformed, or arguments is not an object.
    """
    given = present(NAME, arguments, tuple(SCHEMA["properties"]))
    tool_arguments = given.get("arguments", {})
    if not isinstance(tool_arguments, Mapping):
        raise InvalidArgumentError(
            f"Argument 'arguments' must be an object, not {json_type(tool_arguments)}.",
            "Pass the tool's arguments by name, e.g. arguments={'repo': 'api'}.",
        )
    return ExecuteArgs(tool_key(given), dict(tool_arguments))


def run(
    gateway: Gateway, caller: Caller, arguments: Mapping[str, Any] | None, request_id: str | None = None
) -> types.CallToolResult:
    """The upstream's result of the call, as is; audited whatever the outcome (without the tool's arguments, unless configured).

    Raises:
        InvalidArgumentError, ArgsTooLargeError, PermissionDeniedError, ToolNotFoundError: refused here.
        UpstreamUnavailableError, UpstreamTimeoutError, UpstreamError: the upstream failed.
    """
    with gateway.audited(NAME, caller, request_id, arguments) as fields:
        args = parse(arguments)
        fields["tool_key"] = args.tool_key
        return gateway.execute(caller, args.tool_key, args.arguments, fields)


def spec(context: ToolContext) -> ToolSpec[Any]:
    """tool_execute; slow: it waits on the upstream server."""
    return meta_spec(context, types.Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA), run, slow=True)
