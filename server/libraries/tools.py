"""The library tools as registry entries: checked arguments in, the answer's JSON data out (errors are raised).

resolve_library -> get_library_info -> read_page is the navigation path; get_docs is the
one-call fast path; get_context7_docs answers remote libraries.  Libraries read from an
llms.txt are fetched into the index on first use (``Sources.prepare``) before answering.
Each runs in a worker thread; the engine is safe to share between threads (each thread
reads through its own DuckDB cursor); the registry renders a raised error in the shape of server.core.tool_errors.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Callable, Mapping

from docs_mcp.indexer.libraries.spec import LIBRARY_KEY
from docs_mcp.server.contract.schemas import filter_values
from docs_mcp.server.contract.tools import require_vectors_for
from docs_mcp.server.search.engine import Engine
from docs_mcp.server.errors import InvalidArgumentError, quoted, quoted_list
from docs_mcp.server.libraries.fastpath import LANGUAGE_KEY, count_tokens, find_candidates, pack, related_pages
from docs_mcp.server.libraries.arguments import (
    Context7Args,
    DocsArgs,
    InfoArgs,
    PageArgs,
    ResolveArgs,
    parse_context7_args,
    parse_docs_args,
    parse_info_args,
    parse_page_args,
    parse_resolve_args,
)
from docs_mcp.indexer.libraries.library import REMOTE, Library
from docs_mcp.server.libraries.catalog import LibraryCatalog
from docs_mcp.server.libraries.errors import LibraryNotFoundError
from docs_mcp.server.libraries.packages import KNOWN_RELEVANCE, registry_packages
from docs_mcp.server.libraries.pages import line_fields, locate, read_lines
from docs_mcp.server.libraries.remote import Prepared, Sources, refuse_remote
from docs_mcp.server.libraries.schemas import (
    GET_CONTEXT7_DOCS,
    GET_DOCS,
    GET_LIBRARY_INFO,
    MAX_INFO_CHARS,
    READ_PAGE,
    RESOLVE_LIBRARY,
    library_tool,
)
from docs_mcp.server.core.registry import ToolSpec, render_json
from docs_mcp.server.core.live_index import ServedIndex

MAX_LISTED_SECTIONS = 20
OUTLINE_MAX_DOCUMENTS = 100  # above this, TOC entries leave out their headings (filter by sections)
OUTLINE_HEADINGS = 12
LOW_CONFIDENCE = 0.5


_REGISTRIES_KEPT = 4
_CATALOGS_LOCK = threading.Lock()


def catalog_of(index: ServedIndex, registered: tuple[Library, ...] = ()) -> LibraryCatalog:
    """The library catalog of the generation ``index`` serves, plus the registry's other libraries (parsed once per generation)."""
    by_registry: dict[tuple[Library, ...], LibraryCatalog] = index.derived(LibraryCatalog, dict)
    with _CATALOGS_LOCK:
        catalog = by_registry.get(registered)
        if catalog is None:
            if len(by_registry) >= _REGISTRIES_KEPT:
                by_registry.clear()
            catalog = by_registry[registered] = LibraryCatalog.from_metadata(index.engine.metadata, registered)
        return catalog


def resolve_library(index: ServedIndex, args: ResolveArgs, sources: Sources) -> dict[str, Any]:
    """Run resolve_library: every library matching the query, best first, with what to call next.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
    """
    catalog = catalog_of(index, sources.registered())
    topics = _topics(index.engine, catalog)
    results = [
        {**_summary(match.library, catalog, topics), "relevance": match.relevance, "next": _next_calls(match.library, catalog)}
        for match in catalog.resolve(args.query, args.language, tagged_languages=_tagged_languages(topics))
    ]
    answer: dict[str, Any] = {"query": args.query, "results": results}
    if sources.registry is not None and not any(r["relevance"] >= KNOWN_RELEVANCE for r in results):
        packages, note = registry_packages(sources.registry, args.query, args.language)
        if packages:
            answer["packages"] = packages  # in PyPI/npm, not indexed: `add` says how to index one
        if note:
            answer["registry_note"] = note
    hint = None if results or answer.get("packages") else f"No library matches {quoted(args.query)}. This index holds: {', '.join(catalog.libraries)}."
    if not results and answer.get("packages"):
        hint = f"No indexed library matches {quoted(args.query)}; 'packages' lists the registries' packages of that name: index one with its 'add' command."
    return {**answer, "hint": hint}


def get_library_info(index: ServedIndex, args: InfoArgs, sources: Sources) -> str:
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
    topics = _topics(index.engine, catalog)
    # Pages of an llms.txt library not fetched yet have no outline.
    indexed = {e.path for e in entries} & set(index.engine.metadata.get("files") or {})
    outline = _outline(index.engine, indexed) if len(entries) <= OUTLINE_MAX_DOCUMENTS else {}
    result = {
        **_summary(library, catalog, topics, all_sections=True),
        "indexed_at": library.indexed_at,
        "chunks": library.chunks,
        "sources": [_shown_source(source) for source in library.sources],
        "stale_pages": library.stale_pages(),
        **({"package": dict(library.package)} if library.package else {}),
        **({"source_notes": library.shown_notes()} if library.source_notes else {}),
        "available_sections": library.sections,
        "next": _next_calls(library, catalog),
        **_freshness(prepared),
    }
    if chosen is not None:
        result["filtered_by_sections"] = chosen
    if unknown:
        result["unknown_sections"] = unknown
    return _toc_page(result, [_toc_entry(entry, outline) for entry in entries], args.offset)


def read_page(index: ServedIndex, args: PageArgs, sources: Sources) -> dict[str, Any]:
    """Run read_page: ``max_lines`` lines of an indexed document from ``offset``, or of a page by URL.

    A path from an llms.txt library's table of contents that is not indexed yet is read by its URL;
    the URL of a crawled site's page is read from the index.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        LibraryNotFoundError: ``library_id`` names no library.
        PathNotAllowedError: the path tries to leave the indexed documents.
        PageNotFoundError: no indexed document has that path.
        SourceError: the URL is refused (URL_NOT_ALLOWED) or cannot be read (SOURCE_UNAVAILABLE, INVALID_CONTENT...).
    """
    catalog = catalog_of(index, sources.registered())
    if args.url:
        crawled = _crawled_path(catalog, args.url)
        if crawled is None:
            return sources.read_url(args)
        args = replace(args, url=None, path=crawled)  # a page of a crawled site: read as indexed
    library = catalog.get(args.library_id) if args.library_id else None
    files = index.engine.metadata.get("files") or {}
    url = _unindexed_url(catalog, files, args.path or "", library)
    if url:
        return sources.read_url(replace(args, url=url, path=None))
    path = locate(catalog, files, args.path or "", library)
    content, total, returned = read_lines(index.engine.store, path, args.offset, args.max_lines)
    entry = catalog.entry(path)
    owner = catalog.owner(path)
    return {
        "library_id": owner.library_id,
        "version": owner.version or None,
        "path": path,
        "title": entry.title if entry else path,
        **line_fields(content, total, args.offset, returned),
        "provenance": owner.origin_of(path),
    }


def _crawled_path(catalog: LibraryCatalog, url: str) -> str | None:
    """The indexed path of ``url`` when it is a page of a crawled site or a repository library (None otherwise)."""
    # Imported here: these modules bring the crawler's and the fetcher's (BeautifulSoup, httpx, the index
    # writer), which a server that only searches never needs (tests/server/test_start_imports.py).
    from docs_mcp.indexer.sources.repository import GITHUB
    from docs_mcp.indexer.sources.site import SITE
    from docs_mcp.indexer.sources.site_links import normal_url

    wanted = {url, normal_url(url)}
    for library in catalog.libraries.values():
        if library.origin in (SITE, GITHUB):
            for entry in library.toc:
                if entry.url and entry.url in wanted:
                    return entry.path
    return None


def get_docs(index: ServedIndex, args: DocsArgs, mode: str, sources: Sources) -> dict[str, Any]:
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
    language = _tagged_language(index.engine, args.language) if args.language else None
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
        "hint": None if top >= LOW_CONFIDENCE else "Low confidence: read related_pages with read_page, or browse get_library_info.",
        **_freshness(prepared),
    }


def _shown_source(source: Mapping[str, Any]) -> dict[str, Any]:
    """A library's source as answers show it: kind, URL (a folder's local path is not shown), revision, fetched_at."""
    url = str(source.get("url") or "")
    return {"kind": source.get("kind", ""), "url": url if url.startswith(("http://", "https://")) else None,
            "revision": source.get("revision") or None, "fetched_at": source.get("fetched_at") or None}  # fmt: skip


def _freshness(prepared: Prepared) -> dict[str, Any]:
    """``stale`` (an llms.txt library's copy is past its TTL, being refreshed), and ``warnings`` when a fetch failed."""
    return {"stale": prepared.stale, **({"warnings": list(prepared.warnings)} if prepared.warnings else {})}


def _tagged_language(engine: Engine, language: str) -> str:
    """The index's spelling of ``language`` among the values of its language taxonomy.

    Raises:
        InvalidArgumentError: the index tags no section with that language.
    """
    values = filter_values(engine.metadata).get(LANGUAGE_KEY, ())
    match = next((value for value in values if value.casefold() == language.casefold()), None)
    if match is None:
        known = f"Pick one of: {', '.join(values)}" if values else "This index does not tag its sections by language"
        raise InvalidArgumentError(f"No section of this index is tagged with language {quoted(language)}.", f"{known}, or leave 'language' out.")
    return match


def _tagged_languages(topics: Mapping[str, Mapping[str, list[str]]]) -> dict[str, tuple[str, ...]]:
    """Per library, the languages its sections are tagged with."""
    return {library_id: tuple(keys.get(LANGUAGE_KEY, ())) for library_id, keys in topics.items()}


def get_context7_docs(index: ServedIndex, args: Context7Args, sources: Sources) -> dict[str, Any]:
    """Run get_context7_docs: the configured Context7-compatible API's documentation for a remote library.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        WrongToolError: the library is local (get_docs answers it).
        SourceError: no API is configured, or it cannot be reached.
    """
    return sources.context7_docs(args, catalog_of(index, sources.registered()))


def search_provenance(index: ServedIndex, arguments: Mapping[str, Any] | None, result: Mapping[str, Any]) -> dict[str, Any]:
    """What search_docs' structured content adds to the contract's SearchResult: the libraries searched (at the
    versions searched) and, on every hit, where it comes from (library, version, source URL, revision, fetched and
    indexed times). An llms.txt library is searched only over the pages fetched so far.
    """
    catalog = catalog_of(index)
    chosen = (arguments or {}).get(LIBRARY_KEY)
    if isinstance(chosen, str):
        try:
            searched = [catalog.get(chosen).library_id]
        except LibraryNotFoundError:
            searched = [chosen]
    else:
        searched = sorted(lib.library_id for lib in catalog.libraries.values() if lib.indexed and catalog.is_default(lib))
    hits = [{**hit, "provenance": catalog.owner(hit["filepath"]).origin_of(hit["filepath"])} for hit in result.get("hits") or ()]
    return {"hits": hits, "searched_libraries": searched}


def _unindexed_url(catalog: LibraryCatalog, files: Mapping[str, Any], path: str, library: Library | None) -> str:
    """The URL of the llms.txt TOC entry ``path`` names when its page is not indexed yet ('' otherwise)."""
    pool = library.toc if library else [entry for lib in catalog.libraries.values() for entry in lib.toc]
    wanted = {path, library.mount + path} if library else {path}
    return next((e.url for e in pool if e.url and e.path in wanted and e.path not in files), "")


def _summary(library: Library, catalog: LibraryCatalog, topics: Mapping[str, Mapping[str, list[str]]], *, all_sections: bool = False) -> dict[str, Any]:
    sections = library.sections
    return {
        "library_id": library.library_id,
        "name": library.name,
        "description": library.description,
        "languages": list(dict.fromkeys([*library.languages, *topics.get(library.library_id, {}).get(LANGUAGE_KEY, ())])),
        "version": library.version,
        "documents": len(library.toc),
        "sections": sections if all_sections else sections[:MAX_LISTED_SECTIONS],
        "topics": topics.get(library.library_id, {}),
        "source": library.source,
        "tool": GET_CONTEXT7_DOCS if library.source == REMOTE else GET_DOCS,
        "indexed": library.indexed,
        **({"origin": library.origin} if library.origin else {}),
        **_versions(library, catalog),
    }


def _versions(library: Library, catalog: LibraryCatalog) -> dict[str, Any]:
    """For a library held at versions: its base ID, every version indexed (newest first) and the one the base ID means."""
    versions = catalog.versions_of(library.base_id)
    if not versions:
        return {}
    default = catalog.default_of(library)
    return {
        "base_id": library.base_id,
        "pinned": library.pinned,
        "default_version": default.version,
        "versions": [{"version": v.version, "library_id": v.library_id, "pinned": v.pinned, "indexed_at": v.indexed_at} for v in versions],
    }


def _next_calls(library: Library, catalog: LibraryCatalog) -> dict[str, Any]:
    """Ready-to-fill calls of the other tools for this library."""
    if library.source == REMOTE:
        return {GET_CONTEXT7_DOCS: {"library_id": library.library_id, "topic": "..."}}
    return {
        "get_library_info": {"library_id": library.library_id},
        "get_docs": {"libraries": [library.library_id], "topic": "..."},
        "search_docs": {"query": "...", **({LIBRARY_KEY: library.library_id} if catalog.several else {})},
        "read_page": {"path": "<a toc path>"},
    }


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


def _topics(engine: Engine, catalog: LibraryCatalog) -> dict[str, dict[str, list[str]]]:
    """Per library, the taxonomy values its chunks carry (the library facet left out)."""
    values: dict[str, dict[str, set[str]]] = {}
    owners: dict[str, str] = {}
    for path, metadata in zip(engine.columns.filepath, engine.columns.metadata):
        owner = owners.get(path) or owners.setdefault(path, catalog.owner(path).library_id)
        for key, value in metadata.items():
            if key != LIBRARY_KEY:
                values.setdefault(owner, {}).setdefault(key, set()).add(value)
    return {lib: {key: sorted(vals) for key, vals in sorted(keys.items())} for lib, keys in values.items()}


def library_specs(mode: str, sources: Sources) -> list[ToolSpec[Any]]:
    """The library tools, in the order an agent uses them; get_docs ranks in ``mode``."""

    def spec(name: str, parse: Callable[[Mapping[str, Any] | None], Any], run: Callable[[ServedIndex, Any], Any]) -> ToolSpec[Any]:
        return ToolSpec(name, lambda metadata: library_tool(name), lambda arguments, index: parse(arguments), lambda args, call: run(call.index, args))

    return [
        spec(RESOLVE_LIBRARY, parse_resolve_args, lambda index, args: resolve_library(index, args, sources)),
        spec(GET_LIBRARY_INFO, parse_info_args, lambda index, args: get_library_info(index, args, sources)),
        spec(READ_PAGE, parse_page_args, lambda index, args: read_page(index, args, sources)),
        spec(GET_DOCS, parse_docs_args, lambda index, args: get_docs(index, args, mode, sources)),
        spec(GET_CONTEXT7_DOCS, parse_context7_args, lambda index, args: get_context7_docs(index, args, sources)),
    ]
