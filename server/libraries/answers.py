"""What the library tools' answers share: the catalog of a generation, a library's summary and versions, the
calls to make next, the topics its sections are tagged with, and how fresh a fetched copy is.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from docs_mcp.indexer.libraries.library import REMOTE, Library
from docs_mcp.indexer.libraries.spec import LIBRARY_KEY
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.libraries.fastpath import LANGUAGE_KEY
from docs_mcp.server.libraries.remote import Prepared
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.search.engine import Engine

MAX_LISTED_SECTIONS = 20
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


def summary(
    library: Library,
    catalog: LibraryCatalog,
    topics: Mapping[str, Mapping[str, list[str]]],
    *,
    all_sections: bool = False,
) -> dict[str, Any]:
    sections = library.sections
    return {
        "library_id": library.library_id,
        "name": library.name,
        "description": library.description,
        "languages": list(
            dict.fromkeys([*library.languages, *topics.get(library.library_id, {}).get(LANGUAGE_KEY, ())])
        ),
        "version": library.version,
        "documents": len(library.toc),
        "sections": sections if all_sections else sections[:MAX_LISTED_SECTIONS],
        "topics": topics.get(library.library_id, {}),
        "source": library.source,
        "tool": "get_context7_docs" if library.source == REMOTE else "get_docs",
        "indexed": library.indexed,
        **({"origin": library.origin} if library.origin else {}),
        **version_fields(library, catalog),
    }


def version_fields(library: Library, catalog: LibraryCatalog) -> dict[str, Any]:
    """For a library held at versions: its base ID, every version indexed (newest first) and the one the base ID means."""
    versions = catalog.versions_of(library.base_id)
    if not versions:
        return {}
    default = catalog.default_of(library)
    return {
        "base_id": library.base_id,
        "pinned": library.pinned,
        "default_version": default.version,
        "versions": [
            {"version": v.version, "library_id": v.library_id, "pinned": v.pinned, "indexed_at": v.indexed_at}
            for v in versions
        ],
    }


def next_calls(library: Library, catalog: LibraryCatalog) -> dict[str, Any]:
    """Ready-to-fill calls of the other tools for this library."""
    if library.source == REMOTE:
        return {"get_context7_docs": {"library_id": library.library_id, "topic": "..."}}
    return {
        "get_library_info": {"library_id": library.library_id},
        "get_docs": {"libraries": [library.library_id], "topic": "..."},
        "search_docs": {"query": "...", **({LIBRARY_KEY: library.library_id} if catalog.several else {})},
        "read_page": {"path": "<a toc path>"},
    }


def topics(engine: Engine, catalog: LibraryCatalog) -> dict[str, dict[str, list[str]]]:
    """Per library, the taxonomy values its chunks carry (the library facet left out)."""
    values: dict[str, dict[str, set[str]]] = {}
    owners: dict[str, str] = {}
    for path, metadata in zip(engine.columns.filepath, engine.columns.metadata):
        owner = owners.get(path) or owners.setdefault(path, catalog.owner(path).library_id)
        for key, value in metadata.items():
            if key != LIBRARY_KEY:
                values.setdefault(owner, {}).setdefault(key, set()).add(value)
    return {lib: {key: sorted(vals) for key, vals in sorted(keys.items())} for lib, keys in values.items()}


def tagged_languages(topics: Mapping[str, Mapping[str, list[str]]]) -> dict[str, tuple[str, ...]]:
    """Per library, the languages its sections are tagged with."""
    return {library_id: tuple(keys.get(LANGUAGE_KEY, ())) for library_id, keys in topics.items()}


def freshness(prepared: Prepared) -> dict[str, Any]:
    """``stale`` (an llms.txt library's copy is past its TTL, being refreshed), and ``warnings`` when a fetch failed."""
    return {"stale": prepared.stale, **({"warnings": list(prepared.warnings)} if prepared.warnings else {})}


def shown_source(source: Mapping[str, Any]) -> dict[str, Any]:
    """A library's source as answers show it: kind, URL (a folder's local path is not shown), revision, fetched_at."""
    url = str(source.get("url") or "")
    return {"kind": source.get("kind", ""), "url": url if url.startswith(("http://", "https://")) else None,
            "revision": source.get("revision") or None, "fetched_at": source.get("fetched_at") or None}  # fmt: skip
