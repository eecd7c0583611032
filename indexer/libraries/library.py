"""The one Library record: a documentation set as an index's catalog records it, or as the registry
knows it before it is indexed. The library tools, ``docs-mcp libraries`` and the catalog all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

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

    @classmethod
    def from_entry(cls, library_id: str, entry: Mapping[str, Any]) -> "Library":
        """The library an index's catalog entry (metadata.json ``libraries``) records."""
        return cls(
            library_id=library_id,
            name=entry.get("name") or library_id,
            description=entry.get("description") or "",
            languages=tuple(entry.get("languages") or ()),
            version=entry.get("version") or "",
            aliases=tuple(entry.get("aliases") or ()),
            mount=entry.get("mount") or "",
            toc=tuple(TocEntry(e["path"], e["title"], e.get("description", ""), e["section"], e.get("url", "")) for e in entry.get("toc") or ()),
            chunks=int((entry.get("stats") or {}).get("chunks", 0)),
            indexed_at=entry.get("indexed_at") or "",
            origin=entry.get("origin") or "",
            documents=int((entry.get("stats") or {}).get("files", 0)),
            location=entry.get("source", ""),
            implicit=bool(entry.get("implicit")),
        )

    def listing(self) -> dict[str, Any]:
        """The library as `docs-mcp libraries --json` prints it (its location redacted: an llms.txt URL may carry a key)."""
        return {
            "library_id": self.library_id, "name": self.name, "version": self.version, "languages": list(self.languages),
            "documents": self.documents, "chunks": self.chunks, "indexed_at": self.indexed_at, "source": redact(self.location),
            "implicit": self.implicit,
        }  # fmt: skip

    @property
    def sections(self) -> list[str]:
        """Section names in table-of-contents order, each once."""
        return list(dict.fromkeys(entry.section for entry in self.toc))

    def names(self) -> list[str]:
        """What an agent may call this library: ID, project, name and aliases."""
        return [self.library_id, self.library_id.split("/")[-1], self.name, *self.aliases]
