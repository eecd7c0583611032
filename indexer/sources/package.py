"""Add one release of a package to an index: resolve, skip what is indexed as it is, download, write.

A release is immutable: the library ``pypi/NAME/vVERSION`` indexed from an archive with the
registry's digest D is up to date for as long as the registry says D, so adding it again costs
one (cached) registry read and no download, no write. So a package library is never refreshed: `docs-mcp sync`
keeps an index in step with a project's lock files (sources/packages/sync.py). The registries' plumbing (PyPI, npm,
release archives, manifests and lock files, richer sources) is sources/packages/.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.indexer.libraries.build_cache import CacheKey, LibraryCache
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.records import IndexReport, Problem
from docs_mcp.indexer.schema import METADATA_FILE
from docs_mcp.indexer.sources.cached_release import CachedRelease, cached_release, keep_or_say, release_key
from docs_mcp.indexer.sources.ingest import index_embeddings, index_pages
from docs_mcp.indexer.sources.kinds import SourceKind
from docs_mcp.indexer.sources.packages.refs import NPM, PYPI, PackageRef
from docs_mcp.indexer.sources.packages.registry_client import RegistryClient
from docs_mcp.indexer.sources.packages.source import ARCHIVE, PackageSource, fetch_release

ADDED = "added"
UNCHANGED = "unchanged"


@dataclass(frozen=True)
class Added:
    """What adding one release did."""

    library_id: str
    status: str  # ADDED or UNCHANGED
    documents: int
    chunks: int
    source: str  # the archive's URL
    seconds: float
    embedded: int = 0
    richer: str = ""  # the richer source's URL (sources/packages/richer.py), '' when none had this version
    notes: tuple[str, ...] = ()  # what the richer sources could not give, and why
    problems: tuple[Problem, ...] = ()  # the build's problems with this library's pages (each one skipped or cut short)
    from_cache: bool = False  # indexed from the library cache (libraries/build_cache.py): nothing downloaded


def indexed_libraries(index_dir: Path) -> dict[str, CatalogEntry]:
    """The catalog entries of the index at ``index_dir`` by library ID (none when there is no index yet)."""
    try:
        metadata = json.loads((Path(index_dir) / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return catalog_entries(metadata) if isinstance(metadata, dict) and metadata.get("libraries") else {}


def library_problems(report: IndexReport, library_id: str) -> tuple[Problem, ...]:
    """The problems a build (of one library or of several, as sync writes them) had with ``library_id``'s pages."""
    return tuple(problem for problem in report.problems if problem.library == library_id)


def archive_revision(entry: CatalogEntry | None) -> str:
    """The digest of the archive a package library was indexed from ('' for any other library)."""
    return next((s.get("revision", "") for s in (entry.sources if entry else ()) if s.get("kind") == ARCHIVE), "")


def add_package(
    index_dir: Path,
    ref: PackageRef,
    client: RegistryClient,
    *,
    pinned: bool = False,
    added_by: str = "add",
    sleep: Callable[[float], None] = time.sleep,
    model: str | None = None,
) -> Added:
    """Index the release ``ref`` names (its newest without a version) as its library, unless it is indexed as it is
    (``model``: the embedding model of a new index; an existing one keeps its own).

    Raises:
        PackageNotFoundError, PackageFetchError: the package, version or archive cannot be had.
        ModelLoadError, IndexLockedError, IndexFormatError: as for any build.
    """
    started = time.perf_counter()
    cache, problem = LibraryCache.from_environment(), ""
    # Read before any write: a new index takes ``model``.
    embeddings = index_embeddings(Path(index_dir), model) if cache is not None else ""
    if cache is not None and ref.version and ref.library_id not in indexed_libraries(index_dir):
        # A release named by its version and built before on this machine: no registry request, no download.
        hit, problem = cached_release(cache, cache_key(ref, client, embeddings), pinned=pinned, added_by=added_by)
        if hit is not None:
            return index_cached(index_dir, hit, started, sleep=sleep, model=model)
    info, release = client.release(ref)
    ref = ref.at(release.version)
    entry = indexed_libraries(index_dir).get(ref.library_id)
    if entry is not None and release.digest and archive_revision(entry) == release.digest and entry.pinned == pinned:
        return Added(
            ref.library_id, UNCHANGED, entry.documents, entry.chunks, entry.source, time.perf_counter() - started
        )
    source = fetch_release(client, ref, pinned=pinned, added_by=added_by)
    report = index_pages(Path(index_dir), source, sleep=sleep, model=model)
    stored = keep_or_say(cache, cache_key(ref, client, embeddings), source, index_dir) if cache is not None else ""
    written = indexed_libraries(index_dir).get(ref.library_id)
    documents, chunks = (written.documents, written.chunks) if written else (0, 0)
    notes = tuple(note for note in (*source.notes, problem, stored) if note)
    return Added(ref.library_id, ADDED, documents, chunks, source.archive.url,
                 time.perf_counter() - started, report.embedded, source.richer.url if source.richer else "", notes,
                 library_problems(report, ref.library_id))  # fmt: skip


def cache_key(ref: PackageRef, client: RegistryClient, embeddings: str) -> CacheKey:
    """The library cache's key of release ``ref`` (with its version) read through ``client`` into an index embedded
    with ``embeddings`` (sources/ingest.py's ``index_embeddings``)."""
    registry = client.settings.pypi_url if ref.ecosystem == PYPI else client.settings.npm_url
    return release_key(ref.library_id, registry, embeddings)


def index_cached(
    index_dir: Path, hit: CachedRelease, started: float, *, sleep: Callable[[float], None], model: str | None
) -> Added:
    """Index a release from its library cache entry (its private copy is deleted after)."""
    try:
        report = index_pages(Path(index_dir), hit, sleep=sleep, model=model)
    finally:
        hit.close()
    written = indexed_libraries(index_dir).get(hit.spec.library_id)
    documents, chunks = (written.documents, written.chunks) if written else (0, 0)
    return Added(hit.spec.library_id, ADDED, documents, chunks, hit.source_url,
                 time.perf_counter() - started, report.embedded, hit.richer_url, hit.notes,
                 library_problems(report, hit.spec.library_id), from_cache=True)  # fmt: skip


KIND = SourceKind("package", (PYPI, NPM), add_package, PackageSource)
