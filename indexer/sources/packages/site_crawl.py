"""Step 3 of the richer-source chain: a bounded crawl of the package's documentation site.

The site is the package's documentation URL, else a homepage that is not a code host
(richer.docs_sites). It is crawled by the site source's crawler (sources/web/crawler.py: robots.txt,
sitemaps, links under the start URL's folder, polite pacing, duplicates once, every request through
the fetcher's safety checks), into a crawl store of its own that lives as long as the crawl, and
bounded as the llms.txt step is: at most MAX_SITE_PAGES URLs, MAX_SITE_BYTES of pages and
SITE_SECONDS. A site serves what it serves today, so it is crawled only for the registry's newest
release, or when its URL names the version (``/en/2.31.0/``); for an older release it is not asked.
Each page keeps its URL and ETag as provenance, under ``website/`` as an HTML file.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from docs_mcp.indexer.sources.packages import richer
from docs_mcp.indexer.sources.packages.package_info import PackageInfo
from docs_mcp.indexer.sources.packages.richer import (
    SITE_FOLDER,
    RicherDocs,
    RicherPage,
    docs_sites,
    names_version,
    now,
    serves_newest_only,
)
from docs_mcp.indexer.sources.web.crawl_store import CrawlStore, StoredUrl
from docs_mcp.indexer.sources.web.crawler import CrawlLimits, CrawlStep, SiteCrawler
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.paths import distinct_paths
from docs_mcp.indexer.sources.web.safety import FetchPolicy, host_of
from docs_mcp.indexer.sources.web.site_links import page_path

SITE_SOURCE = "site"
_CRAWL_ID = "package-site"  # the one crawl of the temporary store


class _Bounded(Exception):
    """The crawl reached its time or size bound: what it has is kept."""


class DocsSiteCrawl:
    """The pages under the package's documentation URL, crawled."""

    kind = SITE_SOURCE

    def __init__(
        self,
        *,
        allow_loopback: bool = False,
        rate: float = CrawlLimits().rate,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._allow_loopback = allow_loopback
        self._rate = rate
        self._clock = clock

    def find(self, info: PackageInfo, version: str) -> RicherDocs | None:
        sites = docs_sites(info)
        if not sites:
            return None
        start = sites[0]
        if version != info.newest and not names_version(start, version):
            raise serves_newest_only(info, version)  # not even asked: its pages would be the newest release's
        fetcher = Fetcher(FetchPolicy(frozenset({host_of(start)}), self._allow_loopback))
        with tempfile.TemporaryDirectory(prefix="docs-mcp-package-site-") as folder:
            store = CrawlStore(Path(folder) / "crawl.sqlite")
            try:
                return self._crawl(fetcher, store, start)
            finally:
                store.close()
                fetcher.close()

    def _crawl(self, fetcher: Fetcher, store: CrawlStore, start: str) -> RicherDocs | None:
        limits = CrawlLimits(max_pages=richer.MAX_SITE_PAGES, rate=self._rate)
        started, size = self._clock(), 0
        notes: list[str] = []

        def bound(step: CrawlStep) -> None:  # called on the crawl's own thread after each URL
            nonlocal size
            if step.outcome == "page":
                size += len(store.body(_CRAWL_ID, step.url))
            if self._clock() - started > richer.SITE_SECONDS or size > richer.MAX_SITE_BYTES:
                raise _Bounded

        crawler = SiteCrawler(fetcher, store, limits, progress=bound, clock=self._clock)
        try:
            report = crawler.crawl(_CRAWL_ID, start)
            scope, known = report.scope, report.pages + report.duplicates + report.skipped + report.failed
            if known >= richer.MAX_SITE_PAGES:
                notes.append(
                    f"the crawl stopped at {richer.MAX_SITE_PAGES} URLs of {scope}; the pages past them left out"
                )
        except _Bounded:
            crawl = store.crawl(_CRAWL_ID)
            scope = crawl.scope if crawl else start
            notes.append(
                f"the crawl of {scope} stopped after {richer.SITE_SECONDS:g} s or {richer.MAX_SITE_BYTES:,} bytes; the pages after it left out"
            )
        first: dict[str, StoredUrl] = {}
        for stored in store.pages(_CRAWL_ID):
            first.setdefault(page_path(stored.url, scope), stored)  # ``guide/`` and ``guide/index.html`` are one page
        paths = distinct_paths(
            {stored: path for path, stored in first.items()}
        )  # ``coll.html`` and ``coll.html/index.html`` are two
        # Stored as UTF-8 by the crawler; a page transcoded from another encoding keeps its byte order mark (U+FEFF), which
        # outranks the <meta charset> it may still carry when the written file is read.
        pages = [
            RicherPage(
                f"{SITE_FOLDER}/{path}",
                store.body(_CRAWL_ID, stored.url).decode("utf-8", errors="replace"),
                stored.url,
                stored.etag,
            )
            for stored, path in paths.items()
        ]
        if not pages:
            return None
        return RicherDocs(SITE_SOURCE, start, "", now(), tuple(pages), tuple(notes))
