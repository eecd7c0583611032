"""get_library_info: one library's metadata, topics and table of contents (by section, in pages of at most
MAX_INFO_CHARS); a successful call adds the library to the session's resolved-libraries resource."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.libraries.library import Library
from docs_mcp.server.core.arguments import integer, json_type, schema_arguments
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec, render_json
from docs_mcp.server.errors import InvalidArgumentError, quoted_list
from docs_mcp.server.libraries import resources
from docs_mcp.server.libraries.answers import catalog_of, freshness, next_calls, shown_source, summary, topics
from docs_mcp.server.libraries.remote import Sources, refuse_remote
from docs_mcp.server.search.engine import Engine
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.library_tools import LIBRARY_ID, MAX_ID_CHARS, MAX_OFFSET, closed_schema, library_spec, text

NAME = "get_library_info"
MAX_SECTIONS = 50
MAX_INFO_CHARS = 20_000  # one get_library_info answer; a large library's table of contents comes in pages
OUTLINE_MAX_DOCUMENTS = 100  # above this, TOC entries leave out their headings (filter by sections)
OUTLINE_HEADINGS = 12

DESCRIPTION = (
    "Use it to see what a library's documentation covers before reading, or to find a page by its title. Describes "
    "one library and lists its table of contents: every document with title, path, a one-line description and "
    "section. Large tables of contents come in pages (has_more, next_offset) or filter by sections; read a document "
    "with read_page."
)
SCHEMA = closed_schema(
    {
        "library_id": LIBRARY_ID,
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
    ["library_id"],
)


@dataclass(frozen=True)
class InfoArgs:
    library_id: str
    sections: tuple[str, ...] | None
    offset: int = 0


def parse(arguments: Mapping[str, Any] | None) -> InfoArgs:
    """Check get_library_info arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type.
    """
    given = schema_arguments(NAME, arguments, SCHEMA)
    # No section named (an empty list, or only blank names) reads the whole table of contents.
    sections = (_strings(given, "sections", MAX_SECTIONS) or None) if "sections" in given else None
    offset = integer(given, "offset", SCHEMA)
    return InfoArgs(text(given, "library_id", "a library ID from resolve_library", MAX_ID_CHARS), sections, offset)


def _strings(given: Mapping[str, Any], name: str, limit: int) -> tuple[str, ...]:
    value = given[name]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        shown = json_type(value) if not isinstance(value, list) else "a list with non-string items"
        raise InvalidArgumentError(
            f"Argument '{name}' must be a list of strings, not {shown}.", f"Pass e.g. {name}=['...']."
        )
    if len(value) > limit:
        raise InvalidArgumentError(f"Argument '{name}' has {len(value)} items; the limit is {limit}.", "Pass fewer.")
    return tuple(item.strip() for item in value if item.strip())


def run(index: ServedIndex, args: InfoArgs, sources: Sources) -> str:
    """Run get_library_info: the library's metadata, topics and table of contents (optionally by section).

    Raises:
        InvalidArgumentError: an argument does not fit the schema, or no requested section exists.
        LibraryNotFoundError: no library has that ID.
        WrongToolError: the library is remote (get_context7_docs answers it).
        SourceError: an llms.txt library's llms.txt cannot be fetched.
    """
    library = catalog_of(index, sources.registered()).get(args.library_id)
    refuse_remote(library)
    prepared = sources.prepare(index, [library])
    index = prepared.index
    catalog = catalog_of(index, sources.registered())
    library = catalog.get(library.library_id)
    entries, chosen, unknown = _filter_sections(library, args.sections)
    tagged = topics(index.engine, catalog)
    # Pages of an llms.txt library not fetched yet have no outline.
    indexed = {e.path for e in entries} & set(index.engine.metadata.get("files") or {})
    outline = _outline(index.engine, indexed) if len(entries) <= OUTLINE_MAX_DOCUMENTS else {}
    result = {
        **summary(library, catalog, tagged, all_sections=True),
        "indexed_at": library.indexed_at,
        "chunks": library.chunks,
        "sources": [shown_source(source) for source in library.sources],
        "stale_pages": library.stale_pages(),
        **({"package": dict(library.package)} if library.package else {}),
        **({"source_notes": library.shown_notes()} if library.source_notes else {}),
        "available_sections": library.sections,
        "next": next_calls(library, catalog),
        **freshness(prepared),
    }
    if chosen is not None:
        result["filtered_by_sections"] = chosen
    if unknown:
        result["unknown_sections"] = unknown
    return _toc_page(result, [_toc_entry(entry, outline) for entry in entries], args.offset)


def _filter_sections(library: Library, wanted: tuple[str, ...] | None):
    if wanted is None:
        return list(library.toc), None, []
    by_fold = {section.casefold(): section for section in library.sections}
    chosen = [by_fold[w.casefold()] for w in wanted if w.casefold() in by_fold]
    unknown = [w for w in wanted if w.casefold() not in by_fold]
    if not chosen:
        raise InvalidArgumentError(
            f"No section {quoted_list(list(wanted))} in library '{library.library_id}'.",
            f"Pick from available_sections: {', '.join(library.sections)}.",
        )
    return [e for e in library.toc if e.section in chosen], list(dict.fromkeys(chosen)), unknown


def _toc_page(result: dict[str, Any], toc: list[dict[str, Any]], offset: int) -> str:
    """``result`` with the TOC entries from ``offset`` that fit in MAX_INFO_CHARS (one at least), and where to go on."""
    shown = toc[offset:]
    while True:
        end = offset + len(shown)
        page = {
            **result,
            "toc_total": len(toc),
            "toc_offset": offset,
            "toc": shown,
            "has_more": end < len(toc),
            "next_offset": end if end < len(toc) else None,
        }
        text = render_json(page)
        if len(text) <= MAX_INFO_CHARS or len(shown) <= 1:
            return text
        # Drop entries in proportion to the excess (at least one), then measure again.
        excess = (len(text) - MAX_INFO_CHARS) / len(text)
        shown = shown[: max(1, min(len(shown) - 1, int(len(shown) * (1 - excess))))]


def _toc_entry(entry, outline: Mapping[str, list[str]]) -> dict[str, Any]:
    shown = {"title": entry.title, "path": entry.path, "description": entry.description, "section": entry.section}
    if entry.url:
        shown["url"] = entry.url
    if entry.path in outline:
        shown["headings"] = outline[entry.path]
    return shown


def _outline(engine: Engine, paths: set[str]) -> dict[str, list[str]]:
    """Each document's section headings (its outline at the chunking level), in order."""
    outline: dict[str, list[str]] = {path: [] for path in paths}
    columns = engine.columns
    for path, heading in zip(columns.filepath, columns.heading):
        if path in outline and heading and len(outline[path]) < OUTLINE_HEADINGS and heading not in outline[path]:
            outline[path].append(heading)
    return outline


async def remember_library(ctx: Any, arguments: Mapping[str, Any] | None) -> None:
    """After a successful call: the session's resolved-libraries resource gains the library (announced when new)."""
    state = ctx.lifespan_context
    await resources.remember_library(ctx, state.sessions, state.live, arguments)


def spec(context: ToolContext) -> ToolSpec[InfoArgs]:
    """get_library_info; slow: an llms.txt library's table of contents may be fetched first."""
    return library_spec(
        NAME,
        DESCRIPTION,
        SCHEMA,
        parse,
        lambda index, args: run(index, args, context.needed_sources()),
        slow=True,
        after_call=remember_library,
    )
