"""Tool arguments checked against the tool schemas by hand, with messages an agent can act on.

The low-level MCP server does not validate arguments, and a JSON Schema
validator's messages say what is wrong but not what to send instead.
``null`` for an optional argument counts as leaving it out: agents send that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from docs_mcp.server.errors import CONTROL_CHARACTERS, InvalidArgumentError, InvalidChunkIdError, quoted, quoted_list
from docs_mcp.server.contract.schemas import (
    DEFAULT_CONTEXT,
    DEFAULT_LIMIT,
    GET_DOC,
    MAX_CONTEXT,
    MAX_LIMIT,
    SEARCH_ARGUMENTS,
    SEARCH_DOCS,
)

MAX_QUERY_CHARS = 2_000
MAX_CHUNK_ID_CHARS = 2_048
MAX_SHOWN_DIGITS = 20
# {filepath} or {filepath}#{heading-path}: one '#' at most, no whitespace around the ID
# or inside the fragment, no control characters. File names may hold inner spaces; the
# indexer skips files whose path has '#' or a control character, so every ID it makes fits.
_CHUNK_ID = re.compile(r"(?=\S)[^#\x00-\x1f\x7f]*[^#\s\x00-\x1f\x7f](?:#[^#\s\x00-\x1f\x7f]+)?")
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}


@dataclass(frozen=True)
class SearchArgs:
    """search_docs arguments after checking: a non-empty query, a page size, filters."""

    query: str
    limit: int
    cursor: str | None
    filters: Mapping[str, str]


@dataclass(frozen=True)
class GetDocArgs:
    """get_doc arguments after checking."""

    chunk_id: str
    context: int


def parse_search_args(arguments: Mapping[str, Any] | None, filters: Mapping[str, tuple[str, ...]]) -> SearchArgs:
    """Check search_docs arguments against its schema; ``filters`` maps each taxonomy key to its values.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, or of the wrong type or range.
    """
    given = present(SEARCH_DOCS, arguments, (*SEARCH_ARGUMENTS, *filters))
    return SearchArgs(
        query=_query(given),
        limit=integer(given, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        cursor=string(given, "cursor"),
        filters={key: _choice(given, key, values) for key, values in filters.items() if key in given},
    )


def parse_get_doc_args(arguments: Mapping[str, Any] | None) -> GetDocArgs:
    """Check get_doc arguments against its schema and the chunk-ID grammar.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, or of the wrong type or range.
        InvalidChunkIdError: ``chunk_id`` is not ``{filepath}`` or ``{filepath}#{heading-path}``.
    """
    given = present(GET_DOC, arguments, ("chunk_id", "context"))
    example = "a chunk ID from search_docs, e.g. 'guides/retries.md#backoff-strategy'"
    chunk_id = required_string(given, "chunk_id", example)
    if len(chunk_id) > MAX_CHUNK_ID_CHARS:
        raise InvalidArgumentError(
            f"Argument 'chunk_id' is {len(chunk_id)} characters long; chunk IDs are at most {MAX_CHUNK_ID_CHARS}.",
            "Use search_docs to discover valid chunk IDs.",
        )
    if not _CHUNK_ID.fullmatch(chunk_id):
        raise InvalidChunkIdError(chunk_id)
    return GetDocArgs(chunk_id, integer(given, "context", DEFAULT_CONTEXT, 0, MAX_CONTEXT))


def present(tool: str, arguments: Mapping[str, Any] | None, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The arguments that were given (not null), after refusing anything but an object and names the schema does not have."""
    if arguments is not None and not isinstance(arguments, Mapping):
        raise InvalidArgumentError(f"Arguments of {tool} must be an object.", "Pass named arguments.")
    arguments = arguments or {}
    unknown = sorted(name for name in arguments if name not in allowed)
    if unknown:
        names = quoted_list(unknown)
        raise InvalidArgumentError(
            f"Unknown argument{'s' if len(unknown) > 1 else ''} {names} for {tool}.",
            f"Use only these arguments: {', '.join(allowed)}.",
        )
    return {name: value for name, value in arguments.items() if value is not None}


def visible_text(text: str) -> str:
    """``text`` with control characters as spaces, stripped: they carry no meaning for search and trip up tokenizers."""
    return CONTROL_CHARACTERS.sub(" ", text).strip()


def _query(given: Mapping[str, Any]) -> str:
    example = "the words to search for, e.g. 'how to paginate' or 'RateLimitError'"
    query = visible_text(required_string(given, "query", example))
    if not query:
        raise InvalidArgumentError("Argument 'query' is empty.", f"Pass {example}.")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgumentError(
            f"Argument 'query' is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}.",
            "Search with the key words or identifiers rather than whole passages.",
        )
    return query


def required_string(given: Mapping[str, Any], name: str, example: str) -> str:
    if name not in given:
        raise InvalidArgumentError(f"Missing required argument '{name}'.", f"Pass {example}.")
    return string(given, name) or ""


def string(given: Mapping[str, Any], name: str) -> str | None:
    value = given.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidArgumentError(
            f"Argument '{name}' must be a string, not {json_type(value)}.", "Pass it as a string."
        )
    return value


def integer(given: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = given.get(name, default)
    # JSON Schema counts 5.0 as an integer; a boolean is not one, although Python says so.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(
            f"Argument '{name}' must be an integer, not {json_type(value)}.",
            f"Pass a whole number from {low} to {high}, or leave it out for {default}.",
        )
    if not low <= value <= high:
        raise InvalidArgumentError(
            f"Argument '{name}' must be between {low} and {high}, got {_number(value)}.",
            f"Pass a whole number from {low} to {high}, or leave it out for {default}.",
        )
    return value


def _choice(given: Mapping[str, Any], name: str, values: tuple[str, ...]) -> str:
    value = string(given, name)
    if value not in values:
        raise InvalidArgumentError(
            f"Argument '{name}' must be one of: {', '.join(values)}; got {quoted(value)}.",
            f"Pick one of those values, or leave '{name}' out to search every {name}.",
        )
    return value


def _number(value: int) -> str:
    # str() of an integer past 4,300 digits raises, and a long one is no help to read anyway.
    return str(value) if abs(value) < 10**MAX_SHOWN_DIGITS else f"an integer of more than {MAX_SHOWN_DIGITS} digits"


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else type(value).__name__)
