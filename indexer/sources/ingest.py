"""Add an llms.txt library's fetched pages to an index: a source like a folder, through the one writer.

``SourcePages`` is the llms.txt library as a ``Source`` (indexer/build.py): its cached pages
(and its llms.txt, as ``llms.md``) are written to a temporary folder under paths derived from
their URLs, then planned and written like ``docs-mcp index DIR --library ID``: the other
libraries are kept and their vectors reused, pages embedded before are reused by window hash,
and the new generation is swapped in atomically. The catalog entry then gets the llms.txt
table of contents (with URLs) and the content hash of each indexed page, so an unchanged
library is never written again.

Planning reads the live generation before the write lock is taken; ``planned_on`` makes the
write fail if another writer swapped a generation in meanwhile, and the add is planned again.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docs_mcp.indexer.build import Documents, Source, StoredSource, write_source, write_sources
from docs_mcp.indexer.corpus.readable_name import documentation_of
from docs_mcp.indexer.errors import IndexChangedError, IndexLockedError
from docs_mcp.indexer.index_file import live_generation, open_index
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.records import IndexReport
from docs_mcp.indexer.schema import METADATA_FILE
from docs_mcp.indexer.sources.known_libraries import LLMS_TXT, RegisteredLibrary
from docs_mcp.indexer.sources.llms_txt_parse import LlmsTxt
from docs_mcp.indexer.sources.web.page_cache import CachedPage
from docs_mcp.indexer.sources.web.paths import page_paths

ATTEMPTS = 3
# One writer per index folder in this process (the file lock covers other processes).
_WRITERS: dict[str, threading.Lock] = {}
_WRITERS_LOCK = threading.Lock()


@dataclass(frozen=True)
class SourcePages:
    """What to index for one llms.txt library: the parsed llms.txt, its markdown, the fetched pages."""

    library: RegisteredLibrary
    llms: LlmsTxt
    llms_markdown: str
    pages: tuple[CachedPage, ...]

    def paths(self) -> dict[str, str]:
        """URL -> document path of the llms.txt, every TOC entry and every fetched page, no two alike."""
        return page_paths([*(e.url for e in self.llms.entries), *(p.url for p in self.pages)], self.llms.url)

    def digests(self) -> dict[str, str]:
        """URL -> content hash of every document indexed (the llms.txt included)."""
        llms_digest = hashlib.sha256(self.llms_markdown.encode()).hexdigest()[:16]
        return {self.llms.url: llms_digest, **{page.url: page.digest for page in self.pages}}

    @property
    def spec(self) -> LibrarySpec:
        """The library as registered, named and described by its llms.txt where the registry is silent."""
        return LibrarySpec(
            library_id=self.library.library_id,
            name=self.library.name or self.llms.title,
            description=self.library.description or self.llms.summary,
            languages=self.library.languages,
            aliases=self.library.aliases,
        )

    @contextmanager
    def documents(self) -> Iterator[Documents]:
        """The llms.txt and the fetched pages as a temporary docs folder."""
        with tempfile.TemporaryDirectory(prefix="docs-mcp-source-") as folder:
            root = Path(folder) / "docs"
            _write_documents(root, self)
            yield Documents(root)

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The planned entry with the llms.txt's table of contents (with URLs), origin, TTL and page hashes."""
        return _catalog_entry(planned, self.spec, self)


def index_pages(
    index_dir: Path,
    source: Source | StoredSource | Sequence[Source | StoredSource],
    *,
    sleep: Callable[[float], None],
    delays: Iterable[float] = (1.0, 3.0),
    model: str | None = None,
) -> IndexReport:
    """Write ``source`` (an llms.txt library's pages, a package release...) as its library into the index at
    ``index_dir``, keeping every other library, with the index's embedding model (``model`` for a new index, else
    the default one); retried when another writer raced. Several sources are written in one build.

    Raises:
        IndexLockedError: another process kept the index locked through every attempt.
        ModelLoadError, IndexFormatError: as for any build.
    """
    index_dir = Path(index_dir)
    with _writer(index_dir):
        waits = [0.0, *delays][:ATTEMPTS]
        for attempt, wait in enumerate(waits):
            if wait:
                sleep(wait)
            try:
                planned_on = live_generation(index_dir)
                embeddings = index_embeddings(index_dir, model)
                if isinstance(source, Sequence):
                    return write_sources(source, index_dir, embeddings=embeddings, planned_on=planned_on)
                return write_source(source, index_dir, embeddings=embeddings, planned_on=planned_on)
            except (IndexChangedError, IndexLockedError):
                if attempt == len(waits) - 1:
                    raise
        raise AssertionError("unreachable")


def indexed_digests(entry: CatalogEntry | None) -> dict[str, str]:
    """URL -> content hash of the pages a catalog entry says are indexed."""
    return dict(entry.pages) if entry is not None else {}


def _catalog_entry(planned: Mapping[str, Any], spec: LibrarySpec, source: SourcePages) -> dict[str, Any]:
    paths = source.paths()
    toc = [
        {
            "path": spec.mount + paths[e.url],
            "title": e.title,
            "description": e.description,
            "section": e.section,
            "url": e.url,
        }
        for e in source.llms.entries
    ]
    return {
        **planned,
        "source": source.llms.url,
        "origin": LLMS_TXT,
        "llms_txt": source.llms.url,
        "ttl_hours": source.library.ttl_hours,
        "pages": source.digests(),
        "toc": toc,
        # Where each indexed page came from: its URL, the ETag (else content hash) it had, when it was fetched.
        "provenance": {
            spec.mount + paths[page.url]: {
                "url": page.url,
                "revision": page.etag or f"sha256:{page.digest}",
                "fetched_at": _iso(page.fetched_at),
            }
            for page in source.pages
        },
    }


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _write_documents(root: Path, source: SourcePages) -> None:
    # The corpus description a one-library index shows in search_docs' description.
    about = source.library.description or source.llms.summary
    description = documentation_of(source.library.name or source.llms.title) + (f": {about}" if about else "")
    root.mkdir(parents=True)
    (root.parent / "metadata.json").write_text(json.dumps({"corpus_description": description}), encoding="utf-8")
    paths = source.paths()
    documents = {paths[source.llms.url]: source.llms_markdown, **{paths[p.url]: p.markdown for p in source.pages}}
    for path, markdown in documents.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(markdown, encoding="utf-8")


def stored_entry(index_dir: Path, library_id: str) -> CatalogEntry | None:
    """The library's catalog entry in the index's published metadata.json (None: no such library, or no index)."""
    try:
        metadata = json.loads((Path(index_dir) / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return catalog_entries(metadata).get(library_id) if isinstance(metadata, dict) else None


def index_embeddings(index_dir: Path, new: str | None = None) -> str:
    """The model the index was built with, so a library added keeps the others' vectors; ``new`` (else "default") for no index yet."""
    if live_generation(index_dir) is None:
        return new or "default"
    with open_index(index_dir) as reader:
        return reader.model.name if reader.model else "none"


def _writer(index_dir: Path) -> threading.Lock:
    key = str(index_dir.resolve())
    with _WRITERS_LOCK:
        return _WRITERS.setdefault(key, threading.Lock())
