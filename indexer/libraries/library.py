"""The one Library record: a documentation set as an index's catalog records it, or as the registry
knows it before it is indexed. The library tools, ``docs-mcp libraries`` and the catalog all read it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.versions import parse_ref
from docs_mcp.redact import redact

LOCAL = "local"
REMOTE = "remote"


@dataclass(frozen=True)
class TocEntry:
    """One document of a library: its indexed path (usable with read_page), title, description, section.

    ``url`` is the page's address for an llms.txt library (read_page reads it on demand).
    """

    path: str  # as stored in the index (mounted), usable with read_page
    title: str
    description: str
    section: str
    url: str = ""

    def as_json(self) -> dict[str, Any]:
        """The entry as metadata.json and the tools show it (a URL only when it has one)."""
        shown = {"path": self.path, "title": self.title, "description": self.description, "section": self.section}
        return {**shown, "url": self.url} if self.url else shown


@dataclass(frozen=True)
class Library:
    """One documentation set: of the index (read from its catalog entry), or of the registry (``indexed`` False)."""

    library_id: str
    name: str
    description: str
    languages: tuple[str, ...]
    version: str
    aliases: tuple[str, ...]
    mount: str
    toc: tuple[TocEntry, ...]
    chunks: int
    indexed_at: str
    source: str = LOCAL  # LOCAL: answered from this index; REMOTE: by the Context7-compatible API
    origin: str = ""  # "llms-txt" for a library read from the web, '' for a docs folder
    indexed: bool = True  # False: in the registry, fetched into the index on first use
    documents: int = 0  # files indexed, as the catalog counted them
    location: str = ""  # where the documents came from: a docs folder, an llms.txt URL (may carry a key)
    implicit: bool = False  # the unnamed library of an index built without --library
    pinned: bool = False  # the version a project's lock file pins (docs-mcp sync)
    ttl_hours: float = 0.0  # how long fetched pages stay fresh (0: they do not age: a folder, a release's archive)
    # Where the documents came from, by kind, and each document's own provenance (path -> url, revision, fetched_at).
    sources: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)
    provenance: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    package: Mapping[str, Any] = field(default_factory=dict, compare=False)  # a registry package's metadata
    # Why a package library holds less than its richer sources might give (sources/packages/richer.py): shown wherever it is described.
    source_notes: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def from_entry(cls, entry: CatalogEntry) -> Library:
        """The library an index's catalog entry (metadata.json ``libraries``) records."""
        return cls(
            library_id=entry.library_id,
            name=entry.name or entry.library_id,
            description=entry.description,
            languages=entry.languages,
            version=entry.version,
            aliases=entry.aliases,
            mount=entry.mount,
            toc=tuple(
                TocEntry(e["path"], e["title"], e.get("description", ""), e["section"], e.get("url", ""))
                for e in entry.toc
            ),
            chunks=entry.chunks,
            indexed_at=entry.indexed_at,
            origin=entry.origin,
            documents=entry.documents,
            location=entry.source,
            implicit=entry.implicit,
            pinned=entry.pinned,
            ttl_hours=entry.ttl_hours,
            sources=entry.sources or _sources_of(entry),
            provenance=entry.provenance,
            package=entry.package,
            source_notes=entry.source_notes,
        )

    def listing(self) -> dict[str, Any]:
        """The library as `docs-mcp libraries --json` prints it (its location redacted: an llms.txt URL may carry a key)."""
        return {
            "library_id": self.library_id, "name": self.name, "version": self.version, "languages": list(self.languages),
            "documents": self.documents, "chunks": self.chunks, "indexed_at": self.indexed_at, "source": redact(self.location),
            "implicit": self.implicit, "pinned": self.pinned, "stale_pages": self.stale_pages(),
            "sources": [{**s, "url": redact(str(s.get("url") or ""))} for s in self.sources],
            "source_notes": self.shown_notes(),
        }  # fmt: skip

    def shown_notes(self) -> list[str]:
        """The source notes as answers show them (a URL in one may carry a key)."""
        return [redact(note) for note in self.source_notes]

    def freshness(self) -> dict[str, Any]:
        """Per library, what the health resource shows: version, sources (kind and URL), index date, stale pages."""
        urls = [str(s.get("url") or "") for s in self.sources]
        return {
            "library_id": self.library_id, "version": self.version or None, "pinned": self.pinned,
            "sources": [{"kind": s.get("kind", ""), "url": redact(u) if u.startswith(("http://", "https://")) else None}
                        for s, u in zip(self.sources, urls)],
            "indexed_at": self.indexed_at or None, "documents": self.documents, "chunks": self.chunks, "stale_pages": self.stale_pages(),
        }  # fmt: skip

    @property
    def base_id(self) -> str:
        """The library's ID without its version (``pypi/tomli`` for ``pypi/tomli/v2.0.1``)."""
        ref = parse_ref(self.library_id)
        return ref.base_id if ref else self.library_id

    def stale_pages(self, now: float | None = None) -> int:
        """How many fetched documents are older than the library's TTL (0 for folders and release archives)."""
        if not self.ttl_hours:
            return 0
        limit = (time.time() if now is None else now) - self.ttl_hours * 3600
        return sum(_epoch(p.get("fetched_at", "")) < limit for p in self.provenance.values())

    def origin_of(self, path: str) -> dict[str, Any]:
        """Where the document at ``path`` came from, and when: the provenance an answer carries."""
        known = self.provenance.get(path) or {}
        return {
            "library_id": self.library_id,
            "version": self.version or None,
            "source_url": known.get("url")
            or (self.location if not self.origin and self.location.startswith(("http://", "https://")) else None),
            "revision": known.get("revision") or None,
            "fetched_at": known.get("fetched_at") or None,
            "indexed_at": self.indexed_at or None,
            **({"source_notes": self.shown_notes()} if self.source_notes else {}),
        }

    @property
    def sections(self) -> list[str]:
        """Section names in table-of-contents order, each once."""
        return list(dict.fromkeys(entry.section for entry in self.toc))

    def names(self) -> list[str]:
        """What an agent may call this library: ID, project, name and aliases."""
        return [self.library_id, self.base_id, self.base_id.split("/")[-1], self.name, *self.aliases]


def _sources_of(entry: CatalogEntry) -> tuple[dict[str, Any], ...]:
    """The sources of a library indexed before sources were recorded: its folder or llms.txt."""
    location = entry.source
    if not location:
        return ()
    kind = entry.origin or ("url" if location.startswith(("http://", "https://")) else "folder")
    return ({"kind": kind, "url": location, "revision": "", "fetched_at": entry.indexed_at},)


def _epoch(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
