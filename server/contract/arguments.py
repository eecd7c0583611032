"""The arguments of search_docs and get_doc, checked with the one validator (server.core.arguments).

What only the contract knows: the query's length, the chunk-ID grammar, the taxonomy filters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from docs_mcp.server.core.arguments import choice, integer, present, required_string, string, visible_text
from docs_mcp.server.errors import InvalidArgumentError, InvalidChunkIdError
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
# {filepath} or {filepath}#{heading-path}: one '#' at most, no whitespace around the ID
# or inside the fragment, no control characters. File names may hold inner spaces; the
# indexer skips files whose path has '#' or a control character, so every ID it makes fits.
_CHUNK_ID = re.compile(r"(?=\S)[^#\x00-\x1f\x7f]*[^#\s\x00-\x1f\x7f](?:#[^#\s\x00-\x1f\x7f]+)?")


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


def parse_search_args(
    arguments: Mapping[str, Any] | None, filters: Mapping[str, tuple[str, ...]], *, tool: str = SEARCH_DOCS, more: tuple[str, ...] = ()
) -> SearchArgs:
    """Check search_docs arguments against its schema; ``filters`` maps each taxonomy key to its values.

    ``tool`` and ``more`` (its other argument names, checked by the caller) serve a tool that takes
    search_docs's arguments and more.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, or of the wrong type or range.
    """
    given = present(tool, arguments, (*SEARCH_ARGUMENTS, *more, *filters))
    return SearchArgs(
        query=_query(given),
        limit=integer(given, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        cursor=string(given, "cursor"),
        filters={key: choice(given, key, values) for key, values in filters.items() if key in given},
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
