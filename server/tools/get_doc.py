"""get_doc, the contract's read of one chunk (corpus/guide/get-doc.md): its schema, arguments (the chunk-ID grammar), run and spec.

The chunk and its neighbours are rendered in the contract's delimiter grammar (server/contract/render.py,
sizing.py); errors are the contract's plain text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_types import Tool

from docs_mcp.server.contract.sizing import ChunkWindow
from docs_mcp.server.core.arguments import integer, present, required_string
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec, internal_error_text, leased
from docs_mcp.server.errors import ChunkNotFoundError, InvalidArgumentError, InvalidChunkIdError
from docs_mcp.server.tools.context import ToolContext

NAME = "get_doc"
MAX_CHUNK_ID_CHARS = 2_048
# {filepath} or {filepath}#{heading-path}: one '#' at most, no whitespace around the ID
# or inside the fragment, no control characters. File names may hold inner spaces; the
# indexer skips files whose path has '#' or a control character, so every ID it makes fits.
_CHUNK_ID = re.compile(r"(?=\S)[^#\x00-\x1f\x7f]*[^#\s\x00-\x1f\x7f](?:#[^#\s\x00-\x1f\x7f]+)?")

DESCRIPTION = (
    "Retrieve the full content of a specific documentation chunk using its chunk_id. "
    "You can optionally request surrounding context within the same file."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "chunk_id": {
            "type": "string",
            "description": (
                "The exact ID of the chunk to retrieve, as returned by search_docs "
                "(e.g., 'guides/retries.md#backoff-strategy')."
            ),
        },
        "context": {
            "type": "integer",
            "description": (
                "Number of adjacent chunks to include before and after the target chunk. "
                "Default is 0. Use this to read the surrounding file context."
            ),
            "minimum": 0,
            "maximum": 5,
            "default": 0,
        },
    },
    "required": ["chunk_id"],
}


def tool(metadata: Mapping[str, Any]) -> Tool:
    """get_doc as listed (the same for every index)."""
    return Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA)


@dataclass(frozen=True)
class GetDocArgs:
    """get_doc arguments after checking."""

    chunk_id: str
    context: int


def parse_get_doc_args(arguments: Mapping[str, Any] | None) -> GetDocArgs:
    """Check get_doc arguments against its schema and the chunk-ID grammar.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, or of the wrong type or range.
        InvalidChunkIdError: ``chunk_id`` is not ``{filepath}`` or ``{filepath}#{heading-path}``.
    """
    given = present(NAME, arguments, tuple(SCHEMA["properties"]))
    example = "a chunk ID from search_docs, e.g. 'guides/retries.md#backoff-strategy'"
    chunk_id = required_string(given, "chunk_id", example)
    if len(chunk_id) > MAX_CHUNK_ID_CHARS:
        raise InvalidArgumentError(
            f"Argument 'chunk_id' is {len(chunk_id)} characters long; chunk IDs are at most {MAX_CHUNK_ID_CHARS}.",
            "Use search_docs to discover valid chunk IDs.",
        )
    if not _CHUNK_ID.fullmatch(chunk_id):
        raise InvalidChunkIdError(chunk_id)
    return GetDocArgs(chunk_id, integer(given, "context", SCHEMA))


def run(index: ServedIndex, args: GetDocArgs) -> ChunkWindow:
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


def spec(context: ToolContext) -> ToolSpec[GetDocArgs]:
    return ToolSpec(
        NAME,
        describe=tool,
        parse=lambda arguments, index: parse_get_doc_args(arguments),
        run=lambda args, call: run(leased(call.index), args),
        render=ChunkWindow.text,
        structured=lambda window, call: window.sizes(),
        error_text=internal_error_text,
    )
