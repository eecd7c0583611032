"""One error shape for every tool: ``{code, message, recoverable, suggestion}`` in an isError result.

Codes come from the library tools' catalog (corpus/guide/libraries.md#errors) where one applies (LIBRARY_NOT_FOUND,
TOPIC_NOT_FOUND, PAGE_NOT_FOUND, INVALID_INPUT, INTERNAL_ERROR); PATH_NOT_ALLOWED is our
counterpart of its URL_NOT_ALLOWED, for paths that leave the indexed documents. Remote-source
errors (indexer.sources.errors) carry their own codes: URL_NOT_ALLOWED, SOURCE_UNAVAILABLE,
PAGE_NOT_FOUND, LLMS_TXT_NOT_FOUND, INVALID_CONTENT, WRONG_TOOL, REMOTE_NOT_CONFIGURED.
Errors raised elsewhere (argument checks, a broken index) are mapped here too, so a
client sees the same shape whatever failed.

    ServerError, CodedError
    └── ToolError                  code + recoverable; message and hint become message and suggestion
        ├── the library tools' errors (server.libraries.errors): LIBRARY_NOT_FOUND, TOPIC_NOT_FOUND, ...
        └── the gateway's errors (server.gateway.errors): NOT_FOUND, PERMISSION_DENIED, UPSTREAM_*, ...
"""

from __future__ import annotations

from typing import Any

import orjson

from docs_mcp.errors import CodedError, DocsMcpError
from docs_mcp.server.errors import (
    ChunkNotFoundError,
    InvalidArgumentError,
    InvalidChunkIdError,
    InvalidCursorError,
    ServerError,
)

INVALID_INPUT = "INVALID_INPUT"
# Ours, like PATH_NOT_ALLOWED: get_doc named a well-formed chunk ID the index does not hold.
CHUNK_NOT_FOUND = "CHUNK_NOT_FOUND"
INTERNAL_ERROR = "INTERNAL_ERROR"
INTERNAL_MESSAGE = "The tool failed with an internal error (details are in the server log)."
INTERNAL_SUGGESTION = "Try again; if it persists, report it."


class ToolError(ServerError, CodedError):
    """A tool failure the agent can act on; subclasses fix the code."""


def error_shape(error: BaseException) -> dict[str, Any]:
    """The canonical shape of any error a tool raised; unexpected exceptions say nothing internal."""
    if isinstance(error, CodedError):  # library tools, the gateway, remote sources
        return _shape(error.code, error.message, error.recoverable, error.hint)
    if isinstance(error, ChunkNotFoundError):
        return _shape(CHUNK_NOT_FOUND, error.message, True, error.hint)
    if isinstance(error, (InvalidArgumentError, InvalidChunkIdError, InvalidCursorError)):
        return _shape(INVALID_INPUT, error.message, True, error.hint)
    if isinstance(error, DocsMcpError):
        # An index or model problem: the agent cannot fix it by changing its call.
        return _shape(INTERNAL_ERROR, error.message, False, error.hint)
    return _shape(INTERNAL_ERROR, INTERNAL_MESSAGE, True, INTERNAL_SUGGESTION)


def render_error(error: BaseException) -> str:
    """The text of an isError result: the error shape as JSON."""
    return orjson.dumps(error_shape(error), option=orjson.OPT_INDENT_2).decode()


def _shape(code: str, message: str, recoverable: bool, suggestion: str) -> dict[str, Any]:
    return {"code": code, "message": message, "recoverable": recoverable, "suggestion": suggestion}
