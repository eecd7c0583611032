"""tool_discovery: the connected MCP servers' tools ranked for what the caller's task needs (the catalog's own
index and search engine), with why each matched."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.arguments import integer, json_type, present, string
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.gateway.records import Caller
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.meta_tools import READ_ONLY, meta_spec

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway

NAME = "tool_discovery"
MAX_QUERIES = 5
MAX_QUERY_CHARS = 500
MAX_CONTEXT_CHARS = 2_000
MAX_RESULTS = 50

DESCRIPTION = (
    "Use it when a task needs a tool you do not see in your list (another MCP server's): finds tools of "
    "the connected MCP servers by what they do. Returns tool keys ('server:tool') ranked by relevance (0-1), with why "
    "each matched. Then call describe_tool for its schema and tool_execute to run it."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_QUERY_CHARS},
            "minItems": 1,
            "maxItems": MAX_QUERIES,
            "description": "What the tool should do, in a few words; several phrasings may help.",
        },
        "context": {
            "type": "string",
            "maxLength": MAX_CONTEXT_CHARS,
            "description": "The task at hand (used by a remote search service).",
        },
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": 10},
    },
    "required": ["query"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class DiscoveryArgs:
    queries: tuple[str, ...]
    context: str
    max_results: int


def parse(arguments: Mapping[str, Any] | None) -> DiscoveryArgs:
    """Check tool_discovery arguments; a single string is taken as a one-query list.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = present(NAME, arguments, tuple(SCHEMA["properties"]))
    if "query" not in given:
        raise InvalidArgumentError(
            "Missing required argument 'query'.", "Pass what the tool should do, e.g. query=['create an issue']."
        )
    raw = given["query"]
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list) or not all(isinstance(q, str) for q in raw):
        raise InvalidArgumentError(
            f"Argument 'query' must be a list of strings, not {json_type(given['query'])}.",
            "Pass e.g. query=['send a message to a channel'].",
        )
    queries = tuple(dict.fromkeys(q.strip() for q in raw if q.strip()))
    if not queries:
        raise InvalidArgumentError("Argument 'query' is empty.", "Pass at least one non-blank query.")
    if len(queries) > MAX_QUERIES or any(len(q) > MAX_QUERY_CHARS for q in queries):
        raise InvalidArgumentError(
            f"Argument 'query' takes at most {MAX_QUERIES} queries of {MAX_QUERY_CHARS} characters.",
            "Say what the tool does in a few words.",
        )
    context = (string(given, "context") or "").strip()
    if len(context) > MAX_CONTEXT_CHARS:
        raise InvalidArgumentError(
            f"Argument 'context' is {len(context)} characters long; the limit is {MAX_CONTEXT_CHARS}.",
            "Summarise the task.",
        )
    return DiscoveryArgs(queries, context, integer(given, "max_results", SCHEMA))


def run(
    gateway: Gateway, caller: Caller, arguments: Mapping[str, Any] | None, request_id: str | None = None
) -> dict[str, Any]:
    """The caller's available tools ranked for the queries; audited whatever the outcome.

    Raises:
        InvalidArgumentError, PermissionDeniedError: bad arguments, or a caller that may use nothing.
    """
    with gateway.audited(NAME, caller, request_id, arguments) as fields:
        args = parse(arguments)
        fields["query"] = list(args.queries)
        return gateway.discover(caller, args.queries, args.context, args.max_results, fields)


def spec(context: ToolContext) -> ToolSpec[Any]:
    """tool_discovery; slow: the catalog may list the upstream servers' tools first."""
    return meta_spec(
        context,
        types.Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA, annotations=READ_ONLY),
        run,
        slow=True,
    )
