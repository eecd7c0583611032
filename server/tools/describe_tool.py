"""describe_tool: a tool's description at the detail asked for, from its live schema and the tool docs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.arguments import present
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.gateway.errors import InvalidDetailError
from docs_mcp.server.gateway.records import Caller
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.meta_tools import READ_ONLY, TOOL_KEY, meta_spec, tool_key

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway

NAME = "describe_tool"
DETAILS = ("summary", "schema", "full")
DESCRIPTION = (
    "Use it before tool_execute, to learn a tool's arguments: detail 'summary' (short), 'schema' (input "
    "and output schemas) or 'full' (plus notes and examples)."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool_key": TOOL_KEY,
        "detail": {
            "type": "string",
            "enum": list(DETAILS),
            "default": "summary",
            "description": "summary: a few lines; schema: plus the input/output schemas; full: plus notes and examples.",
        },
    },
    "required": ["tool_key"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class DescribeArgs:
    tool_key: str
    detail: str


def parse(arguments: Mapping[str, Any] | None) -> DescribeArgs:
    """Check describe_tool arguments.

    Raises:
        InvalidArgumentError: tool_key is missing or malformed.
        InvalidDetailError: detail is not summary, schema or full.
    """
    given = present(NAME, arguments, tuple(SCHEMA["properties"]))
    key = tool_key(given)
    detail = given.get("detail", SCHEMA["properties"]["detail"]["default"])
    if detail not in DETAILS:
        raise InvalidDetailError(detail)
    return DescribeArgs(key, detail)


def run(
    gateway: Gateway, caller: Caller, arguments: Mapping[str, Any] | None, request_id: str | None = None
) -> dict[str, Any]:
    """The tool at the requested detail.

    Raises:
        InvalidArgumentError, InvalidDetailError, ToolNotFoundError, NoToolError.
    """
    with gateway.audited(NAME, caller, request_id, None) as fields:
        args = parse(arguments)
        fields["tool_key"] = args.tool_key
        return gateway.describe(caller, args.tool_key, args.detail)


def spec(context: ToolContext) -> ToolSpec[Any]:
    return meta_spec(
        context, types.Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA, annotations=READ_ONLY), run
    )
