"""Library operations on an existing index: list what it holds, remove one library.

Removal rebuilds the index from the other libraries' stored chunks (their vectors are
reused, so nothing is embedded) and swaps the new generation in like any build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from docs_mcp.redact import redact
from docs_mcp.indexer.generation import ProgressFn, write_index
from docs_mcp.indexer.index_file import open_index
from docs_mcp.indexer.libraries.merge import plan_removal
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.records import IndexReport


@dataclass(frozen=True)
class LibraryListing:
    """One library of an index, as `docs-mcp libraries` shows it."""

    library_id: str
    name: str
    version: str
    languages: tuple[str, ...]
    documents: int
    chunks: int
    indexed_at: str
    source: str
    implicit: bool

    def as_json(self) -> dict[str, Any]:
        """The listing as `docs-mcp libraries --json` prints it."""
        return {**self.__dict__, "languages": list(self.languages)}


def list_libraries(index_dir: Path) -> list[LibraryListing]:
    """The libraries of the index at ``index_dir``, by ID.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    with open_index(Path(index_dir)) as reader:
        entries = catalog_entries(reader.metadata)
    return [_listing(library_id, entry) for library_id, entry in sorted(entries.items())]


def remove_library(index_dir: Path, library_id: str, *, progress: ProgressFn | None = None) -> IndexReport:
    """Rebuild the index at ``index_dir`` without ``library_id``, with the model that built it.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
        LibraryError: the index has no such library, or it is the only one.
        ModelLoadError, IndexLockedError: as for any build.
    """
    with open_index(Path(index_dir)) as reader:
        embeddings = reader.model.name if reader.model else "none"
    plan = plan_removal(Path(index_dir), library_id)
    return write_index(plan.scan, Path(index_dir), embeddings=embeddings, annotate=plan.catalog.annotate, progress=progress)


def _listing(library_id: str, entry: Mapping[str, Any]) -> LibraryListing:
    stats = entry.get("stats") or {}
    return LibraryListing(
        library_id=library_id,
        name=entry.get("name", ""),
        version=entry.get("version", ""),
        languages=tuple(entry.get("languages") or ()),
        documents=int(stats.get("files", 0)),
        chunks=int(stats.get("chunks", 0)),
        indexed_at=entry.get("indexed_at", ""),
        source=redact(entry.get("source", "")),  # an llms.txt URL may carry a key
        implicit=bool(entry.get("implicit")),
    )
