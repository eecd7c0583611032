"""A package release from the library cache, indexed as it was built; and a release just built, kept in the cache.

``CachedRelease`` is an entry of the library cache (libraries/build_cache.py) as the one writer takes it
(indexer/build.py): the library as the release's first build stored it, chunks and catalog entry (the package's
metadata, sources, every document's provenance), added to the build as it is (``stored_libraries``: nothing is
read, converted or chunked again) with this project's pin; and ``vectors``, the entry's database of window
vectors, which the build reuses (indexer/vectors.py): the same chunks give the same windows, whose keys name
the model and the text, so nothing is downloaded and nothing is embedded. ``keep_built`` writes the entry of a
release just built into a project's index from that index: the library's chunks and catalog entry (credentials
masked) and its window vectors, read from the live generation.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from docs_mcp.indexer.build import Source
from docs_mcp.indexer.corpus.manifest import key_config
from docs_mcp.indexer.errors import IndexerError
from docs_mcp.indexer.index_file import live_generation
from docs_mcp.indexer.libraries.build_cache import CacheKey, LibraryCache
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.libraries.store import StoredLibraries, chunk_from_json, read_libraries
from docs_mcp.indexer.schema import DB_FILE
from docs_mcp.indexer.vectors import export_vectors
from docs_mcp.redact import redact

VECTORS_FILE = "vectors.duckdb"
CHUNKS_FILE = "chunks.json"


@dataclass(frozen=True)
class CachedRelease:
    """A verified private copy of a cache entry, written as its library (``close`` deletes the copy)."""

    spec: LibrarySpec
    folder: Path
    stored: StoredLibraries
    pinned: bool = False
    added_by: str = "add"

    @property
    def vectors(self) -> Path | None:
        """The entry's window vectors (None for a full-text entry)."""
        path = self.folder / VECTORS_FILE
        return path if path.is_file() else None

    @property
    def entry(self) -> Mapping[str, Any]:
        return self.stored.libraries[self.spec.library_id]

    @property
    def source_url(self) -> str:
        """The URL of the archive the release was first read from."""
        return str(self.entry.get("source") or "")

    @property
    def richer_url(self) -> str:
        """The richer source's URL ('' when the release has only its archive)."""
        return next((str(s.get("url") or "") for s in list(self.entry.get("sources") or ())[1:]), "")

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(str(note) for note in self.entry.get("source_notes") or ())

    def stored_libraries(self) -> StoredLibraries:
        """The library as built before: the build adds it as it is (indexer/build.py)."""
        return self.stored

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The entry as the first build wrote it (planning gave it this build's date), with this project's pin."""
        return {**planned, "pinned": self.pinned, "added_by": self.added_by}

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
        spec, library = found.record["spec"], found.record["library"]
        chunks = orjson.loads((found.folder / CHUNKS_FILE).read_bytes())
        stored = StoredLibraries(
            chunks=tuple(chunk_from_json(values) for values in chunks),
            files=dict(library["files"]),
            libraries={key.library_id: dict(library["entry"])},
            prompts=tuple(library.get("prompts") or ()),
            configs={key.library_id: {name: key_config(entry, f"taxonomy.{name}")
                                      for name, entry in (library.get("taxonomy") or {}).items()}},
        )  # fmt: skip
        release = CachedRelease(
            LibrarySpec(str(spec["library_id"]), str(spec["name"]), str(spec.get("description") or ""),
                        tuple(spec.get("languages") or ()), str(spec.get("version") or ""), tuple(spec.get("aliases") or ())),
            found.folder, stored, pinned, added_by,
        )  # fmt: skip
    except (KeyError, TypeError, AttributeError, ValueError, OSError, IndexerError) as error:
        # Its checksums held, its form did not: written by another version of docs-mcp.
        shutil.rmtree(found.folder, ignore_errors=True)
        cache.discard(key)
        return None, f"the library cache's entry was of another form ({type(error).__name__}: {error}) and was deleted"
    return release, ""


def keep_built(cache: LibraryCache, key: CacheKey, source: Source, index_dir: Path) -> bool:
    """Store the library ``source`` was just indexed as into the cache, read back from the index at ``index_dir``.

    False when the index does not hold it with the key's model, or another process stored it first.

    Raises:
        OSError, StorageError, IndexNotFoundError, IndexFormatError: the cache or the index cannot be read or written.
    """
    spec = source.spec
    if spec is None:
        return False
    built = read_libraries(Path(index_dir), lambda library_id, _entry: library_id == key.library_id)
    if key.library_id not in built.libraries:
        return False
    # The library's own settings of its keys, not the index's merge of every library's.
    taxonomy = {name: conf.as_entry() for name, conf in built.configs.get(key.library_id, {}).items()}
    record = {
        "spec": {"library_id": spec.library_id, "name": spec.name, "description": spec.description,
                 "languages": list(spec.languages), "version": spec.version, "aliases": list(spec.aliases)},
        "library": {"entry": _masked(built.libraries[key.library_id]), "files": dict(built.files),
                    "prompts": list(built.prompts), "taxonomy": taxonomy},
    }  # fmt: skip

    def fill(folder: Path) -> None:
        chunks = [dataclasses.asdict(chunk) for chunk in built.chunks]
        (folder / CHUNKS_FILE).write_bytes(orjson.dumps(chunks))
        live = live_generation(Path(index_dir))
        vectors = folder / VECTORS_FILE
        if key.model != "none" and not (
            live and export_vectors(Path(index_dir) / live / DB_FILE, key.library_id, vectors)
        ):
            raise FileNotFoundError(f"{index_dir} holds no vectors of {key.library_id}")

    try:
        return cache.store(key, record, fill)
    except FileNotFoundError:
        return False  # a full-text index (or a build killed before its vectors): nothing to keep for this model


def release_key(library_id: str, registry: str, embeddings: str) -> CacheKey:
    """The cache key of a release read from ``registry`` into an index embedded with ``embeddings``."""
    from docs_mcp.indexer.models.loading import DEFAULT_MODEL

    return CacheKey(library_id, registry, DEFAULT_MODEL if embeddings == "default" else embeddings)


def keep_or_say(cache: LibraryCache, key: CacheKey, source: Source, index_dir: Path) -> str:
    """``keep_built``, whose failure never fails the build it follows: '' or a note saying what went wrong."""
    try:
        keep_built(cache, key, source, index_dir)
    except (OSError, IndexerError) as error:
        return f"library cache: {key.library_id} was not stored in {cache.root} ({type(error).__name__}: {error}); the index has it."
    return ""


def _masked(value: Any) -> Any:
    """``value`` with every credential in its texts masked: a registry mirror's URL may carry a password."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    return value
