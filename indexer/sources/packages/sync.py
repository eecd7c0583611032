"""``docs-mcp sync``: the index holds the documentation of every direct dependency at the version the project locks.

Planning reads the project (``manifests``) and the index's catalog: a dependency whose locked
version is indexed and pinned is ``unchanged`` without a network request; one that no lock file
settles is resolved to the newest release its specifier allows (the registry's answer is cached
for a TTL). Fetching runs in parallel (registry documents and archives); the downloads finished
at each moment are written together, one new generation for all of them, through the one writer. A dependency that cannot be had
(unknown to the registry, no documentation, offline, a malformed document or archive, any failure of its own) is
reported and the others go on. Ctrl-C stops the downloads and says what was indexed and what was not
(``SyncInterrupted``): what was indexed stays, and running sync again does the rest. Versions
that sync itself pinned before and the lock no longer names are removed; versions added by hand
(``docs-mcp add``) are kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.errors import PackageSpecError
from docs_mcp.indexer.index_file import interrupted
from docs_mcp.indexer.libraries.build_cache import LibraryCache
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.ops import remove_library
from docs_mcp.indexer.libraries.versions import parse_ref
from docs_mcp.indexer.records import IndexReport
from docs_mcp.indexer.sources.cached_release import CachedRelease, cached_release, keep_or_say
from docs_mcp.indexer.sources.ingest import index_embeddings, index_pages
from docs_mcp.indexer.sources.package import ADDED, Added, cache_key, indexed_libraries, library_problems
from docs_mcp.indexer.sources.packages.project import Dependency, Project
from docs_mcp.indexer.sources.packages.refs import PackageRef, package_ref
from docs_mcp.indexer.sources.packages.registry_client import RegistryClient
from docs_mcp.indexer.sources.packages.source import PackageSource, fetch_release
from docs_mcp.indexer.sources.packages.specifiers import best_version

SYNC = "sync"
FETCH = "fetch"  # planned: to download and index
UNCHANGED = "unchanged"  # indexed and pinned at the locked version: nothing to do
UNRESOLVED = "unresolved"  # the version or the package cannot be found
FAILED = "failed"  # found, but its documentation could not be fetched or indexed
REMOVED = "removed"  # a version sync pinned before, no longer locked
DEFAULT_WORKERS = 6


class SyncInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``run_sync``: the items finished (indexed, failed, unchanged), and the ones left undone."""

    def __init__(self, done: list[SyncItem], left: list[SyncItem]) -> None:
        super().__init__()
        self.done, self.left = done, left


@dataclass(frozen=True)
class SyncItem:
    """One dependency's fate: what it resolved to and what sync did (or, planning, will do)."""

    dependency: Dependency
    ref: PackageRef | None  # with the version to index; None when unresolved
    status: str
    detail: str = ""
    added: Added | None = None
    seconds: float = 0.0  # from its download's start until its build went live
    download_seconds: float = (
        0.0  # of which: reading the registry and downloading (the rest is indexing, shared by its batch)
    )
    cached: bool = False  # planned: the library cache holds its build (``mark_cached``, for --dry-run)

    @property
    def label(self) -> str:
        return str(self.ref) if self.ref else f"{self.dependency.ecosystem}:{self.dependency.name}"


def plan_sync(project: Project, index_dir: Path, client: RegistryClient, *, include_dev: bool = True) -> list[SyncItem]:
    """What sync would do for each direct dependency (registry documents are read only for unlocked ones)."""
    indexed = indexed_libraries(index_dir)
    items = []
    for dep in project.dependencies:
        if dep.dev and not include_dev:
            continue
        try:
            version = dep.version or _newest_allowed(dep, client)
            ref = package_ref(dep.ecosystem, dep.name, version)
        except Exception as error:  # one dependency's failure, whatever it is, is its own: the others are planned
            items.append(SyncItem(dep, None, UNRESOLVED, _message(error)))
            continue
        entry = indexed.get(ref.library_id)
        status = UNCHANGED if entry is not None and entry.pinned else FETCH
        how = (
            f"locked in {dep.locked_in}"
            if dep.locked_in
            else (f"newest allowed by '{dep.specifier}'" if dep.specifier and not dep.version else "pinned")
        )
        items.append(SyncItem(dep, ref, status, how))
    return items


def mark_cached(
    items: Sequence[SyncItem], index_dir: Path, client: RegistryClient, model: str | None = None
) -> list[SyncItem]:
    """The plan with each dependency to fetch that the library cache holds marked ``cached``: run_sync would take
    it from there (no download, no embedding), unless its entry fails its check then."""
    cache = _release_cache(index_dir, client, model)
    return [replace(item, cached=True) if item.status == FETCH and item.ref and cache.holds(item.ref) else item
            for item in items]  # fmt: skip


def run_sync(
    items: Sequence[SyncItem],
    index_dir: Path,
    client: RegistryClient,
    *,
    workers: int = DEFAULT_WORKERS,
    report: Callable[[SyncItem], None] = lambda item: None,
    sleep: Callable[[float], None] = time.sleep,
    model: str | None = None,
) -> list[SyncItem]:
    """Fetch the planned dependencies in parallel, index each as its download completes; every item's outcome
    (``model``: the embedding model of a new index; an existing one keeps its own)."""
    done = [item for item in items if item.status != FETCH]
    for item in done:
        report(item)
    todo = [item for item in items if item.status == FETCH]
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="docs-mcp-sync")
    cache = _release_cache(index_dir, client, model)
    try:
        indexed = indexed_libraries(index_dir)
        # A version added by hand and now locked keeps saying so: sync never removes what it did not add.
        started = {cache.fetch(pool, item.ref, _added_by(indexed.get(item.ref.library_id))): item
                   for item in todo if item.ref}  # fmt: skip
        pending: set[Future] = set(started)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            # Every download finished by now goes into one build: one new generation, not one per library.
            for outcome in _write_batch(
                [(started[f], f) for f in sorted(finished, key=lambda f: started[f].label)],
                index_dir,
                sleep,
                model,
                cache,
            ):
                done.append(outcome)  # before it is reported: a Ctrl-C after its line counts it done
                report(outcome)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)  # the downloads under way are abandoned, not waited for
        settled = {item.dependency.key for item in done}
        raise SyncInterrupted(_sorted(done), [item for item in todo if item.dependency.key not in settled]) from None
    pool.shutdown()
    for removed in _remove_superseded(index_dir, [item.ref for item in items if item.ref is not None]):
        report(removed)
        done.append(removed)
    return _sorted(done)


def _sorted(items: list[SyncItem]) -> list[SyncItem]:
    return sorted(items, key=lambda item: (item.dependency.ecosystem, item.dependency.name, item.status))


def _timed_fetch(client: RegistryClient, ref: PackageRef, added_by: str) -> tuple[PackageSource, float]:
    started = time.perf_counter()
    return fetch_release(client, ref, pinned=True, added_by=added_by), time.perf_counter() - started


class _ReleaseCache:
    """Sync's use of the library cache: a locked release built before comes from it, a release built is kept in it."""

    def __init__(self, cache: LibraryCache | None, client: RegistryClient | None, embeddings: str) -> None:
        self.cache, self.client, self.embeddings = cache, client, embeddings
        self.notes: dict[str, list[str]] = {}  # library ID -> what went wrong with its cache entry

    def fetch(self, pool: ThreadPoolExecutor, ref: PackageRef, added_by: str) -> Future:
        """The release from the cache (a future already done: no registry request, no download), else downloaded."""
        if self.client is None:  # the stand-in of _write_batch, which only keeps: run_sync's always has its client
            raise ValueError("a release cache without a registry client cannot fetch")
        if self.cache is not None:
            hit, problem = cached_release(
                self.cache, cache_key(ref, self.client, self.embeddings), pinned=True, added_by=added_by
            )
            self.notes.setdefault(ref.library_id, []).append(problem)
            if hit is not None:
                done: Future = Future()
                done.set_result((hit, 0.0))
                return done
        return pool.submit(_timed_fetch, self.client, ref, added_by)

    def holds(self, ref: PackageRef) -> bool:
        """Whether the cache has an entry for ``ref`` (what ``fetch`` would try first)."""
        return (
            self.cache is not None
            and self.client is not None
            and self.cache.holds(cache_key(ref, self.client, self.embeddings))
        )

    def keep(self, source: PackageSource | CachedRelease, index_dir: Path) -> None:
        """After its build, a downloaded release goes into the cache."""
        if self.cache is not None and self.client is not None and isinstance(source, PackageSource):
            key = cache_key(source.ref, self.client, self.embeddings)
            self.notes.setdefault(source.ref.library_id, []).append(keep_or_say(self.cache, key, source, index_dir))


def _release_cache(index_dir: Path, client: RegistryClient, model: str | None) -> _ReleaseCache:
    library_cache = LibraryCache.from_environment()
    try:
        embeddings = index_embeddings(Path(index_dir), model) if library_cache is not None else ""
    except DocsMcpError:  # an unreadable index: each build reports it, as it does without the cache
        library_cache, embeddings = None, ""
    return _ReleaseCache(library_cache, client, embeddings)


def _write_batch(
    batch: list[tuple[SyncItem, Future]],
    index_dir: Path,
    sleep: Callable[[float], None],
    model: str | None = None,
    cache: _ReleaseCache | None = None,
) -> list[SyncItem]:
    """Index the downloads of ``batch`` in one build; if that fails, one by one (a release without documentation,
    or any failure of one package's own, must not keep the others out)."""
    cache = cache or _ReleaseCache(None, None, "")
    outcomes, fetched = [], []
    for item, future in batch:
        try:
            fetched.append((item, *future.result()))
        except Exception as error:  # the fetch's failure, whatever it is, is this package's alone
            outcomes.append(replace(item, status=FAILED, detail=_message(error)))
    try:
        if len(fetched) > 1:
            started = time.perf_counter()
            try:
                report = index_pages(Path(index_dir), [source for _, source, _ in fetched], sleep=sleep, model=model)
            except Exception as error:
                _reraise_interrupt(error)  # written one by one below, each failure reported with its own cause
            else:
                write_seconds = time.perf_counter() - started
                for _, source, _ in fetched:
                    cache.keep(source, index_dir)
                return outcomes + [
                    _added(item, source, seconds, write_seconds, report, index_dir, cache.notes)
                    for item, source, seconds in fetched
                ]
        for item, source, seconds in fetched:
            started = time.perf_counter()
            try:
                report = index_pages(Path(index_dir), source, sleep=sleep, model=model)
            except Exception as error:
                _reraise_interrupt(error)
                outcomes.append(replace(item, status=FAILED, detail=_message(error)))
                continue
            cache.keep(source, index_dir)
            outcomes.append(
                _added(item, source, seconds, time.perf_counter() - started, report, index_dir, cache.notes)
            )
        return outcomes
    finally:
        for _, source, _ in fetched:
            if isinstance(source, CachedRelease):
                source.close()  # also when its build failed


def _added(
    item: SyncItem,
    source: PackageSource | CachedRelease,
    download: float,
    write: float,
    report: IndexReport,
    index_dir: Path,
    cache_notes: dict[str, list[str]],
) -> SyncItem:
    """The item as added, with its share of the build's report: the embedding count is the batch's, the problems its own."""
    library_id = source.spec.library_id
    written = indexed_libraries(index_dir).get(library_id)
    documents, chunks = (written.documents, written.chunks) if written else (0, 0)
    cached = isinstance(source, CachedRelease)
    if isinstance(source, CachedRelease):  # its URLs as its catalog entry holds them
        url, richer = source.source_url, source.richer_url
    else:
        url, richer = source.archive.url, source.richer.url if source.richer else ""
    notes = tuple(note for note in (*source.notes, *cache_notes.get(library_id, ())) if note)
    added = Added(library_id, ADDED, documents, chunks, url, download + write,
                  report.embedded, richer, notes, library_problems(report, library_id), from_cache=cached)  # fmt: skip
    return replace(item, status=ADDED, added=added, seconds=download + write, download_seconds=download)


def _added_by(entry: CatalogEntry | None) -> str:
    """Who added the library: the one indexed says ("add" when added by hand); a new one is sync's."""
    return (entry.added_by if entry is not None else "") or SYNC


def _remove_superseded(index_dir: Path, locked: Sequence[PackageRef]) -> list[SyncItem]:
    """Remove the versions sync pinned before whose package the project now locks at another version."""
    wanted = {ref.base_id: ref.library_id for ref in locked}
    removed = []
    for library_id, entry in sorted(indexed_libraries(index_dir).items()):
        ref = parse_ref(library_id)
        if ref and ref.base_id in wanted and wanted[ref.base_id] != library_id and entry.added_by == SYNC:
            remove_library(Path(index_dir), library_id)
            dependency = Dependency(entry.origin, str(entry.package.get("name") or ref.base_id), ref.version)
            removed.append(
                SyncItem(dependency, None, REMOVED, f"{library_id}: the project now locks {wanted[ref.base_id]}")
            )
    return removed


def _newest_allowed(dep: Dependency, client: RegistryClient) -> str:
    """The newest release the dependency's specifier allows.

    Raises:
        PackageNotFoundError, PackageFetchError: from the registry.
        PackageSpecError: no release satisfies the specifier.
    """
    info = client.package(dep.ecosystem, dep.name)
    version = best_version(dep.ecosystem, dep.specifier, info.versions) if dep.specifier else info.newest
    if not version:
        raise PackageSpecError(
            f"No release of {dep.name} satisfies '{dep.specifier}' (declared in {dep.declared_in}).",
            "Lock the project (uv lock, npm install...) or widen the range.",
        )
    return version


def _reraise_interrupt(error: Exception) -> None:
    """Ctrl-C inside a DuckDB query arrives as DuckDB's error: it is the user's interrupt, not the package's failure."""
    if interrupted(error):
        raise KeyboardInterrupt from None


def _message(error: BaseException) -> str:
    return str(error) if isinstance(error, DocsMcpError) else f"{type(error).__name__}: {error}"
