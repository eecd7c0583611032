"""list_tool_examples: worked examples of a tool from the tool docs, each a title and the arguments to pass."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.arguments import integer, present
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.gateway.records import Caller
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.meta_tools import READ_ONLY, TOOL_KEY, meta_spec, tool_key

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway

NAME = "list_tool_examples"
DESCRIPTION = (
    "Use it when a tool's schema leaves you unsure how to call it: worked examples, each a title and "
    "the arguments to pass, ready for tool_execute."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"tool_key": TOOL_KEY, "max": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3}},
    "required": ["tool_key"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ExamplesArgs:
    tool_key: str
    max: int


def parse(arguments: Mapping[str, Any] | None) -> ExamplesArgs:
    """Check list_tool_examples arguments.

    Raises:
        InvalidArgumentError: tool_key is missing or malformed, or max is out of range.
    """
    given = present(NAME, arguments, tuple(SCHEMA["properties"]))
    return ExamplesArgs(tool_key(given), integer(given, "max", SCHEMA))


def run(
    gateway: Gateway, caller: Caller, arguments: Mapping[str, Any] | None, request_id: str | None = None
) -> dict[str, Any]:
    """Up to ``max`` worked examples from the tool docs.

    Raises:
        InvalidArgumentError, ToolNotFoundError.
    """
    with gateway.audited(NAME, caller, request_id, None) as fields:
        args = parse(arguments)
        fields["tool_key"] = args.tool_key
        return gateway.examples(caller, args.tool_key, args.max)


def spec(context: ToolContext) -> ToolSpec[Any]:
    return meta_spec(
        context, types.Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA, annotations=READ_ONLY), run
    )
