"""A documentation website as a library: ``docs-mcp add site URL --library ORG/NAME``.

The crawler (crawler.py) brings the site's pages into the crawl store; ``SiteSource`` hands them to
the one writer as a folder of ``.html`` files named by their URL path below the crawl's scope, so
they are read like any HTML folder (indexer/corpus/formats/html.py: main content, API objects as
sections). The table of contents takes its sections from the start page's navigation, and each
entry keeps its page's URL, so ``get_library_info`` lists the site like an llms.txt library and
``read_page`` reads a page by path or by URL. The catalog entry records the crawl (start URL,
scope, each page's content hash): a refresh re-crawls with conditional GETs and writes nothing
when no page changed.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from docs_mcp.indexer.build import Documents, write_source
from docs_mcp.indexer.corpus.charsets import html_text
from docs_mcp.indexer.corpus.readable_name import documentation_of
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.records import IndexReport
from docs_mcp.indexer.sources.errors import InvalidContentError, SourceError
from docs_mcp.indexer.sources.ingest import index_embeddings, stored_entry
from docs_mcp.indexer.sources.kinds import Refreshing, RefreshOutcome, SourceKind, refresh_failed
from docs_mcp.indexer.sources.source_settings import SOURCES_FOLDER, SourceSettings
from docs_mcp.indexer.sources.web.crawl_display import CrawlDisplay
from docs_mcp.indexer.sources.web.crawl_store import CrawlStore
from docs_mcp.indexer.sources.web.crawler import CrawlLimits, CrawlReport, CrawlStep, SiteCrawler
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.paths import distinct_paths
from docs_mcp.indexer.sources.web.safety import host_of
from docs_mcp.indexer.sources.web.site_links import normal_url, page_path, section_names

SITE = "site"
CRAWL_FILE = "sites.sqlite"


@dataclass(frozen=True)
class SiteRequest:
    """What `docs-mcp add site` was asked."""

    library_id: str
    url: str
    name: str = ""
    description: str = ""
    languages: tuple[str, ...] = ()
    limits: CrawlLimits = field(default_factory=CrawlLimits)


@dataclass(frozen=True)
class SiteResult:
    """A crawl and what it wrote (``report`` None when no page changed and nothing was written)."""

    crawl: CrawlReport
    report: IndexReport | None


@dataclass(frozen=True)
class SiteSource:
    """The crawled pages of one site, as a Source for the one writer."""

    request: SiteRequest
    crawl: CrawlReport
    pages: Mapping[str, bytes]  # URL -> HTML, in the order the crawl met them
    spec: LibrarySpec

    def paths(self) -> dict[str, str]:
        """URL -> document path (below the library's mount): no two pages on one path, no page where another needs a folder."""
        return distinct_paths({url: page_path(url, self.crawl.scope) for url in self.pages})

    def digests(self) -> dict[str, str]:
        """URL -> content hash of every page (a refresh writes nothing when these are the indexed ones)."""
        return {url: hashlib.sha256(body).hexdigest()[:16] for url, body in self.pages.items()}

    @contextmanager
    def documents(self) -> Iterator[Documents]:
        """The pages as a temporary folder of HTML files."""
        with tempfile.TemporaryDirectory(prefix="docs-mcp-site-") as folder:
            root = Path(folder) / "docs"
            root.mkdir()
            description = self.spec.description or documentation_of(self.spec.name)
            (Path(folder) / "metadata.json").write_text(
                json.dumps({"corpus_description": description}), encoding="utf-8"
            )
            for url, path in self.paths().items():
                target = root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.pages[url])
            yield Documents(root)

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The planned entry with the crawl's origin and each TOC entry's URL."""
        urls = {self.spec.mount + path: url for url, path in self.paths().items()}
        toc = [
            {**entry, "url": urls[entry["path"]]} if entry.get("path") in urls else entry
            for entry in planned.get("toc") or ()
        ]
        return {
            **planned,
            "origin": SITE,
            "source": self.crawl.start_url,
            "scope": self.crawl.scope,
            "crawled_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "crawl": {
                "max_pages": self.request.limits.max_pages,
                "concurrency": self.request.limits.concurrency,
                "rate": self.request.limits.rate,
            },
            "pages": self.digests(),
            "toc": toc,
        }


def add_site(
    settings: SourceSettings,
    request: SiteRequest,
    *,
    embeddings: str | None = None,
    progress: Callable[[CrawlStep], None] | None = None,
    build_progress: Any = None,
) -> SiteResult:
    """Crawl the site and write it as its library; when the library was crawled from this URL before, write only if a page changed.

    Raises:
        UrlNotAllowedError: the URL may not be fetched (shape, private address).
        CrawlError: the site's robots.txt cannot be read or forbids the start URL.
        InvalidContentError: the crawl found no HTML page to index.
        ModelLoadError, IndexLockedError, IndexFormatError, LibraryError: as for any build.
    """
    index_dir = Path(settings.index_dir)
    policy = settings.policy.allowing({host_of(request.url)})  # the user named this site: its host may be read
    fetcher = Fetcher(policy)
    store = CrawlStore(index_dir / SOURCES_FOLDER / CRAWL_FILE)
    try:
        crawl = SiteCrawler(fetcher, store, request.limits, progress=progress).crawl(request.library_id, request.url)
        pages = {page.url: store.body(request.library_id, page.url) for page in store.pages(request.library_id)}
        start = store.get(request.library_id, crawl.start_url)
    finally:
        store.close()
        fetcher.close()
    if not pages:
        # What the start URL answered (its status, or why it is no page) says what to check first.
        why = (
            ""
            if start is None or not start.note
            else f": {start.note if start.note.startswith(start.url) else f'{start.url}: {start.note}'}"
        )
        raise InvalidContentError(
            f"No HTML documentation page was found under {crawl.scope} ({crawl.skipped} skipped, {crawl.failed} failed){why.rstrip('.')}.",
            "Check the URL (the crawl stays under its folder), or the site's robots.txt.",
        )
    start_html = pages.get(crawl.start_url) or next(iter(pages.values()))
    spec = LibrarySpec(
        library_id=request.library_id,
        name=request.name or _title(start_html) or request.library_id,
        description=request.description,
        languages=request.languages,
        sections=section_names(html_text(start_html), crawl.start_url, crawl.scope),
    )
    source = SiteSource(request, crawl, pages, spec)
    previous = stored_entry(index_dir, request.library_id)
    if (
        previous is not None
        and previous.origin == SITE  # the same site
        and start_url_of(previous) == crawl.start_url
        and dict(previous.pages) == source.digests()
        and _same_spec(previous, spec)
    ):
        return SiteResult(crawl, None)  # every page as indexed: nothing to write
    chosen = index_embeddings(index_dir, embeddings)
    return SiteResult(crawl, write_source(source, index_dir, embeddings=chosen, progress=build_progress))


def _same_spec(entry: CatalogEntry, spec: LibrarySpec) -> bool:
    """Whether the stored entry already describes the library as ``spec`` does (a new --name is a change)."""
    return (entry.name, entry.description, entry.languages) == (
        spec.name,
        spec.description,
        spec.languages,
    )


def _title(html: bytes) -> str:
    soup = BeautifulSoup(html_text(html), "html.parser")
    heading = soup.find("h1")
    title = (
        heading.get_text(" ", strip=True) if heading else (soup.title.get_text(" ", strip=True) if soup.title else "")
    )
    return " ".join(title.replace("¶", "").split())


def refresh_request(entry: CatalogEntry) -> SiteRequest:
    """The request that crawls a site library again as it was added (its catalog entry)."""
    limits = entry.crawl
    return SiteRequest(
        entry.library_id, start_url_of(entry), entry.name, entry.description, entry.languages,
        CrawlLimits(**{key: limits[key] for key in ("max_pages", "concurrency", "rate") if key in limits}),
    )  # fmt: skip


def start_url_of(entry: CatalogEntry) -> str:
    """The start URL a site library was crawled from (its catalog entry's ``source``)."""
    return normal_url(entry.source)


def refresh_site(refreshing: Refreshing, library_id: str, entry: CatalogEntry | None) -> list[RefreshOutcome]:
    """Crawl the site again with conditional GETs; write the library only if a page changed."""
    assert entry is not None  # a site is refreshed once indexed
    display = CrawlDisplay(quiet=refreshing.quiet)
    try:
        crawled = add_site(
            refreshing.settings, refresh_request(entry), progress=display.show, build_progress=display.build
        )
    except SourceError as error:
        return [refresh_failed(entry, error)]
    finally:
        display.close()
    crawl = crawled.crawl
    detail = f"{crawl.pages} pages, {crawl.fetched} downloaded, {crawl.not_modified} not modified"
    return [RefreshOutcome(library_id, crawl.start_url, "unchanged" if crawled.report is None else "updated", detail)]


KIND = SourceKind("site", (SITE,), add_site, SiteSource, refresh_site, pages_have_urls=True)
