"""Arguments of the library tools, checked against their schemas with the one validator (server.core.arguments).

Every given value is first held to the limits its published schema states; what is left here
is what only these tools know (library references, exactly one of path and url, blank names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from docs_mcp.server.core.arguments import integer, json_type, required_string, schema_arguments, short_string, string, visible_text
from docs_mcp.server.errors import InvalidArgumentError, quoted_list
from docs_mcp.server.libraries.schemas import (
    DEFAULT_MAX_LINES,
    DEFAULT_MAX_TOKENS,
    GET_CONTEXT7_DOCS,
    GET_DOCS,
    GET_LIBRARY_INFO,
    MAX_ID_CHARS,
    MAX_LIBRARIES,
    MAX_MAX_LINES,
    MAX_MAX_TOKENS,
    MAX_OFFSET,
    MAX_PATH_CHARS,
    MAX_SECTIONS,
    MAX_TOPIC_CHARS,
    MAX_URL_CHARS,
    MIN_MAX_TOKENS,
    READ_PAGE,
    RESOLVE_LIBRARY,
    library_schema,
)


@dataclass(frozen=True)
class ResolveArgs:
    query: str
    language: str | None


@dataclass(frozen=True)
class InfoArgs:
    library_id: str
    sections: tuple[str, ...] | None
    offset: int = 0


@dataclass(frozen=True)
class PageArgs:
    path: str | None  # exactly one of path and url
    url: str | None
    library_id: str | None
    offset: int
    max_lines: int


@dataclass(frozen=True)
class Context7Args:
    library_id: str
    topic: str
    tokens: int


@dataclass(frozen=True)
class DocsArgs:
    libraries: tuple[str, ...]
    topic: str
    max_tokens: int
    language: str | None = None


_EXAMPLE_ID = "fastapi/fastapi"
_LIBRARY_FORMS = f"Pass libraries=['{_EXAMPLE_ID}'] or libraries=[{{\"libraryId\": \"{_EXAMPLE_ID}\"}}], with IDs from resolve_library."
_ID_KEYS = ("libraryId", "library_id")


def parse_resolve_args(arguments: Mapping[str, Any] | None) -> ResolveArgs:
    """Check resolve_library arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = _given(RESOLVE_LIBRARY, arguments)
    language = string(given, "language")
    return ResolveArgs(_text(given, "query", "a library name, e.g. 'fastapi'", MAX_TOPIC_CHARS), language.strip() if language else None)


def parse_info_args(arguments: Mapping[str, Any] | None) -> InfoArgs:
    """Check get_library_info arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = _given(GET_LIBRARY_INFO, arguments)
    # No section named (an empty list, or only blank names) reads the whole table of contents.
    sections = (_strings(given, "sections", MAX_SECTIONS) or None) if "sections" in given else None
    offset = integer(given, "offset", 0, 0, MAX_OFFSET)
    return InfoArgs(_text(given, "library_id", "a library ID from resolve_library", MAX_ID_CHARS), sections, offset)


def parse_page_args(arguments: Mapping[str, Any] | None) -> PageArgs:
    """Check read_page arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = _given(READ_PAGE, arguments)
    library_id = string(given, "library_id")
    if ("path" in given) == ("url" in given):
        raise InvalidArgumentError(
            "Pass exactly one of 'path' and 'url'.",
            "Use path for a document path from get_library_info or search_docs, url for a table-of-contents URL.",
        )
    return PageArgs(
        path=_text(given, "path", "a document path from get_library_info", MAX_PATH_CHARS) if "path" in given else None,
        url=_text(given, "url", "a page URL from get_library_info", MAX_URL_CHARS) if "url" in given else None,
        library_id=library_id.strip() if library_id and library_id.strip() else None,
        offset=integer(given, "offset", 0, 0, MAX_OFFSET),
        max_lines=integer(given, "max_lines", DEFAULT_MAX_LINES, 1, MAX_MAX_LINES),
    )


def parse_docs_args(arguments: Mapping[str, Any] | None) -> DocsArgs:
    """Check get_docs arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = _given(GET_DOCS, arguments)
    if "libraries" not in given:
        raise InvalidArgumentError("Missing required argument 'libraries'.", _LIBRARY_FORMS)
    libraries = [library_id for library_id in map(_library_id, given["libraries"]) if library_id]
    if not libraries:
        raise InvalidArgumentError("Argument 'libraries' is empty.", _LIBRARY_FORMS)
    language = string(given, "language")
    return DocsArgs(
        libraries=tuple(dict.fromkeys(libraries)),
        topic=_text(given, "topic", "what you need to know, e.g. 'dependency injection'", MAX_TOPIC_CHARS),
        max_tokens=integer(given, "max_tokens", DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS, MAX_MAX_TOKENS),
        language=language.strip() if language and language.strip() else None,
    )


def _library_id(item: Any) -> str:
    """A library ID given as a string or as seed 001's {"libraryId": ...} (or {"library_id": ...})."""
    if isinstance(item, Mapping) and len(item) == 1 and next(iter(item)) in _ID_KEYS:
        item = next(iter(item.values()))
    if not isinstance(item, str):
        shown = json_type(item) if not isinstance(item, Mapping) else f"an object with keys {quoted_list(sorted(map(str, item)))}" if item else "an empty object"
        raise InvalidArgumentError(f"An item of 'libraries' is {shown}, not a library ID.", _LIBRARY_FORMS)
    short_string("libraries[]", item, MAX_ID_CHARS)
    return item.strip()


def parse_context7_args(arguments: Mapping[str, Any] | None) -> Context7Args:
    """Check get_context7_docs arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = _given(GET_CONTEXT7_DOCS, arguments)
    topic = string(given, "topic")
    if topic and len(topic) > MAX_TOPIC_CHARS:
        raise InvalidArgumentError(f"Argument 'topic' is {len(topic)} characters long; the limit is {MAX_TOPIC_CHARS}.", "Pass one short topic string.")
    return Context7Args(
        library_id=_text(given, "library_id", "a library ID from resolve_library, e.g. 'vercel/next.js'", MAX_ID_CHARS).strip("/"),
        topic=(topic or "").strip(),
        tokens=integer(given, "tokens", DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS, MAX_MAX_TOKENS),
    )


def _given(tool: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """The given arguments, each within the limits its published schema states (before any work)."""
    return schema_arguments(tool, arguments, library_schema(tool))


def _text(given: Mapping[str, Any], name: str, example: str, limit: int) -> str:
    value = visible_text(required_string(given, name, example))
    if not value:
        raise InvalidArgumentError(f"Argument '{name}' is empty.", f"Pass {example}.")
    if len(value) > limit:
        raise InvalidArgumentError(f"Argument '{name}' is {len(value)} characters long; the limit is {limit}.", f"Pass {example}.")
    return value


def _strings(given: Mapping[str, Any], name: str, limit: int) -> tuple[str, ...]:
    value = given[name]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        shown = json_type(value) if not isinstance(value, list) else "a list with non-string items"
        raise InvalidArgumentError(f"Argument '{name}' must be a list of strings, not {shown}.", f"Pass e.g. {name}=['...'].")
    if len(value) > limit:
        raise InvalidArgumentError(f"Argument '{name}' has {len(value)} items; the limit is {limit}.", "Pass fewer.")
    return tuple(item.strip() for item in value if item.strip())
