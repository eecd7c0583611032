"""get_context7_docs: a REMOTE library's documentation from the configured Context7-compatible API, as it gave it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.server.core.arguments import integer, schema_arguments, string
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.libraries.answers import catalog_of
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.library_tools import (
    LIBRARY_ID,
    MAX_ID_CHARS,
    MAX_TOPIC_CHARS,
    TOKENS,
    closed_schema,
    library_spec,
    text,
)

NAME = "get_context7_docs"
DESCRIPTION = (
    "Use it only for a REMOTE library, when resolve_library returns tool 'get_context7_docs'. Fetches its "
    "documentation via a Context7-compatible API; combine your search terms into a single descriptive topic string."
)
SCHEMA = closed_schema(
    {
        "library_id": {
            **LIBRARY_ID,
            "description": "ID of a remote library, as resolve_library returns it with tool 'get_context7_docs'.",
        },
        "topic": {
            "type": "string",
            "maxLength": MAX_TOPIC_CHARS,
            "description": "One descriptive topic string (e.g. 'routing nested dynamic routes').",
        },
        "tokens": {**TOKENS, "description": "Most tokens of documentation to return."},
    },
    ["library_id"],
)


@dataclass(frozen=True)
class Context7Args:
    library_id: str
    topic: str
    tokens: int


def parse(arguments: Mapping[str, Any] | None) -> Context7Args:
    """Check get_context7_docs arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = schema_arguments(NAME, arguments, SCHEMA)
    topic = string(given, "topic")
    if topic and len(topic) > MAX_TOPIC_CHARS:
        raise InvalidArgumentError(
            f"Argument 'topic' is {len(topic)} characters long; the limit is {MAX_TOPIC_CHARS}.",
            "Pass one short topic string.",
        )
    return Context7Args(
        library_id=text(
            given, "library_id", "a library ID from resolve_library, e.g. 'vercel/next.js'", MAX_ID_CHARS
        ).strip("/"),
        topic=(topic or "").strip(),
        tokens=integer(given, "tokens", SCHEMA),
    )


def run(index: ServedIndex, args: Context7Args, sources: Sources) -> dict[str, Any]:
    """Run get_context7_docs: the configured Context7-compatible API's documentation for a remote library.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        WrongToolError: the library is local (get_docs answers it).
        SourceError: no API is configured, or it cannot be reached.
    """
    return sources.context7_docs(args.library_id, args.topic, args.tokens, catalog_of(index, sources.registered()))


def spec(context: ToolContext) -> ToolSpec[Context7Args]:
    """get_context7_docs; slow: it waits on the remote API."""
    return library_spec(
        NAME, DESCRIPTION, SCHEMA, parse, lambda index, args: run(index, args, context.needed_sources()), slow=True
    )
