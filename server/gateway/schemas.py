"""The gateway's meta-tools as MCP tools: names, descriptions and input schemas (seed 002, seed 004)."""

from __future__ import annotations

from typing import Any

import mcp_types as types

TOOL_DISCOVERY = "tool_discovery"
TOOL_EXECUTE = "tool_execute"
DESCRIBE_TOOL = "describe_tool"
LIST_TOOL_EXAMPLES = "list_tool_examples"
UPSTREAM_STATUS = "upstream_status"
GATEWAY_TOOLS = (TOOL_DISCOVERY, TOOL_EXECUTE, DESCRIBE_TOOL, LIST_TOOL_EXAMPLES, UPSTREAM_STATUS)
# The meta-tools that wait on upstream servers (a call, or a listing for discovery): threads of their own (capacity.py).
SLOW_META_TOOLS = frozenset({TOOL_DISCOVERY, TOOL_EXECUTE})

MAX_QUERIES = 5
MAX_QUERY_CHARS = 500
MAX_CONTEXT_CHARS = 2_000
DEFAULT_MAX_RESULTS = 10
MAX_RESULTS = 50
MAX_TOOL_KEY_CHARS = 200
DETAILS = ("summary", "schema", "full")
DEFAULT_EXAMPLES = 3

_TOOL_KEY = {"type": "string", "maxLength": MAX_TOOL_KEY_CHARS, "description": "A tool key 'server:tool' from tool_discovery."}

SCHEMAS: dict[str, dict[str, Any]] = {
    TOOL_DISCOVERY: {
        "type": "object",
        "properties": {
            "query": {"type": "array", "items": {"type": "string", "maxLength": MAX_QUERY_CHARS}, "minItems": 1,
                      "maxItems": MAX_QUERIES, "description": "What the tool should do, in a few words; several phrasings may help."},
            "context": {"type": "string", "maxLength": MAX_CONTEXT_CHARS, "description": "The task at hand (used by a remote search service)."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_MAX_RESULTS},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    TOOL_EXECUTE: {
        "type": "object",
        "properties": {
            "tool_key": _TOOL_KEY,
            "arguments": {"type": "object", "description": "The tool's arguments, as its input schema says (describe_tool detail='schema')."},
        },
        "required": ["tool_key"],
        "additionalProperties": False,
    },
    DESCRIBE_TOOL: {
        "type": "object",
        "properties": {
            "tool_key": _TOOL_KEY,
            "detail": {"type": "string", "enum": list(DETAILS), "default": "summary",
                       "description": "summary: a few lines; schema: plus the input/output schemas; full: plus notes and examples."},
        },
        "required": ["tool_key"],
        "additionalProperties": False,
    },
    LIST_TOOL_EXAMPLES: {
        "type": "object",
        "properties": {"tool_key": _TOOL_KEY, "max": {"type": "integer", "minimum": 1, "maximum": 5, "default": DEFAULT_EXAMPLES}},
        "required": ["tool_key"],
        "additionalProperties": False,
    },
    UPSTREAM_STATUS: {"type": "object", "properties": {}, "additionalProperties": False},
}

# Each opens with when to use the tool (agents pick tools by their descriptions), then what it returns.
DESCRIPTIONS = {
    TOOL_DISCOVERY: "Use it when a task needs a tool you do not see in your list (another MCP server's): finds tools of "
    "the connected MCP servers by what they do. Returns tool keys ('server:tool') ranked by relevance (0-1), with why "
    "each matched. Then call describe_tool for its schema and tool_execute to run it.",
    TOOL_EXECUTE: "Use it to run a tool found with tool_discovery: pass its tool_key and its arguments. Returns the "
    "tool's own result.",
    DESCRIBE_TOOL: "Use it before tool_execute, to learn a tool's arguments: detail 'summary' (short), 'schema' (input "
    "and output schemas) or 'full' (plus notes and examples).",
    LIST_TOOL_EXAMPLES: "Use it when a tool's schema leaves you unsure how to call it: worked examples, each a title and "
    "the arguments to pass, ready for tool_execute.",
    UPSTREAM_STATUS: "Use it when a connected server's tools fail or are missing: the state of each connected MCP server "
    "(running, stopped, crashed and when it restarts) and its tool count.",
}

_READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def gateway_tools() -> list[types.Tool]:
    """The meta-tools, in a fixed order (clients that freeze their tool list keep working)."""
    return [
        types.Tool(name=name, description=DESCRIPTIONS[name], input_schema=SCHEMAS[name],
                   annotations=None if name == TOOL_EXECUTE else _READ_ONLY)
        for name in GATEWAY_TOOLS
    ]
