"""What the library tools share: the limits, the library ID property, the closed object schema, a required text
argument, and the spec of a tool that answers from the index (and its remote sources) with JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp_types import Tool

from docs_mcp.server.core.arguments import required_string, visible_text
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec, leased
from docs_mcp.server.errors import InvalidArgumentError

MAX_ID_CHARS = 200
MAX_TOPIC_CHARS = 500
MAX_LANGUAGE_CHARS = 50
# Offsets beyond any real page are still answered (with empty content); this only bounds the integer.
MAX_OFFSET = 10_000_000

LIBRARY_ID = {
    "type": "string",
    "maxLength": MAX_ID_CHARS,
    "description": "Library ID in org/project form, as resolve_library returns it (e.g. 'fastapi/fastapi').",
}
# get_docs and get_context7_docs return at most this many tokens, and at least the minimum.
TOKENS = {"type": "integer", "minimum": 500, "maximum": 10000, "default": 5000}


def closed_schema(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    """A library tool's input schema: these properties, no others (the shapes corpus/guide/libraries.md documents, in our snake_case)."""
    return {"type": "object", "additionalProperties": False, "properties": dict(properties), "required": list(required)}


def text(given: Mapping[str, Any], name: str, example: str, limit: int) -> str:
    """A required text argument: control characters as spaces, stripped, not empty, at most ``limit`` characters."""
    value = visible_text(required_string(given, name, example))
    if not value:
        raise InvalidArgumentError(f"Argument '{name}' is empty.", f"Pass {example}.")
    if len(value) > limit:
        raise InvalidArgumentError(
            f"Argument '{name}' is {len(value)} characters long; the limit is {limit}.", f"Pass {example}."
        )
    return value


def library_spec(
    name: str,
    description: str,
    schema: Mapping[str, Any],
    parse: Callable[[Mapping[str, Any] | None], Any],
    run: Callable[[ServedIndex, Any], Any],
    **options: Any,
) -> ToolSpec[Any]:
    """A library tool: the same listing for every index, its arguments checked without the index, run on the
    generation leased for the call; ``options`` are the spec's (slow, after_call)."""
    return ToolSpec(
        name,
        describe=lambda metadata: Tool(name=name, description=description, input_schema=dict(schema)),
        parse=lambda arguments, index: parse(arguments),
        run=lambda args, call: run(leased(call.index), args),
        **options,
    )
