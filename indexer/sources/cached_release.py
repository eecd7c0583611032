"""A package release from the library cache as a ``Source``, and a release just built, kept in the cache.

``CachedRelease`` is an entry of the library cache (libraries/build_cache.py) as a ``Source`` (indexer/build.py):
its documents are the docs folder the release's first build scanned, its catalog entry is that build's (the
package's metadata, sources and every document's provenance) with this project's pin, and ``vectors`` is the
entry's database of window vectors, which the build reuses (indexer/vectors.py): the same documents chunk into
the same windows, whose keys name the model and the text, so nothing is downloaded and nothing is embedded.
``keep_built`` writes the entry of a release just built into a project's index: the source's documents again,
the library's catalog entry (credentials masked) and its window vectors, read from the live generation.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.indexer.build import Documents, Source
from docs_mcp.indexer.errors import StorageError
from docs_mcp.indexer.index_file import live_generation
from docs_mcp.indexer.libraries.build_cache import CacheKey, LibraryCache
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.schema import DB_FILE
from docs_mcp.indexer.sources.ingest import stored_entry
from docs_mcp.indexer.vectors import export_vectors
from docs_mcp.redact import redact

# What a package source adds to the entry planning made (packages/source.py): carried over from the first build.
CARRIED = ("source", "origin", "package", "sources", "provenance", "source_notes")
VECTORS_FILE = "vectors.duckdb"
_DOCS, _METADATA = "documents/docs", "documents/metadata.json"
_PROJECT = "project"


@dataclass(frozen=True)
class CachedRelease:
    """A verified private copy of a cache entry, indexed as its library (``close`` deletes the copy)."""

    spec: LibrarySpec
    folder: Path
    carried: Mapping[str, Any]
    pinned: bool = False
    added_by: str = "add"

    @property
    def vectors(self) -> Path | None:
        """The entry's window vectors (None for a full-text entry)."""
        path = self.folder / VECTORS_FILE
        return path if path.is_file() else None

    @property
    def source_url(self) -> str:
        """The URL of the archive the release was first read from."""
        return str(self.carried.get("source") or "")

    @property
    def richer_url(self) -> str:
        """The richer source's URL ('' when the release has only its archive)."""
        return next((str(s.get("url") or "") for s in list(self.carried.get("sources") or ())[1:]), "")

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(str(note) for note in self.carried.get("source_notes") or ())

    @contextmanager
    def documents(self) -> Iterator[Documents]:
        metadata = self.folder / _METADATA
        yield Documents(self.folder / _DOCS, metadata if metadata.is_file() else None)

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The planned entry (table of contents, counts, when indexed) with what the first build's source added."""
        return {**planned, **self.carried, "pinned": self.pinned, "added_by": self.added_by}

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def cached_release(
    cache: LibraryCache, key: CacheKey, *, pinned: bool = False, added_by: str = "add"
) -> tuple[CachedRelease | None, str]:
    """The release ``key`` names from the cache, or None and why an entry that was there could not be used ('')."""
    found = cache.lookup(key)
    if found.folder is None or found.record is None:
        return None, found.problem
    try:
        spec = found.record["spec"]
        release = CachedRelease(
            LibrarySpec(str(spec["library_id"]), str(spec["name"]), str(spec.get("description") or ""),
                        tuple(spec.get("languages") or ()), str(spec.get("version") or ""), tuple(spec.get("aliases") or ())),
            found.folder, dict(found.record.get("carried") or {}), pinned, added_by,
        )  # fmt: skip
    except (
        KeyError,
        TypeError,
        AttributeError,
    ) as error:  # a record of another shape: its checksum held, its form did not
        shutil.rmtree(found.folder, ignore_errors=True)
        cache.discard(key)
        return None, f"the library cache's entry was of another form ({type(error).__name__}: {error}) and was deleted"
    return release, ""


def keep_built(cache: LibraryCache, key: CacheKey, source: Source, index_dir: Path) -> bool:
    """Store the library ``source`` was just indexed as into the cache, from the index at ``index_dir``.

    False when the index does not hold it with the key's model, or another process stored it first.

    Raises:
        OSError, StorageError: the cache or the index cannot be read or written (the caller reports it).
    """
    spec = source.spec
    entry = stored_entry(Path(index_dir), key.library_id)
    if spec is None or entry is None:
        return False
    carried = {name: _masked(entry[name]) for name in CARRIED if name in entry}
    record = {
        "spec": {"library_id": spec.library_id, "name": spec.name, "description": spec.description,
                 "languages": list(spec.languages), "version": spec.version, "aliases": list(spec.aliases)},
        "carried": carried,
    }  # fmt: skip

    def fill(folder: Path) -> None:
        with source.documents() as documents:
            shutil.copytree(documents.root, folder / _DOCS)
            if documents.metadata_file is not None and documents.metadata_file.is_file():
                shutil.copyfile(documents.metadata_file, folder / _METADATA)
        live = live_generation(Path(index_dir))
        if key.model != "none" and not (
            live and export_vectors(Path(index_dir) / live / DB_FILE, key.library_id, folder / VECTORS_FILE)
        ):
            raise FileNotFoundError(f"{index_dir} holds no vectors of {key.library_id}")

    try:
        return cache.store(key, record, fill)
    except FileNotFoundError:
        return False  # a full-text index (or a build killed before its vectors): nothing to keep for this model


def _masked(value: Any) -> Any:
    """``value`` with every credential in its texts masked: a registry mirror's URL may carry a password."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    return value


def release_key(library_id: str, registry: str, embeddings: str) -> CacheKey:
    """The cache key of a release read from ``registry`` into an index embedded with ``embeddings``."""
    from docs_mcp.indexer.models.loading import DEFAULT_MODEL

    return CacheKey(library_id, registry, DEFAULT_MODEL if embeddings == "default" else embeddings)


def keep_or_say(cache: LibraryCache, key: CacheKey, source: Source, index_dir: Path) -> str:
    """``keep_built``, whose failure never fails the build it follows: '' or a note saying what went wrong."""
    try:
        keep_built(cache, key, source, index_dir)
    except (OSError, StorageError) as error:
        return f"library cache: {key.library_id} was not stored in {cache.root} ({type(error).__name__}: {error}); the index has it."
    return ""
