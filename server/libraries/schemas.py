"""Names, descriptions and input JSON Schemas of the library tools (pure).

Shapes after seed 001 (resolve-library, get-library-info, read-page, get-docs), in the
snake_case of our other tools, every schema closed with ``additionalProperties: false``.
"""

from __future__ import annotations

from typing import Any

from mcp_types import Tool

RESOLVE_LIBRARY = "resolve_library"
GET_LIBRARY_INFO = "get_library_info"
READ_PAGE = "read_page"
GET_DOCS = "get_docs"
GET_CONTEXT7_DOCS = "get_context7_docs"
LIBRARY_TOOLS = (RESOLVE_LIBRARY, GET_LIBRARY_INFO, READ_PAGE, GET_DOCS, GET_CONTEXT7_DOCS)

MAX_ID_CHARS = 200
MAX_TOPIC_CHARS = 500
MAX_PATH_CHARS = 1024
MAX_LANGUAGE_CHARS = 50
MAX_URL_CHARS = 2048
MAX_SECTIONS = 50
MAX_LIBRARIES = 10
DEFAULT_MAX_LINES = 200
MAX_MAX_LINES = 5000
DEFAULT_MAX_TOKENS = 5000
MIN_MAX_TOKENS = 500
MAX_MAX_TOKENS = 10000
MAX_INFO_CHARS = 20_000  # one get_library_info answer; a large library's table of contents comes in pages
# Offsets beyond any real page are still answered (with empty content); this only bounds the integer.
MAX_OFFSET = 10_000_000

_LIBRARY_ID = {
    "type": "string",
    "maxLength": MAX_ID_CHARS,
    "description": "Library ID in org/project form, as resolve_library returns it (e.g. 'fastapi/fastapi').",
}

# Seed 001's shape of a library in get_docs; library_id is accepted too, as agents write either.
_LIBRARY_REF = {
    "type": "object",
    "properties": {"libraryId": _LIBRARY_ID, "library_id": _LIBRARY_ID},
    "minProperties": 1,
    "maxProperties": 1,
    "additionalProperties": False,
}

_SCHEMAS: dict[str, dict[str, Any]] = {
    RESOLVE_LIBRARY: {
        "query": {
            "type": "string",
            "maxLength": MAX_TOPIC_CHARS,
            "description": "Library name or a few words about it (e.g. 'fastapi', 'pydantic v2', 'python web framework'). Typos are tolerated.",
        },
        "language": {
            "type": "string",
            "maxLength": MAX_LANGUAGE_CHARS,
            "description": "Only libraries that list this language or have sections tagged with it (e.g. 'python').",
        },
    },
    GET_LIBRARY_INFO: {
        "library_id": _LIBRARY_ID,
        "sections": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_ID_CHARS},
            "maxItems": MAX_SECTIONS,
            "description": "Only list documents of these sections (names from available_sections). Omit for the whole table of contents.",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_OFFSET,
            "default": 0,
            "description": (
                f"First table-of-contents entry to list (0-based). Each answer is at most {MAX_INFO_CHARS:,} characters: "
                "when has_more is true, call again with offset = next_offset."
            ),
        },
    },
    READ_PAGE: {
        "path": {
            "type": "string",
            "maxLength": MAX_PATH_CHARS,
            "description": "Document path from get_library_info, search_docs (filepath) or get_docs (related_pages).",
        },
        "url": {
            "type": "string",
            "maxLength": MAX_URL_CHARS,
            "description": "Instead of path: a page URL from get_library_info's table of contents (llms.txt libraries); fetched, cached and indexed on first read.",
        },
        "library_id": {**_LIBRARY_ID, "description": "Library the path belongs to; lets you pass a path relative to the library."},
        "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0, "description": "First line to return (0-based). To continue, pass offset + lines_returned."},
        "max_lines": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_LINES, "default": DEFAULT_MAX_LINES, "description": "Most lines to return."},
    },
    GET_DOCS: {
        "libraries": {
            "type": "array",
            "items": {"anyOf": [_LIBRARY_ID, _LIBRARY_REF]},
            "minItems": 1,
            "maxItems": MAX_LIBRARIES,
            "description": "The libraries to answer from (IDs from resolve_library): ['org/project'] or [{\"libraryId\": \"org/project\"}].",
        },
        "topic": {"type": "string", "maxLength": MAX_TOPIC_CHARS, "description": "What you need to know (e.g. 'dependency injection', 'RateLimitError')."},
        "language": {
            "type": "string",
            "maxLength": MAX_LANGUAGE_CHARS,
            "description": "Only sections about this language (e.g. 'python'), like search_docs's language filter; one of the index's language values.",
        },
        "max_tokens": {
            "type": "integer",
            "minimum": MIN_MAX_TOKENS,
            "maximum": MAX_MAX_TOKENS,
            "default": DEFAULT_MAX_TOKENS,
            "description": "Budget for the returned content, counted as ceil(characters / 4).",
        },
    },
    GET_CONTEXT7_DOCS: {
        "library_id": {**_LIBRARY_ID, "description": "ID of a remote library, as resolve_library returns it with tool 'get_context7_docs'."},
        "topic": {"type": "string", "maxLength": MAX_TOPIC_CHARS, "description": "One descriptive topic string (e.g. 'routing nested dynamic routes')."},
        "tokens": {
            "type": "integer",
            "minimum": MIN_MAX_TOKENS,
            "maximum": MAX_MAX_TOKENS,
            "default": DEFAULT_MAX_TOKENS,
            "description": "Most tokens of documentation to return.",
        },
    },
}
_REQUIRED = {
    RESOLVE_LIBRARY: ["query"],
    GET_LIBRARY_INFO: ["library_id"],
    READ_PAGE: [],
    GET_DOCS: ["libraries", "topic"],
    GET_CONTEXT7_DOCS: ["library_id"],
}

# Each opens with when to use the tool (agents pick tools by their descriptions), then what it returns.
_DESCRIPTIONS = {
    RESOLVE_LIBRARY: (
        "Use it first when you need the documentation of one library (by its name or a few words about it) and do not "
        "know its library ID. Finds the libraries this server holds that match (typos tolerated) and returns every match "
        "ranked by relevance (0-1), with its ID, sections and the tools to use next."
    ),
    GET_LIBRARY_INFO: (
        "Use it to see what a library's documentation covers before reading, or to find a page by its title. Describes "
        "one library and lists its table of contents: every document with title, path, a one-line description and "
        "section. Large tables of contents come in pages (has_more, next_offset) or filter by sections; read a document "
        "with read_page."
    ),
    READ_PAGE: (
        "Use it when a whole page is worth reading (a tutorial, a reference page), by the path get_library_info, "
        "search_docs or get_docs gave, or by the url of a table-of-contents entry (fetched on first read, then cached; "
        "stale: true marks a copy being refreshed). Returns the page as markdown with its token count; long pages come "
        "in line ranges: when has_more is true, call again with offset = offset + lines_returned."
    ),
    GET_DOCS: (
        "Use it when you want one packed answer about a topic from one or more libraries within a token budget, rather "
        "than a list of hits to read: the best sections (long ones as their best passage, with a pointer to get_doc) "
        "packed into max_tokens. Check confidence: below 0.5, read related_pages with read_page or browse "
        "get_library_info. Only for libraries resolve_library marks tool 'get_docs'."
    ),
    GET_CONTEXT7_DOCS: (
        "Use it only for a REMOTE library, when resolve_library returns tool 'get_context7_docs'. Fetches its "
        "documentation via a Context7-compatible API; combine your search terms into a single descriptive topic string."
    ),
}


def library_schema(name: str) -> dict[str, Any]:
    """The input schema of the library tool ``name``."""
    return {"type": "object", "additionalProperties": False, "properties": dict(_SCHEMAS[name]), "required": list(_REQUIRED[name])}


def library_tool(name: str) -> Tool:
    """The library tool ``name`` as listed (the same for every index)."""
    return Tool(name=name, description=_DESCRIPTIONS[name], input_schema=library_schema(name))


def library_tools() -> list[Tool]:
    """The library tools, in the order an agent uses them."""
    return [library_tool(name) for name in LIBRARY_TOOLS]
