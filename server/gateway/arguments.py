"""Arguments of the meta-tools checked against their schemas, worded like every other tool's mistakes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from docs_mcp.server.core.arguments import integer, json_type, present, required_string, string
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.gateway.errors import InvalidDetailError
from docs_mcp.server.gateway.schemas import (
    DESCRIBE_TOOL,
    DETAILS,
    LIST_TOOL_EXAMPLES,
    MAX_CONTEXT_CHARS,
    MAX_QUERIES,
    MAX_QUERY_CHARS,
    MAX_TOOL_KEY_CHARS,
    SCHEMAS,
    TOOL_DISCOVERY,
    TOOL_EXECUTE,
)


_NAMES = {tool: tuple(schema["properties"]) for tool, schema in SCHEMAS.items()}  # each meta-tool's argument names


@dataclass(frozen=True)
class DiscoveryArgs:
    queries: tuple[str, ...]
    context: str
    max_results: int


@dataclass(frozen=True)
class ExecuteArgs:
    tool_key: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class DescribeArgs:
    tool_key: str
    detail: str


@dataclass(frozen=True)
class ExamplesArgs:
    tool_key: str
    max: int


def parse_discovery_args(arguments: Mapping[str, Any] | None) -> DiscoveryArgs:
    """Check tool_discovery arguments; a single string is taken as a one-query list.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = present(TOOL_DISCOVERY, arguments, _NAMES[TOOL_DISCOVERY])
    if "query" not in given:
        raise InvalidArgumentError("Missing required argument 'query'.", "Pass what the tool should do, e.g. query=['create an issue'].")
    raw = given["query"]
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list) or not all(isinstance(q, str) for q in raw):
        raise InvalidArgumentError(f"Argument 'query' must be a list of strings, not {json_type(given['query'])}.",
                                   "Pass e.g. query=['send a message to a channel'].")
    queries = tuple(dict.fromkeys(q.strip() for q in raw if q.strip()))
    if not queries:
        raise InvalidArgumentError("Argument 'query' is empty.", "Pass at least one non-blank query.")
    if len(queries) > MAX_QUERIES or any(len(q) > MAX_QUERY_CHARS for q in queries):
        raise InvalidArgumentError(f"Argument 'query' takes at most {MAX_QUERIES} queries of {MAX_QUERY_CHARS} characters.",
                                   "Say what the tool does in a few words.")
    context = (string(given, "context") or "").strip()
    if len(context) > MAX_CONTEXT_CHARS:
        raise InvalidArgumentError(f"Argument 'context' is {len(context)} characters long; the limit is {MAX_CONTEXT_CHARS}.",
                                   "Summarise the task.")
    return DiscoveryArgs(queries, context, integer(given, "max_results", SCHEMAS[TOOL_DISCOVERY]))


def parse_execute_args(arguments: Mapping[str, Any] | None) -> ExecuteArgs:
    """Check tool_execute arguments (the tool's own arguments are the upstream's to check).

    Raises:
        InvalidArgumentError: tool_key is missing or malformed, or arguments is not an object.
    """
    given = present(TOOL_EXECUTE, arguments, _NAMES[TOOL_EXECUTE])
    tool_arguments = given.get("arguments", {})
    if not isinstance(tool_arguments, Mapping):
        raise InvalidArgumentError(f"Argument 'arguments' must be an object, not {json_type(tool_arguments)}.",
                                   "Pass the tool's arguments by name, e.g. arguments={'repo': 'api'}.")
    return ExecuteArgs(_tool_key(given), dict(tool_arguments))


def parse_describe_args(arguments: Mapping[str, Any] | None) -> DescribeArgs:
    """Check describe_tool arguments.

    Raises:
        InvalidArgumentError: tool_key is missing or malformed.
        InvalidDetailError: detail is not summary, schema or full.
    """
    given = present(DESCRIBE_TOOL, arguments, _NAMES[DESCRIBE_TOOL])
    tool_key = _tool_key(given)
    detail = given.get("detail", "summary")
    if detail not in DETAILS:
        raise InvalidDetailError(detail)
    return DescribeArgs(tool_key, detail)


def parse_examples_args(arguments: Mapping[str, Any] | None) -> ExamplesArgs:
    """Check list_tool_examples arguments.

    Raises:
        InvalidArgumentError: tool_key is missing or malformed, or max is out of range.
    """
    given = present(LIST_TOOL_EXAMPLES, arguments, _NAMES[LIST_TOOL_EXAMPLES])
    return ExamplesArgs(_tool_key(given), integer(given, "max", SCHEMAS[LIST_TOOL_EXAMPLES]))


def _tool_key(given: Mapping[str, Any]) -> str:
    tool_key = required_string(given, "tool_key", "a tool key 'server:tool' from tool_discovery").strip()
    if ":" not in tool_key.strip(":") or len(tool_key) > MAX_TOOL_KEY_CHARS:
        raise InvalidArgumentError(f"Tool key {tool_key[:MAX_TOOL_KEY_CHARS]!r} is not 'server:tool'.",
                                   "Use a tool_key exactly as tool_discovery returned it.")
    return tool_key
