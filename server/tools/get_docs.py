"""get_docs: one packed answer about a topic from one or more libraries within a token budget (the best sections,
long ones as their best passage), with its confidence and the pages to read next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.libraries.library import Library
from docs_mcp.server.core.arguments import integer, json_type, schema_arguments, short_string, string
from docs_mcp.server.core.facets import filter_values
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError, quoted, quoted_list
from docs_mcp.server.libraries.answers import catalog_of, freshness
from docs_mcp.server.libraries.fastpath import (
    LANGUAGE_KEY,
    answering_libraries,
    count_tokens,
    find_candidates,
    pack,
    related_pages,
)
from docs_mcp.server.libraries.languages import matching, speaks
from docs_mcp.server.libraries.remote import Sources, refuse_remote
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.search.engine import Engine
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.library_tools import (
    LIBRARY_ID,
    MAX_ID_CHARS,
    MAX_LANGUAGE_CHARS,
    MAX_TOPIC_CHARS,
    TOKENS,
    closed_schema,
    library_spec,
    text,
)
from docs_mcp.server.tools.search_docs import require_vectors_for

NAME = "get_docs"
MAX_LIBRARIES = 10
LOW_CONFIDENCE = 0.5

DESCRIPTION = (
    "Use it when you want one packed answer about a topic from one or more libraries within a token budget, rather "
    "than a list of hits to read: the best sections (long ones as their best passage, with a pointer to get_doc) "
    "packed into max_tokens. Check confidence: below 0.5, read related_pages with read_page or browse "
    "get_library_info. Only for libraries resolve_library marks tool 'get_docs'."
)
# The object form of a library in get_docs ({"libraryId": ...}); library_id is accepted too, as agents write either.
_LIBRARY_REF = {
    "type": "object",
    "properties": {"libraryId": LIBRARY_ID, "library_id": LIBRARY_ID},
    "minProperties": 1,
    "maxProperties": 1,
    "additionalProperties": False,
}
SCHEMA = closed_schema(
    {
        "libraries": {
            "type": "array",
            "items": {"anyOf": [LIBRARY_ID, _LIBRARY_REF]},
            "minItems": 1,
            "maxItems": MAX_LIBRARIES,
            "description": 'The libraries to answer from (IDs from resolve_library): [\'org/project\'] or [{"libraryId": "org/project"}].',
        },
        "topic": {
            "type": "string",
            "maxLength": MAX_TOPIC_CHARS,
            "description": "What you need to know (e.g. 'dependency injection', 'RateLimitError').",
        },
        "language": {
            "type": "string",
            "maxLength": MAX_LANGUAGE_CHARS,
            "description": "Only sections about this language (e.g. 'python'), like search_docs's language filter; its family counts ('typescript' matches 'javascript'), and a library written in it needs no tagged sections.",
        },
        "max_tokens": {**TOKENS, "description": "Budget for the returned content, counted as ceil(characters / 4)."},
    },
    ["libraries", "topic"],
)


@dataclass(frozen=True)
class DocsArgs:
    libraries: tuple[str, ...]
    topic: str
    max_tokens: int
    language: str | None = None


_EXAMPLE_ID = "fastapi/fastapi"
_LIBRARY_FORMS = f'Pass libraries=[\'{_EXAMPLE_ID}\'] or libraries=[{{"libraryId": "{_EXAMPLE_ID}"}}], with IDs from resolve_library.'
_ID_KEYS = ("libraryId", "library_id")


def parse(arguments: Mapping[str, Any] | None) -> DocsArgs:
    """Check get_docs arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = schema_arguments(NAME, arguments, SCHEMA)
    if "libraries" not in given:
        raise InvalidArgumentError("Missing required argument 'libraries'.", _LIBRARY_FORMS)
    libraries = [library_id for library_id in map(_library_id, given["libraries"]) if library_id]
    if not libraries:
        raise InvalidArgumentError("Argument 'libraries' is empty.", _LIBRARY_FORMS)
    language = string(given, "language")
    return DocsArgs(
        libraries=tuple(dict.fromkeys(libraries)),
        topic=text(given, "topic", "what you need to know, e.g. 'dependency injection'", MAX_TOPIC_CHARS),
        max_tokens=integer(given, "max_tokens", SCHEMA),
        language=language.strip() if language and language.strip() else None,
    )


def _library_id(item: Any) -> str:
    """A library ID given as a string or as an object {"libraryId": ...} (or {"library_id": ...})."""
    if isinstance(item, Mapping) and len(item) == 1 and next(iter(item)) in _ID_KEYS:
        item = next(iter(item.values()))
    if not isinstance(item, str):
        shown = (
            json_type(item)
            if not isinstance(item, Mapping)
            else f"an object with keys {quoted_list(sorted(map(str, item)))}"
            if item
            else "an empty object"
        )
        raise InvalidArgumentError(f"An item of 'libraries' is {shown}, not a library ID.", _LIBRARY_FORMS)
    short_string("libraries[]", item, MAX_ID_CHARS)
    return item.strip()


def run(index: ServedIndex, args: DocsArgs, mode: Mode, sources: Sources) -> dict[str, Any]:
    """Run get_docs: the best chunks for the topic across the libraries, packed into ``max_tokens``.

    llms.txt libraries are fetched first where needed: their TOC, and the pages whose
    title or description match the topic (then indexed, so search_docs finds them too).

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        LibraryNotFoundError: one of the libraries does not exist (the message names it).
        WrongToolError: one of them is remote (get_context7_docs answers it).
        TopicNotFoundError: nothing in those libraries matches the topic.
        SourceError: an llms.txt library cannot be fetched.
    """
    require_vectors_for(mode, index)
    requested = [catalog_of(index, sources.registered()).get(library_id) for library_id in args.libraries]
    for library in requested:
        refuse_remote(library)
    prepared = sources.prepare(index, requested, args.topic)
    index = prepared.index
    catalog = catalog_of(index, sources.registered())
    libraries = [catalog.get(library.library_id) for library in requested]
    language = section_language(index.engine, libraries, catalog, args.language) if args.language else None
    candidates = find_candidates(index, catalog, libraries, args.topic, mode, language)
    packed = pack(candidates, args.max_tokens, index.engine.content_words(args.topic))
    content = "\n\n".join(p.block for p in packed)
    top = packed[0].candidate.confidence
    resolved = {asked: lib.library_id for asked, lib in zip(args.libraries, libraries) if asked != lib.library_id}
    return {
        "topic": args.topic,
        "libraries": [lib.library_id for lib in libraries],
        # A library asked for without a version answers at its default one (pinned, else newest), and says so.
        **({"resolved_versions": resolved} if resolved else {}),
        "confidence": top,
        # Several libraries: which of them answer, best first, and how sure each is (its best hit's confidence).
        **({"by_library": answering_libraries(candidates, packed, libraries)} if len(libraries) > 1 else {}),
        "content": content,
        "tokens": count_tokens(content),
        "max_tokens": args.max_tokens,
        "chunks": [
            {
                "library_id": p.candidate.library_id,
                "chunk_id": p.candidate.hit.chunk_id,
                "path": p.candidate.hit.filepath,
                "heading": p.candidate.hit.heading,
                "confidence": p.candidate.confidence,
                "tokens": count_tokens(p.block),
                "chunk_tokens": count_tokens(p.candidate.content),  # the whole chunk, for get_doc
                "passage": p.passage,
                "truncated": p.truncated,
                "provenance": catalog.owner(p.candidate.hit.filepath).origin_of(p.candidate.hit.filepath),
            }
            for p in packed
        ],
        "related_pages": related_pages(candidates, packed, catalog),
        "hint": None
        if top >= LOW_CONFIDENCE
        else "Low confidence: read related_pages with read_page, or browse get_library_info.",
        **freshness(prepared),
    }


def section_language(
    engine: Engine, libraries: Sequence[Library], catalog: LibraryCatalog, language: str
) -> str | None:
    """The index's spelling of ``language``'s family among its language taxonomy values (the exact one first), to filter
    sections by; None (no filter) when the index tags none of that family but every library asked for is written in it
    (an npm package indexed as ``javascript``, asked for in ``typescript``: languages.py).

    Raises:
        InvalidArgumentError: neither a section nor a library asked for is of that language; the hint names those that are.
    """
    values = filter_values(engine.metadata).get(LANGUAGE_KEY, ())
    tagged = matching(language, values)
    if tagged:
        return tagged[0]
    if all(speaks(language, library.languages) for library in libraries):
        return None
    spoken = {lang: None for lib in catalog.libraries.values() for lang in lib.languages}
    known = sorted({*values, *spoken}, key=str.casefold)
    raise InvalidArgumentError(
        f"Neither the libraries asked for nor any section of this index are in language {quoted(language)}.",
        f"Languages here: {', '.join(known)}; pass one of them as 'language', or leave 'language' out."
        if known
        else "This index records no language for its libraries or sections: leave 'language' out.",
    )


def spec(context: ToolContext) -> ToolSpec[DocsArgs]:
    """get_docs ranking in ``context.mode``; slow: an llms.txt library's pages may be fetched first."""
    return library_spec(
        NAME,
        DESCRIPTION,
        SCHEMA,
        parse,
        lambda index, args: run(index, args, context.mode, context.needed_sources()),
        slow=True,
    )
