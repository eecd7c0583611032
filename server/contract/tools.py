"""The two tools as plain functions: checked arguments in, the contract's text out.

Each runs in a worker thread (the engine is safe to share between threads; searches may run
in a search worker process, ``ServedIndex.search``) and raises a
DocsMcpError for anything the caller can fix; app.py turns that into an
``isError`` result.
"""

from __future__ import annotations

from typing import Any, Mapping

from docs_mcp.server.contract.arguments import parse_get_doc_args, parse_search_args
from docs_mcp.server.contract.cursor import SearchBinding
from docs_mcp.server.contract.documents import chunk_window, first_chunk_of_page
from docs_mcp.server.errors import ChunkNotFoundError, NoVectorsError
from docs_mcp.server.search.hints import build_hint
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.contract.render import render_chunk_window, render_search_result


def search_docs(index: ServedIndex, arguments: Mapping[str, Any] | None, mode: str) -> str:
    """Run search_docs: one page of hits, the next page's cursor and, for zero hits, the hint.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        InvalidCursorError: the cursor is malformed, tampered, foreign or stale.
        NoVectorsError: ``mode`` is vector and the index has no vectors.
    """
    args = parse_search_args(arguments, index.filters)
    require_vectors_for(mode, index)
    binding = SearchBinding(args.query, args.filters, args.limit, mode)
    offset = index.cursors.decode(args.cursor, binding) if args.cursor else 0
    page = index.search(args.query, args.filters, mode=mode, limit=args.limit, offset=offset)
    hint = None
    if not page.hits:
        hint = build_hint(
            args.query,
            args.filters,
            index.filters,
            lambda filters: bool(index.search(args.query, filters, mode=mode, limit=1).hits),
        )
    next_cursor = index.cursors.encode(binding, offset + len(page.hits)) if page.has_more else None
    return render_search_result(page.hits, next_cursor, hint)


def require_vectors_for(mode: str, index: ServedIndex) -> None:
    """Refuse vector-only ranking on an index without vectors: it would find nothing, for any words.

    Raises:
        NoVectorsError: ``mode`` is vector and the index has no vectors.
    """
    if mode == "vector" and not index.engine.has_vectors:
        raise NoVectorsError()


def get_doc(index: ServedIndex, arguments: Mapping[str, Any] | None) -> str:
    """Run get_doc: the chunk and up to ``context`` neighbours each side, in the delimiter grammar.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        InvalidChunkIdError: the chunk ID is not well-formed.
        ChunkNotFoundError: no chunk has that ID.
    """
    args = parse_get_doc_args(arguments)
    conn = index.engine.db.cursor()
    window = chunk_window(conn, args.chunk_id, args.context)
    if not window:  # a page's path names a chunk only when the page is one chunk: point at its first
        page = None if "#" in args.chunk_id else first_chunk_of_page(conn, args.chunk_id)
        raise ChunkNotFoundError(args.chunk_id, page)
    return render_chunk_window(window, args.chunk_id)
