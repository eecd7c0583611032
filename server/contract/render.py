"""The text the tools return: the get_doc delimiter grammar and the search_docs JSON (pure, byte-exact).

get_doc::

    --- Chunk: {chunk_id} (Chunk {i} of {n}) (Target|Context: {+N|-N}) ---
    {raw markdown}

blocks joined by one blank line.  A content line that would read as a delimiter (a page that
quotes the grammar) gets a backslash before it, the markdown escape, so every response keeps
exactly one ``(Target)`` delimiter.  search_docs: the contract's ``SearchResult``
as two-space indented JSON with the keys in contract order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from docs_mcp.server.search.records import Hit, StoredChunk
from docs_mcp.server.search.zero_result_hints import Hint

SCORE_DECIMALS = 6
DELIMITER_START = "--- Chunk: "
_DELIMITER_LINE = re.compile("^(?=" + re.escape(DELIMITER_START) + ")", re.MULTILINE)


def render_chunk_window(window: Sequence[StoredChunk], target_id: str) -> str:
    """The get_doc text for ``window`` (chunks of one file, in order) around ``target_id``.

    Raises:
        ValueError: ``target_id`` is not in ``window`` (a caller bug, not bad input).
    """
    target = next((chunk for chunk in window if chunk.chunk_id == target_id), None)
    if target is None:
        raise ValueError(f"target {target_id!r} is not in the window")
    return "\n\n".join(_block(chunk, chunk.chunk_index - target.chunk_index) for chunk in window)


def _block(chunk: StoredChunk, offset: int) -> str:
    role = "Target" if offset == 0 else f"Context: {offset:+d}"
    position = f"Chunk {chunk.chunk_index + 1} of {chunk.file_chunk_count}"
    return f"{DELIMITER_START}{chunk.chunk_id} ({position}) ({role}) ---\n{escape_delimiter_lines(chunk.content)}"


def escape_delimiter_lines(content: str) -> str:
    """``content`` with a backslash before every line that starts like a delimiter."""
    return _DELIMITER_LINE.sub("\\\\", content)


def search_result(hits: Sequence[Hit], next_cursor: str | None, hint: Hint | None) -> dict[str, Any]:
    """The contract's ``SearchResult`` (``hits``, ``next_cursor``, ``hint``), keys in contract order."""
    return {
        "hits": [_hit(hit) for hit in hits],
        "next_cursor": next_cursor,
        "hint": None if hint is None else _hint(hint),
    }


def render_search_result(hits: Sequence[Hit], next_cursor: str | None, hint: Hint | None) -> str:
    """The search_docs text: the JSON ``SearchResult``, two-space indented."""
    return orjson.dumps(search_result(hits, next_cursor, hint), option=orjson.OPT_INDENT_2).decode()


def _hit(hit: Hit) -> dict[str, Any]:
    return {
        "chunk_id": hit.chunk_id,
        "score": round(float(hit.score), SCORE_DECIMALS),
        "heading": hit.heading,
        "breadcrumb": hit.breadcrumb,
        "snippet": hit.snippet,
        "filepath": hit.filepath,
        "metadata": {key: hit.metadata[key] for key in sorted(hit.metadata)},
    }


def _hint(hint: Hint) -> dict[str, Any]:
    return {
        "message": hint.message,
        "suggested_filters": {key: list(values) for key, values in hint.suggested_filters.items()},
    }


def render_search_text(result_json: str) -> str:
    """A search_docs JSON result as a numbered list for people (``docs-mcp search``)."""
    result = orjson.loads(result_json)
    if not result["hits"]:
        hint = result["hint"] or {"message": "No results.", "suggested_filters": {}}
        suggested = hint["suggested_filters"]
        suggestions = [f"--filter {key}={value}" for key, values in suggested.items() for value in values]
        message: str = hint["message"]
        return message + (f"\nTry: {', '.join(suggestions)}" if suggestions else "")
    blocks = []
    for rank, hit in enumerate(result["hits"], start=1):
        snippet = " ".join(hit["snippet"].split())
        blocks.append(f"{rank}. {hit['chunk_id']}  (score {hit['score']:.4f})\n   {hit['breadcrumb']}\n   {snippet}")
    return "\n\n".join(blocks)
