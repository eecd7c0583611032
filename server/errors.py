"""Errors of the MCP server (see docs_mcp.errors for the whole tree).

    ServerError
    ├── InvalidArgumentError   a tool argument has the wrong type, range or name
    ├── InvalidCursorError     a cursor is malformed, tampered, foreign or stale
    ├── InvalidChunkIdError    a chunk ID does not follow the chunk-ID grammar
    ├── ChunkNotFoundError     a well-formed chunk ID names no chunk of the index
    ├── NoVectorsError         vector ranking asked of an index built without embeddings
    ├── SearchWorkerCrashedError  the worker process answering a search died (it is replaced)
    └── SearchPoolClosedError  a search arrived while the server was stopping
    SetupError                 `docs-mcp setup` (beside ServerError, under DocsMcpError)
    └── ConfigFileError        a client's config file it cannot edit without risking the user's settings

Tools turn each of these into an ``isError`` result whose text is ``str(error)``:
the message names the cause, the hint says what to do next.
"""

from __future__ import annotations

import re

from docs_mcp.errors import CodedError, DocsMcpError

_SEARCH_AGAIN = "Run search_docs again without a cursor to start over."
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]+")  # meaningless in a query, misleading in a message
MAX_QUOTED_CHARS = 80  # an error shows this much of a bad value: enough to recognise it, never megabytes


def quoted(value: str) -> str:
    """``value`` in quotes as an error message shows it: whole when short, else its start and its length.

    Control characters show as ``\\uXXXX`` escapes: a newline in an argument must not start a line
    of the message (one that could read as a get_doc delimiter).
    """
    if len(value) <= MAX_QUOTED_CHARS:
        return f"'{_visible(value)}'"
    return f"'{_visible(value[:MAX_QUOTED_CHARS])}…' ({len(value)} characters)"


def _visible(text: str) -> str:
    return CONTROL_CHARACTERS.sub(lambda match: "".join(f"\\u{ord(c):04x}" for c in match.group()), text)


def quoted_list(values: list[str], most: int = 5) -> str:
    """The first ``most`` of ``values``, each quoted, and how many more there are."""
    shown = ", ".join(quoted(value) for value in values[:most])
    return f"{shown} and {len(values) - most} more" if len(values) > most else shown


_DISCOVER_IDS = "Use search_docs to discover valid chunk IDs."


class ServerError(DocsMcpError):
    """Base of every error the server reports to a client."""


class InvalidArgumentError(ServerError):
    """A tool argument has the wrong type or range, is missing, or is not in the schema."""


class InvalidCursorError(ServerError):
    """A cursor cannot be used: malformed, tampered with, from another search, or from an older index."""

    def __init__(self, message: str, hint: str = _SEARCH_AGAIN) -> None:
        super().__init__(message, hint)


class InvalidChunkIdError(ServerError):
    """A chunk ID that is not ``{filepath}`` or ``{filepath}#{heading-path}``."""

    def __init__(self, chunk_id: str) -> None:
        super().__init__(
            f"Chunk ID {quoted(chunk_id)} has invalid format. Expected {{filepath}} or {{filepath}}#{{heading-path}}.",
            _DISCOVER_IDS,
        )


class ChunkNotFoundError(ServerError):
    """A well-formed chunk ID that names no chunk of the served index."""

    def __init__(self, chunk_id: str, page: tuple[str, int] | None = None) -> None:
        """``page``: when ``chunk_id`` is the path of a page of several chunks, its first chunk's ID and its count."""
        if page is None:
            hint = _DISCOVER_IDS
        elif page[1] == 1:
            hint = f"That page is one chunk: call get_doc with its ID, {quoted(page[0])}."
        else:
            hint = (
                f"That page has {page[1]} chunks, each with its own ID: start with {quoted(page[0])} "
                "and raise context to read its neighbours."
            )
        super().__init__(f"Chunk ID {quoted(chunk_id)} not found.", hint)


class NoVectorsError(ServerError):
    """The server ranks by vectors only, and the index has none: every search would find nothing."""

    def __init__(self) -> None:
        super().__init__(
            "This index has no vectors (built with --embeddings none, or its build stopped before the vectors "
            "were written), so vector ranking finds nothing.",
            "Build it with vectors (`docs-mcp index DOCS_DIR --out INDEX`, default embeddings), "
            "or serve it with --mode bm25 or --mode hybrid.",
        )


class SearchWorkerCrashedError(ServerError, CodedError):  # recoverable: a retry can work
    """The search worker process answering the request died; a new one has taken its place."""

    def __init__(self, status: str) -> None:
        super().__init__(
            f"The search worker answering this request stopped ({status}) before it answered.",
            "Retry the search: a new worker has started. If the same query fails again, report it with the server log.",
        )


class SearchPoolClosedError(ServerError, CodedError):  # recoverable: a retry can work
    """A search reached the worker pool after the server began stopping."""

    def __init__(self) -> None:
        super().__init__("The server is stopping and no longer searches.", "Retry in a moment, once it has restarted.")


# `docs-mcp setup`: a client config file it cannot edit safely, a file it did not write.

TOO_DEEP_HINT = "No client config nests that deep: check the file (or move it aside) and run `docs-mcp setup` again; nothing was written."


class SetupError(DocsMcpError):
    """`docs-mcp setup` cannot configure the client as asked."""


class ConfigFileError(SetupError):
    """A client's config file cannot be read or edited without risking the user's own settings."""

    def __init__(self, path: str, problem: str, hint: str = "") -> None:
        super().__init__(
            f"{path} {problem}.",
            hint or "Fix the file (or move it aside) and run `docs-mcp setup` again; nothing was written.",
        )
        self.path = path
