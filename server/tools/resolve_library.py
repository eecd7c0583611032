"""resolve_library: the libraries this server holds matching a name or a few words (typos tolerated), best first,
with the tools to call next; below a known match, the packages of that name in PyPI or npm."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.server.core.arguments import schema_arguments, string
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import quoted
from docs_mcp.server.libraries.answers import catalog_of, next_calls, summary, tagged_languages, topics
from docs_mcp.server.libraries.packages import KNOWN_RELEVANCE, registry_packages
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.library_tools import MAX_LANGUAGE_CHARS, MAX_TOPIC_CHARS, closed_schema, library_spec, text

NAME = "resolve_library"
DESCRIPTION = (
    "Use it first when you need the documentation of one library (by its name or a few words about it) and do not "
    "know its library ID. Finds the libraries this server holds that match (typos tolerated) and returns every match "
    "ranked by relevance (0-1), with its ID, sections and the tools to use next."
)
SCHEMA = closed_schema(
    {
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
    ["query"],
)


@dataclass(frozen=True)
class ResolveArgs:
    query: str
    language: str | None


def parse(arguments: Mapping[str, Any] | None) -> ResolveArgs:
    """Check resolve_library arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = schema_arguments(NAME, arguments, SCHEMA)
    language = string(given, "language")
    return ResolveArgs(
        text(given, "query", "a library name, e.g. 'fastapi'", MAX_TOPIC_CHARS), language.strip() if language else None
    )


def run(index: ServedIndex, args: ResolveArgs, sources: Sources) -> dict[str, Any]:
    """Run resolve_library: every library matching the query, best first, with what to call next.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
    """
    catalog = catalog_of(index, sources.registered())
    tagged = topics(index.engine, catalog)
    results = [
        {
            **summary(match.library, catalog, tagged),
            "relevance": match.relevance,
            "next": next_calls(match.library, catalog),
        }
        for match in catalog.resolve(args.query, args.language, tagged_languages=tagged_languages(tagged))
    ]
    answer: dict[str, Any] = {"query": args.query, "results": results}
    if sources.registry is not None and not any(r["relevance"] >= KNOWN_RELEVANCE for r in results):
        packages, note = registry_packages(sources.registry, args.query, args.language)
        if packages:
            answer["packages"] = packages  # in PyPI/npm, not indexed: `add` says how to index one
        if note:
            answer["registry_note"] = note
    hint = (
        None
        if results or answer.get("packages")
        else f"No library matches {quoted(args.query)}. This index holds: {', '.join(catalog.libraries)}."
    )
    if not results and answer.get("packages"):
        hint = f"No indexed library matches {quoted(args.query)}; 'packages' lists the registries' packages of that name: index one with its 'add' command."
    return {**answer, "hint": hint}


def spec(context: ToolContext) -> ToolSpec[ResolveArgs]:
    return library_spec(
        NAME, DESCRIPTION, SCHEMA, parse, lambda index, args: run(index, args, context.needed_sources())
    )
