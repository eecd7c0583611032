"""What the library tools report, in the one tool error shape (server.core.tool_errors).

ToolError (server.core.tool_errors)
├── LibraryNotFoundError   LIBRARY_NOT_FOUND, with did-you-mean suggestions
│   └── VersionNotFoundError VERSION_NOT_FOUND: the library is indexed, not at that version (never substituted)
├── TopicNotFoundError     TOPIC_NOT_FOUND
├── PageNotFoundError      PAGE_NOT_FOUND
└── PathNotAllowedError    PATH_NOT_ALLOWED
"""

from __future__ import annotations

from docs_mcp.server.core.tool_errors import ToolError


class LibraryNotFoundError(ToolError):
    """No library has the given ID."""

    code = "LIBRARY_NOT_FOUND"


class VersionNotFoundError(LibraryNotFoundError):
    """The library is indexed, but not at the version asked for; the message lists the versions it has."""

    code = "VERSION_NOT_FOUND"


class TopicNotFoundError(ToolError):
    """Nothing in the given libraries matches the topic."""

    code = "TOPIC_NOT_FOUND"


class PageNotFoundError(ToolError):
    """A well-formed path that names no indexed document."""

    code = "PAGE_NOT_FOUND"


class PathNotAllowedError(ToolError):
    """A path that tries to leave the indexed documents (``..``, absolute, a URL, a backslash)."""

    code = "PATH_NOT_ALLOWED"
