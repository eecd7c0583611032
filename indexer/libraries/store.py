"""Read the libraries of an index's live generation back: their chunks exactly as stored, and the catalog.

An index built before libraries existed has no ``libraries`` entry: all of its chunks
are then one implicit library, whose table of contents lists its files' titles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from docs_mcp.indexer.libraries.catalog import marks_from_metadata
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.key_settings import stored_configs
from docs_mcp.indexer.libraries.spec import IMPLICIT_OWNER, LIBRARY_KEY
from docs_mcp.indexer.libraries.toc import section_of
from docs_mcp.indexer.records import Chunk, KeyConfig
from docs_mcp.indexer.schema import CHUNKS_TABLE

_COLUMNS = (
    "chunk_id", "filepath", "heading", "heading_level", "breadcrumb", "chunk_index", "file_chunk_count",
    "content", "text", "title", "metadata", "heading_path", "headings", "library",
)  # fmt: skip
_JSON_COLUMNS = ("metadata", "heading_path", "headings")
CHUNKS_SQL = (
    f"SELECT {', '.join(_COLUMNS)} FROM {CHUNKS_TABLE} WHERE library IN (SELECT unnest($owners::VARCHAR[])) ORDER BY id"
)
LEGACY_ID = f"{IMPLICIT_OWNER}/docs"


@dataclass(frozen=True)
class StoredLibraries:
    """The libraries of one generation: chunks (mounted, as stored), catalog parts and each library's taxonomy configs."""

    chunks: tuple[Chunk, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)
    libraries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # the kept entries as stored
    prompts: tuple[Mapping[str, Any], ...] = ()
    marks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    configs: Mapping[str, Mapping[str, KeyConfig]] = field(default_factory=dict)  # library ID -> key -> its own config
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> StoredLibraries:
        """No index yet: nothing to keep."""
        return cls()


def read_libraries(index_dir: Path, keep: Callable[[str, CatalogEntry], bool]) -> StoredLibraries:
    """The live generation's libraries for which ``keep(library_id, entry)`` holds, chunks included.

    Only the kept libraries' chunks are read, so replacing the one library of an index reads none.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    from docs_mcp.indexer.duckdb_store import open_store  # the index format's one reader

    store = open_store(Path(index_dir))
    try:
        metadata = store.metadata
        libraries = {i: e for i, e in catalog_entries(metadata).items() if keep(i, e)}
        owners = ["" if entry.implicit else library_id for library_id, entry in libraries.items()]
        rows = store.rows(CHUNKS_SQL, {"owners": owners}) if owners else []
    finally:
        store.close()
    several = len(catalog_entries(metadata)) > 1
    chunks = tuple(_chunk(row, several) for row in rows)
    paths = {chunk.filepath for chunk in chunks}
    return StoredLibraries(
        chunks=chunks,
        files={path: title for path, title in (metadata.get("files") or {}).items() if path in paths},
        libraries={library_id: entry.json for library_id, entry in libraries.items()},
        prompts=tuple(p for p in metadata.get("prompts") or () if p.get("library") in libraries),
        marks=marks_from_metadata(metadata),
        configs=stored_configs(metadata.get("taxonomy") or {}, libraries),
        metadata=metadata,
    )


def catalog_entries(metadata: Mapping[str, Any]) -> dict[str, CatalogEntry]:
    """The ``libraries`` of an index's metadata.json; an index built before libraries is one implicit library."""
    entries = metadata.get("libraries") or {LEGACY_ID: _legacy_entry(metadata)}
    return {library_id: CatalogEntry.read(library_id, entry) for library_id, entry in entries.items()}


def _chunk(row: tuple[Any, ...], several: bool) -> Chunk:
    values = dict(zip(_COLUMNS, row))
    for name in _JSON_COLUMNS:
        values[name] = orjson.loads(values[name])
    return chunk_from_json(values, several)


def chunk_from_json(values: Mapping[str, Any], several: bool = False) -> Chunk:
    """A chunk from its fields as JSON holds them (lists for its tuples): a stored row, a library cache entry's.

    ``several``: the fields were stored in an index of several libraries, whose library facet is dropped.
    """
    fields = {**values, "heading_path": tuple(values["heading_path"]), "headings": tuple(values["headings"])}
    # The index stores a section that is not searchable with an empty text (schema.py), and nothing else so.
    fields["searchable"] = bool(fields["text"])
    if several:  # the library facet is derived from the library set at every build, not part of the chunk
        fields["metadata"] = {k: v for k, v in fields["metadata"].items() if k != LIBRARY_KEY}
    return Chunk(**fields)


def _legacy_entry(metadata: Mapping[str, Any]) -> dict[str, Any]:
    files = dict(metadata.get("files") or {})
    description = metadata.get("corpus_description", "")
    toc = [{"path": p, "title": t, "description": "", "section": section_of(p, ())} for p, t in sorted(files.items())]
    return {
        "name": "docs", "description": description, "languages": [], "version": "", "aliases": [],
        "mount": "", "implicit": True, "sections": [], "source": "", "corpus_description": description,
        "indexed_at": (metadata.get("stats") or {}).get("indexed_at", ""),
        "stats": {"files": len(files), "chunks": (metadata.get("stats") or {}).get("chunks", 0)}, "toc": toc,
    }  # fmt: skip
