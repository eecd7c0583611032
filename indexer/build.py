"""The one writer: every source's documents planned with the index's other libraries, then written.

A ``Source`` (each kind of indexer/sources/kinds.py: a docs folder, an llms.txt library, a site, a repository,
a release of a package) hands its documents over as a docs folder; ``write_source`` scans it as the
source's library, keeps the index's other libraries (``plan_build``, build_plan.py), lets the source complete
its catalog entry, and writes the new generation with
:func:`docs_mcp.indexer.generation.write_index`, which swaps it in atomically. Nothing else
writes an index: ``docs-mcp index`` and the server's fetched llms.txt pages go through here.
``write_sources`` writes several named libraries in one generation (``docs-mcp sync``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from docs_mcp.indexer.build_plan import plan_build, plan_builds
from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.errors import CorpusProblemsError, LibraryError
from docs_mcp.indexer.generation import ANY_GENERATION, EmbedVia, Progress, ProgressFn, write_index
from docs_mcp.indexer.libraries.catalog import with_one_pin
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.libraries.store import StoredLibraries
from docs_mcp.indexer.records import IndexReport


@dataclass(frozen=True)
class Documents:
    """A source's documents as a docs folder: markdown under ``root``, and the corpus metadata file if any."""

    root: Path
    metadata_file: Path | None = None
    rules: FileRules | None = None  # which files of the folder are read (globs, .gitignore, default skips)


class Source(Protocol):
    """Where one library's documents come from."""

    @property
    def spec(self) -> LibrarySpec | None:
        """The library the documents are indexed as (None: a folder's implicit library)."""
        ...

    def documents(self) -> AbstractContextManager[Documents]:
        """The documents as a docs folder, for as long as the block runs."""
        ...

    def catalog_entry(self, planned: Mapping[str, Any]) -> Mapping[str, Any]:
        """The library's catalog entry, from the one planning made of the folder (what the source adds: origin, URLs...)."""
        ...


@runtime_checkable
class Stored(Protocol):
    """What a source that holds its library already built has (checked with ``isinstance``: by this method only)."""

    def stored_libraries(self) -> StoredLibraries:
        """The library as built before: chunks and catalog entry, which the build adds as they are."""
        ...


class StoredSource(Stored, Protocol):
    """A library built before (a library cache entry, sources/cached_release.py): written as it is, no documents
    scanned; the writer takes it wherever it takes a ``Source``."""

    @property
    def spec(self) -> LibrarySpec | None:
        """The library the chunks are indexed as."""
        ...

    def catalog_entry(self, planned: Mapping[str, Any]) -> Mapping[str, Any]:
        """The library's catalog entry, from the one planning made of it (what this build adds: its pin...)."""
        ...


def write_source(
    source: Source | StoredSource,
    index_dir: Path,
    *,
    embeddings: str = "default",
    strict: bool = False,
    progress: ProgressFn | None = None,
    planned_on: str | None | object = ANY_GENERATION,
    embed_via: EmbedVia | None = None,
) -> IndexReport:
    """Write ``source`` as its library into the index folder ``index_dir``, keeping the index's other libraries.

    ``embeddings`` is ``"default"`` (the packaged model, offline), ``"none"`` (full text
    only) or a fastembed model name. ``planned_on``: the live generation the caller planned
    from (None: no index yet); the write fails with IndexChangedError if another writer swapped
    one in meanwhile. Left out, the write replaces whatever is live. ``embed_via`` wraps the model
    for the documents' embedding (a Dask fan-out).

    Raises:
        CorpusNotFoundError: the documents are missing or hold no documentation page.
        CorpusProblemsError: ``strict`` and some input file has a problem (nothing is written).
        LibraryError: the library's paths would collide with another library's.
        ModelLoadError: the embedding model cannot be loaded.
        IndexLockedError: another build is writing ``index_dir``.
        IndexChangedError: another writer swapped a generation in after ``planned_on``.
        IndexFormatError: ``index_dir`` holds something that is not an index.
    """
    if isinstance(source, Stored):  # built before: nothing to scan (a library cache entry)
        return write_sources([source], index_dir, embeddings=embeddings, planned_on=planned_on)
    started = time.perf_counter()
    if progress:
        progress(Progress("scan", 0, 0))
    with source.documents() as documents:
        pages = (lambda done, total: progress(Progress("pages", done, total))) if progress else None
        plan = plan_build(documents.root, Path(index_dir), source.spec, documents.metadata_file, documents.rules, pages)
    scan = plan.scan
    if strict and scan.problems:
        listed = "".join(f"\n  {problem.severity}: {problem}" for problem in scan.problems)
        raise CorpusProblemsError(
            f"{len(scan.problems)} problem(s) in {documents.root}; nothing was written (--strict):{listed}",
            "Fix them (`docs-mcp validate DOCS_DIR` lists them all), or index without --strict.",
        )
    catalog = plan.catalog
    if source.spec is not None:  # a folder indexed as the implicit library keeps the entry planning made
        library_id = source.spec.library_id
        entries = {**catalog.libraries, library_id: source.catalog_entry(catalog.libraries[library_id])}
        catalog = replace(catalog, libraries=with_one_pin(entries, library_id))
    return write_index(scan, index_dir, embeddings=embeddings, annotate=catalog.annotate, progress=progress, started=started,
                       planned_on=planned_on, embed_via=embed_via, vector_sources=vectors_of([source]))  # fmt: skip


def write_sources(
    sources: Sequence[Source | StoredSource],
    index_dir: Path,
    *,
    embeddings: str = "default",
    planned_on: str | None | object = ANY_GENERATION,
) -> IndexReport:
    """Write several named libraries in one new generation (one build instead of one per library: ``docs-mcp sync``).

    Raises:
        As :func:`write_source`; LibraryError also when a library is given twice or has no spec.
    """
    if len(sources) == 1 and stored_of(sources[0]) is None:
        return write_source(sources[0], index_dir, embeddings=embeddings, planned_on=planned_on)
    specs = [source.spec for source in sources if source.spec is not None]
    if len(specs) != len(sources):
        raise LibraryError(
            "Only named libraries can be written together.", "Index a folder's implicit library on its own."
        )
    started = time.perf_counter()
    scanned = [source for source in sources if not isinstance(source, Stored)]
    with ExitStack() as stack:
        documents = [stack.enter_context(source.documents()) for source in scanned]
        plan = plan_builds(
            [(d.root, source.spec, d.metadata_file, d.rules) for d, source in zip(documents, scanned)],
            Path(index_dir),
            [stored for source in sources if (stored := stored_of(source)) is not None],
        )
    entries = dict(plan.catalog.libraries)
    for source, spec in zip(sources, specs):
        library_id = spec.library_id
        entries = with_one_pin({**entries, library_id: source.catalog_entry(entries[library_id])}, library_id)
    catalog = replace(plan.catalog, libraries=entries)
    return write_index(
        plan.scan, index_dir, embeddings=embeddings, annotate=catalog.annotate, started=started, planned_on=planned_on,
        vector_sources=vectors_of(sources),
    )  # fmt: skip


def vectors_of(sources: Sequence[Source | StoredSource]) -> list[Path]:
    """The databases of window vectors some sources bring along (a library cache entry's, sources/cached_release.py)."""
    return [path for source in sources if (path := getattr(source, "vectors", None)) is not None]


def stored_of(source: Source | StoredSource) -> StoredLibraries | None:
    """The library a source holds already built (chunks and catalog entry: a library cache entry's), which the build
    adds as it is instead of scanning documents; None for a source of documents."""
    return source.stored_libraries() if isinstance(source, Stored) else None
