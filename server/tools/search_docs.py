"""search_docs, the contract's search (corpus/guide/search-docs.md): its schema (with the index's taxonomy as filters), arguments,
run (one page of hits, the next page's cursor, the zero-hit hint) and spec.

The SearchResult text and its sizing are shared with search_docs_expanded (server/contract/render.py,
sizing.py); the structured content adds the libraries searched and each hit's provenance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import Any

import orjson
from mcp_types import Tool

from docs_mcp.indexer.libraries.spec import LIBRARY_KEY
from docs_mcp.server.contract.cursor import CursorCodec, SearchBinding
from docs_mcp.server.contract.render import search_result
from docs_mcp.server.contract.sizing import SearchAnswer, sized_hits
from docs_mcp.server.core.arguments import choice, integer, present, required_string, string, visible_text
from docs_mcp.server.core.facets import SEARCH_ARGUMENTS, filter_values
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolCall, ToolSpec, internal_error_text, leased
from docs_mcp.server.errors import InvalidArgumentError, NoVectorsError
from docs_mcp.server.libraries.answers import catalog_of
from docs_mcp.server.libraries.errors import LibraryNotFoundError
from docs_mcp.server.search.expansion import Expansions
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.search.zero_result_hints import build_hint
from docs_mcp.server.tools.context import ToolContext

NAME = "search_docs"
DEFAULT_CORPUS_DESCRIPTION = "documentation"
MAX_QUERY_CHARS = 2_000

PROPERTIES: dict[str, Any] = {
    "query": {
        "type": "string",
        "description": "The search query (e.g., 'how to paginate', 'RateLimitError').",
    },
    "limit": {
        "type": "integer",
        "description": "Maximum number of results to return. Default is 10.",
        "minimum": 1,
        "maximum": 50,
        "default": 10,
    },
    "cursor": {
        "type": "string",
        "description": (
            "Opaque pagination token returned from a previous search. "
            "Omit for the first page. Returns an error if invalid or malformed."
        ),
    },
}
# The arguments every index's schema has (the taxonomy filters join them per index).
BASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": PROPERTIES,
    "required": ["query"],
}


def schema(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The search_docs input schema: the contract's properties plus one per taxonomy key."""
    taxonomy = metadata.get("taxonomy") or {}
    properties = dict(PROPERTIES)
    for key, values in filter_values(metadata).items():
        description = (taxonomy[key] or {}).get("description") or f"Filter results by {key}."
        properties[key] = {"type": "string", "description": description, "enum": list(values)}
    return {**BASE_SCHEMA, "properties": properties}


def search_docs_description(metadata: Mapping[str, Any]) -> str:
    """The search_docs description, naming the corpus as metadata.json describes it."""
    # A trailing period would end the sentence twice.
    corpus = (metadata.get("corpus_description") or "").strip().rstrip(".") or DEFAULT_CORPUS_DESCRIPTION
    return f"Search the {corpus}. Use this to find relevant documentation, guides, or API references."


def tool(metadata: Mapping[str, Any]) -> Tool:
    """search_docs as listed for an index described by ``metadata``."""
    return Tool(name=NAME, description=search_docs_description(metadata), input_schema=schema(metadata))


@dataclass(frozen=True)
class SearchArgs:
    """search_docs arguments after checking: a non-empty query, a page size, filters."""

    query: str
    limit: int
    cursor: str | None
    filters: Mapping[str, str]


def parse_search_args(
    arguments: Mapping[str, Any] | None,
    filters: Mapping[str, tuple[str, ...]],
    *,
    tool: str = NAME,
    more: tuple[str, ...] = (),
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
        limit=integer(given, "limit", BASE_SCHEMA),
        cursor=string(given, "cursor"),
        filters={key: choice(given, key, values) for key, values in filters.items() if key in given},
    )


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


def run(index: ServedIndex, args: SearchArgs, mode: Mode, expansions: Expansions | None = None) -> SearchAnswer:
    """Run search_docs: one page of hits, the next page's cursor and, for zero hits, the hint.

    With ``expansions`` (search_docs_expanded) the agent's parts join the search; without, it is search_docs's.

    Raises:
        InvalidCursorError: the cursor is malformed, tampered, foreign or stale.
        NoVectorsError: ``mode`` is vector and the index has no vectors.
    """
    require_vectors_for(mode, index)
    # A cursor is bound to the expansions too: a page of one expanded search is no page of another.
    bound = args.query if not expansions else orjson.dumps([args.query, *astuple(expansions)]).decode()
    binding = SearchBinding(bound, args.filters, args.limit, mode)
    cursors = cursor_codec(index)
    offset = cursors.decode(args.cursor, binding) if args.cursor else 0
    page = index.search(args.query, args.filters, mode=mode, limit=args.limit, offset=offset, **_expanded(expansions))
    hint = None
    if not page.hits:
        hint = build_hint(
            args.query,
            args.filters,
            index.filters,
            lambda filters: bool(index.search(args.query, filters, mode=mode, limit=1, **_expanded(expansions)).hits),
            *index.engine.query_words(args.query),
        )
    next_cursor = cursors.encode(binding, offset + len(page.hits)) if page.has_more else None
    return SearchAnswer(search_result(page.hits, next_cursor, hint), page.hits)


def _expanded(expansions: Expansions | None) -> dict[str, Any]:
    """The engine's ``expansions`` option, left out when there are none (the search is then exactly search_docs's)."""
    return {"expansions": expansions} if expansions else {}


def cursor_codec(index: ServedIndex) -> CursorCodec:
    """The cursors of the generation ``index`` serves (their key derives from it), made once per generation."""
    return index.derived(CursorCodec, lambda: CursorCodec(index.engine.generation, index.secret, index.identity))


def require_vectors_for(mode: Mode, index: ServedIndex) -> None:
    """Refuse vector-only ranking on an index without vectors: it would find nothing, for any words.

    Raises:
        NoVectorsError: ``mode`` is vector and the index has no vectors.
    """
    if mode == Mode.vector and not index.engine.has_vectors:
        raise NoVectorsError()


def search_provenance(
    index: ServedIndex, arguments: Mapping[str, Any] | None, result: Mapping[str, Any]
) -> dict[str, Any]:
    """What search_docs' structured content adds to the contract's SearchResult: the libraries searched (at the
    versions searched) and, on every hit, where it comes from (library, version, source URL, revision, fetched and
    indexed times). An llms.txt library is searched only over the pages fetched so far.
    """
    catalog = catalog_of(index)
    chosen = (arguments or {}).get(LIBRARY_KEY)
    if isinstance(chosen, str):
        try:
            searched = [catalog.get(chosen).library_id]
        except LibraryNotFoundError:
            searched = [chosen]
    else:
        searched = sorted(
            lib.library_id for lib in catalog.libraries.values() if lib.indexed and catalog.is_default(lib)
        )
    hits = [
        {**hit, "provenance": catalog.owner(hit["filepath"]).origin_of(hit["filepath"])}
        for hit in result.get("hits") or ()
    ]
    return {"hits": hits, "searched_libraries": searched}


def structured(answer: SearchAnswer, call: ToolCall, expansions: Expansions | None = None) -> dict[str, Any]:
    """A search's structured content: the SearchResult sized for a context window, the libraries searched, each hit's provenance."""
    query = str((call.arguments or {}).get("query") or "")
    sized = sized_hits(leased(call.index), answer, query, expansions)
    return {**sized, **search_provenance(leased(call.index), call.arguments, sized)}


def cursor_of(arguments: Mapping[str, Any] | None) -> str | None:
    """The cursor a call continues (its generation answers it, while the server still holds it open)."""
    cursor = (arguments or {}).get("cursor") if isinstance(arguments, Mapping) else None
    return cursor if isinstance(cursor, str) and cursor else None


def spec(context: ToolContext) -> ToolSpec[SearchArgs]:
    """search_docs ranking in ``context.mode``; errors are the contract's plain text."""
    return ToolSpec(
        NAME,
        describe=tool,
        parse=lambda arguments, index: parse_search_args(arguments, leased(index).filters),
        run=lambda args, call: run(leased(call.index), args, context.mode),
        render=SearchAnswer.text,
        structured=structured,
        error_text=internal_error_text,
        cursor=cursor_of,
        quick=lambda index: index.answers_quickly(context.mode),
    )


def search_docs(index: ServedIndex, arguments: Mapping[str, Any] | None, mode: Mode) -> str:
    """The search_docs text for ``arguments``, raising what the tool raises (``docs-mcp search``, tests)."""
    return spec(ToolContext(mode)).text(ToolCall(index, arguments))
