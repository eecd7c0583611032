"""A library's catalog entry (metadata.json ``libraries``), read once into a typed record.

Every reader of an entry (the library tools, the sources deciding whether anything changed, sync) reads
these fields, not the mapping: one place holds the tolerance for entries written by older versions (a
missing field is its empty value, a ``null`` too). ``json`` is the entry exactly as stored, which is what
a build writes back for a library it keeps: same keys, same order, so metadata.json stays byte-identical.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CatalogEntry:
    """One library's catalog entry: the fields every kind writes, those of some kinds ('' or empty otherwise)."""

    library_id: str
    name: str  # '' when the entry has none (readers show the library ID)
    description: str
    languages: tuple[str, ...]
    version: str
    aliases: tuple[str, ...]
    mount: str
    implicit: bool  # the implicit library of an index built without --library
    pinned: bool
    origin: str  # the source kind's origin (sources/kinds.py): '' for a docs folder
    source: str  # where it was read from: a folder, an llms.txt, a start URL, a repository, an archive
    indexed_at: str
    chunks: int
    documents: int
    toc: tuple[Mapping[str, Any], ...]  # path, title, description, section and (fetched kinds) url
    ttl_hours: float  # how long fetched pages stay fresh (0: they do not age)
    pages: Mapping[str, str]  # a fetched kind's pages: URL -> content hash
    sources: tuple[Mapping[str, Any], ...]  # where the documents came from, by kind (kind, url, revision, fetched_at)
    provenance: Mapping[str, Mapping[str, Any]]  # a document's own: path -> url, revision, fetched_at
    llms_txt: str  # an llms.txt library's llms.txt URL
    crawl: Mapping[str, Any]  # a site's crawl limits (max_pages, concurrency, rate)
    repository: str  # a GitHub repository's OWNER/REPO, the ref asked for and the commit it named
    requested_ref: str
    commit: str
    include: tuple[str, ...]  # a repository's --include and --exclude globs
    exclude: tuple[str, ...]
    added_by: str  # "add" or "sync" (a package)
    package: Mapping[str, Any]  # a package's registry metadata
    source_notes: tuple[str, ...]  # why a package library holds less than its richer sources might give
    json: Mapping[str, Any] = field(repr=False)  # the entry as stored, written back unchanged

    @classmethod
    def read(cls, library_id: str, entry: Mapping[str, Any]) -> CatalogEntry:
        """The entry ``library_id`` has in metadata.json (fields missing or null in old indexes read as empty)."""
        stats = entry.get("stats") or {}
        return cls(
            library_id=library_id,
            name=str(entry.get("name") or ""),
            description=str(entry.get("description") or ""),
            languages=tuple(entry.get("languages") or ()),
            version=str(entry.get("version") or ""),
            aliases=tuple(entry.get("aliases") or ()),
            mount=str(entry.get("mount") or ""),
            implicit=bool(entry.get("implicit")),
            pinned=bool(entry.get("pinned")),
            origin=str(entry.get("origin") or ""),
            source=str(entry.get("source") or ""),
            indexed_at=str(entry.get("indexed_at") or ""),
            chunks=int(stats.get("chunks", 0)),
            documents=int(stats.get("files", 0)),
            toc=tuple(entry.get("toc") or ()),
            ttl_hours=float(entry.get("ttl_hours") or 0.0),
            pages=dict(entry.get("pages") or {}),
            sources=tuple(entry.get("sources") or ()),
            provenance=dict(entry.get("provenance") or {}),
            llms_txt=str(entry.get("llms_txt") or ""),
            crawl=dict(entry.get("crawl") or {}),
            repository=str(entry.get("repository") or ""),
            requested_ref=str(entry.get("requested_ref") or ""),
            commit=str(entry.get("commit") or ""),
            include=tuple(entry.get("include") or ()),
            exclude=tuple(entry.get("exclude") or ()),
            added_by=str(entry.get("added_by") or ""),
            package=dict(entry.get("package") or {}),
            source_notes=tuple(str(note) for note in entry.get("source_notes") or ()),
            json=entry,
        )
