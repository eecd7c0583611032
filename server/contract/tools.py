"""The contract's two tools, and search_docs_expanded beside them, as registry entries: checked arguments in,
the contract's answer out (and, in structured content, what sizes it for a context window: contract/sizing.py).

Each runs in a worker thread (the engine is safe to share between threads; searches may run
in a search worker process, ``ServedIndex.search``) and raises a DocsMcpError for anything
the caller can fix; the registry (server.core.registry) turns that into an ``isError``
result worded as the contract says: plain text, not the JSON error shape.
"""

from __future__ import annotations

from dataclasses import astuple
from typing import Any, Callable, Mapping

import orjson

from docs_mcp.server.contract.arguments import GetDocArgs, SearchArgs, parse_get_doc_args, parse_search_args
from docs_mcp.server.contract.cursor import CursorCodec, SearchBinding
from docs_mcp.server.contract.expanded import SEARCH_DOCS_EXPANDED, expanded_tool, parse_expanded_args, parse_expansions
from docs_mcp.server.contract.render import search_result
from docs_mcp.server.contract.schemas import GET_DOC, SEARCH_DOCS, get_doc_tool, search_docs_tool
from docs_mcp.server.contract.sizing import ChunkWindow, SearchAnswer, sized_hits
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.registry import ToolCall, ToolSpec, internal_error_text
from docs_mcp.server.errors import ChunkNotFoundError, NoVectorsError
from docs_mcp.server.search.expansion import Expansions
from docs_mcp.server.search.hints import build_hint

# What another product adds to a search's structured content (the libraries it searched, where each hit came
# from), given the index, the arguments and the SearchResult; the text stays the contract's.
SearchExtras = Callable[[ServedIndex, Mapping[str, Any] | None, Mapping[str, Any]], Mapping[str, Any]]


def contract_specs(mode: str, search_extras: SearchExtras | None = None) -> list[ToolSpec[Any]]:
    """search_docs and get_doc (the contract's, listed first), then search_docs_expanded, ranking in ``mode``;
    ``search_extras`` joins a search's structured content."""

    def structured(answer: SearchAnswer, call: ToolCall) -> dict[str, Any]:
        query, expansions = _query_of(call.arguments)
        sized = sized_hits(call.index, answer, query, expansions)
        return {**sized, **(search_extras(call.index, call.arguments, sized) if search_extras else {})}

    return [
        ToolSpec(
            SEARCH_DOCS,
            describe=search_docs_tool,
            parse=lambda arguments, index: parse_search_args(arguments, index.filters),
            run=lambda args, call: run_search_docs(call.index, args, mode),
            render=SearchAnswer.text,
            structured=structured,
            error_text=internal_error_text,
        ),
        ToolSpec(
            GET_DOC,
            describe=get_doc_tool,
            parse=lambda arguments, index: parse_get_doc_args(arguments),
            run=lambda args, call: run_get_doc(call.index, args),
            render=ChunkWindow.text,
            structured=lambda window, call: window.sizes(),
            error_text=internal_error_text,
        ),
        ToolSpec(
            SEARCH_DOCS_EXPANDED,
            describe=expanded_tool,
            parse=lambda arguments, index: parse_expanded_args(arguments, index.filters),
            run=lambda parsed, call: run_search_docs(call.index, parsed[0], mode, parsed[1]),
            render=SearchAnswer.text,
            structured=structured,
            error_text=internal_error_text,
        ),
    ]


def _query_of(arguments: Mapping[str, Any] | None) -> tuple[str, Expansions | None]:
    """The query and expansions of a search that ran (its arguments were checked already)."""
    given = arguments or {}
    return str(given.get("query") or ""), parse_expansions(given) or None


def search_docs(index: ServedIndex, arguments: Mapping[str, Any] | None, mode: str) -> str:
    """The search_docs text for ``arguments``, raising what the tool raises (``docs-mcp search``, tests)."""
    return tool_text(index, SEARCH_DOCS, arguments, mode)


def tool_text(index: ServedIndex, name: str, arguments: Mapping[str, Any] | None, mode: str = "hybrid") -> str:
    """The text of the contract's tool ``name`` (or search_docs_expanded) for ``arguments``, raising what it raises:
    the command line's ``docs-mcp search`` and ``docs-mcp get``."""
    spec = next(spec for spec in contract_specs(mode) if spec.name == name)
    return spec.text(ToolCall(index, arguments))


def run_search_docs(index: ServedIndex, args: SearchArgs, mode: str, expansions: Expansions | None = None) -> SearchAnswer:
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


def require_vectors_for(mode: str, index: ServedIndex) -> None:
    """Refuse vector-only ranking on an index without vectors: it would find nothing, for any words.

    Raises:
        NoVectorsError: ``mode`` is vector and the index has no vectors.
    """
    if mode == "vector" and not index.engine.has_vectors:
        raise NoVectorsError()


def run_get_doc(index: ServedIndex, args: GetDocArgs) -> ChunkWindow:
    """Run get_doc: the chunk and up to ``context`` neighbours each side (rendered in the delimiter grammar).

    Raises:
        ChunkNotFoundError: no chunk has that ID.
    """
    store = index.engine.store
    window = store.chunk_window(args.chunk_id, args.context)
    if not window:  # a page's path names a chunk only when the page is one chunk: point at its first
        page = None if "#" in args.chunk_id else store.first_chunk_of_page(args.chunk_id)
        raise ChunkNotFoundError(args.chunk_id, page)
    return ChunkWindow(window, args.chunk_id)
