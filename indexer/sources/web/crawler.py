"""The site crawler: every documentation page under a start URL, politely, resumably, and only once each.

Order of work: robots.txt (a site that cannot say what it allows is not crawled), then the sitemaps
it names or that sit at the usual places, then the links of every page fetched, breadth first. Every
URL is put in one normal form first (``site_links.normal_url``: dot segments resolved, escapes and
slashes settled), and the scope, robots.txt, deduplication, the fetch and the page's name all judge
that form. Every URL stays under the start URL's folder (``site_links.scope_of``), every request
goes through the fetcher's safety checks (allowlist, no private address, each redirect checked again, size and time
limits), at most ``concurrency`` at once and no faster than ``rate`` per second (slower when
robots.txt asks). A page whose canonical URL is another page of the scope, or whose body another
page already has, is a duplicate and is indexed once. A page is stored as UTF-8 (charsets.utf8_html:
one in another encoding, by its HTTP header or its own declaration, is transcoded behind a byte order
mark), so it reads the same from the crawl store as it did from the site. What each URL gave is written to the crawl
store as it comes, so an interrupted crawl resumes where it stopped, and a later crawl sends
conditional GETs: an unchanged page answers 304 and costs no download.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from docs_mcp.indexer.corpus.charsets import html_text, utf8_html
from docs_mcp.indexer.sources.errors import (
    CrawlError,
    InvalidContentError,
    RedirectRefusedError,
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
    UrlNotAllowedError,
)
from docs_mcp.indexer.sources.web.crawl_store import DUPLICATE, FAILED, PAGE, SKIPPED, CrawlStore, StoredUrl
from docs_mcp.indexer.sources.web.fetch import Fetched, Fetcher
from docs_mcp.indexer.sources.web.robots import Robots
from docs_mcp.indexer.sources.web.site_links import PageLinks, in_scope, normal_url, page_links, scope_of
from docs_mcp.indexer.sources.web.sitemap import parse_sitemap

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class CrawlLimits:
    """How much of a site one crawl takes, and how fast."""

    max_pages: int = 1_000  # URLs a crawl may know (pages, duplicates and skipped ones alike)
    concurrency: int = 4  # requests in flight to the host at once
    rate: float = 8.0  # requests per second to the host at most (robots.txt may ask for fewer)
    max_sitemaps: int = 20  # sitemap documents read (an index and its children)


@dataclass(frozen=True)
class CrawlStep:
    """Progress: URLs done of those known, and how the last one went."""

    done: int
    known: int
    url: str
    outcome: str  # page, not-modified, duplicate, skipped, failed


@dataclass(frozen=True)
class CrawlReport:
    """What one crawl did."""

    library_id: str
    start_url: str
    scope: str
    resumed: bool
    from_sitemaps: int  # URLs the sitemaps gave
    pages: int  # pages indexed (all of them, changed or not)
    fetched: int  # bodies downloaded (200)
    not_modified: int  # answered 304: the stored body reused
    duplicates: int
    skipped: int
    failed: int
    seconds: float
    crawl_delay: float


class SiteCrawler:
    """Crawls one library's site into the crawl store."""

    def __init__(
        self,
        fetcher: Fetcher,
        store: CrawlStore,
        limits: CrawlLimits = CrawlLimits(),
        *,
        progress: Callable[[CrawlStep], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._fetcher = fetcher
        self._store = store
        self._limits = limits
        self._progress = progress
        self._clock = clock
        self._sleep = sleep

    def crawl(self, library_id: str, start_url: str) -> CrawlReport:
        """Crawl (or resume crawling) the site under ``start_url`` as ``library_id``.

        Raises:
            CrawlError: robots.txt cannot be read, or it forbids the start URL.
            UrlNotAllowedError: the start URL may not be fetched (shape, allowlist, private address).
        """
        started = self._clock()
        start = normal_url(start_url)
        scope = scope_of(start)
        robots = self._robots(scope)
        if not robots.allows(start):
            raise CrawlError(
                f"{start} is disallowed for docs-mcp by the site's robots.txt.",
                "Crawl another part of the site, or ask its owners.",
            )
        resumed = self._store.begin(library_id, start, scope, robots.text)
        from_sitemaps = 0
        if not resumed:
            mapped = self._sitemap_urls(scope, robots)
            from_sitemaps = len(mapped)
            self._store.enqueue(library_id, [start, *mapped], self._limits.max_pages)
        tally = _Tally()
        pace = _Pace(max(1.0 / self._limits.rate, robots.crawl_delay), self._clock, self._sleep)
        in_flight: dict[Future[Fetched], StoredUrl] = {}
        with ThreadPoolExecutor(self._limits.concurrency, thread_name_prefix="crawl") as pool:
            try:
                self._run(library_id, scope, robots, pace, pool, tally, in_flight)
            except BaseException:
                # Ctrl-C or a failure: what was already downloaded is kept, so the resumed crawl does not fetch it again.
                pool.shutdown(wait=True, cancel_futures=True)
                for future, entry in in_flight.items():
                    if future.done() and not future.cancelled():
                        self._settle(library_id, scope, entry, future, tally)
                raise
        self._store.finish(library_id)
        counts = self._store.counts(library_id)
        return CrawlReport(
            library_id, start, scope, resumed, from_sitemaps, counts.get(PAGE, 0), tally.fetched, tally.not_modified,
            counts.get(DUPLICATE, 0), counts.get(SKIPPED, 0), counts.get(FAILED, 0), self._clock() - started, pace.interval,
        )  # fmt: skip

    def _run(self, library_id: str, scope: str, robots: Robots, pace: _Pace, pool: ThreadPoolExecutor, tally: _Tally,
             in_flight: dict[Future[Fetched], StoredUrl]) -> None:  # fmt: skip
        taken: set[str] = set()
        while True:
            for entry in self._store.queued(library_id, self._limits.concurrency * 4):
                if len(in_flight) >= self._limits.concurrency * 2:
                    break
                if entry.url in taken:
                    continue
                taken.add(entry.url)
                if (
                    normal_url(entry.url) != entry.url
                ):  # queued by a version that normalised less: its normal form is crawled instead
                    self._store.enqueue(
                        library_id, [u for u in [normal_url(entry.url)] if in_scope(u, scope)], self._limits.max_pages
                    )
                    self._store.record(
                        library_id, entry.url, SKIPPED, note=f"not in normal form: {normal_url(entry.url)}", body=b""
                    )
                    self._step(library_id, entry.url, "skipped", tally)
                    continue
                if not robots.allows(entry.url):
                    self._store.record(library_id, entry.url, SKIPPED, note="disallowed by robots.txt")
                    self._step(library_id, entry.url, "skipped", tally)
                    continue
                in_flight[pool.submit(self._fetch, entry, pace, robots)] = entry
            if not in_flight:
                return
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                outcome = self._settle(library_id, scope, in_flight[future], future, tally)
                url = in_flight.pop(future).url
                self._step(library_id, url, outcome, tally)

    def _fetch(self, entry: StoredUrl, pace: _Pace, robots: Robots) -> Fetched:
        pace.wait()
        etag, last_modified = entry.validators

        def redirect(target: str) -> str:  # a redirect's target is judged like a link: in normal form, by robots.txt
            url = normal_url(target)
            if url and not robots.allows(url):
                raise UrlNotAllowedError(
                    f"redirects to {url}, which robots.txt disallows", "Nothing to do: the page is skipped."
                )
            return url or target

        return self._fetcher.get(entry.url, etag=etag, last_modified=last_modified, redirect=redirect)

    def _settle(self, library_id: str, scope: str, entry: StoredUrl, future: Future[Fetched], tally: _Tally) -> str:
        """Record what fetching ``entry`` gave; the outcome for progress."""
        store, url = self._store, entry.url
        try:
            fetched = future.result()
        except RemotePageNotFoundError as error:
            store.record(
                library_id, url, FAILED, note=error.message
            )  # its status: a start URL that failed is reported with it
            return "failed"
        except (UrlNotAllowedError, InvalidContentError) as error:
            store.record(library_id, url, SKIPPED, note=error.message)
            return "skipped"
        except SourceUnavailableError as error:
            store.record(library_id, url, FAILED, note=error.message)
            return "failed"
        if fetched.not_modified and entry.last_state in (PAGE, DUPLICATE, SKIPPED):
            # Unchanged since the last crawl: what it was then it is now (its links are known already).
            tally.not_modified += 1
            store.record(library_id, url, entry.last_state, note=entry.note)
            return "not-modified" if entry.last_state == PAGE else entry.last_state
        if fetched.not_modified:  # the stored body is still the page (a resumed crawl): judged again as if downloaded
            tally.not_modified += 1
            body, final, media = store.body(library_id, url), url, HTML_TYPES[0]
            etag, last_modified = entry.validators
        else:
            tally.fetched += 1
            body, final, media = (
                fetched.body,
                normal_url(fetched.url),
                fetched.content_type.split(";", 1)[0].strip().lower(),
            )
            etag, last_modified = fetched.etag, fetched.last_modified
            if (
                media in HTML_TYPES
            ):  # stored as UTF-8: the charset its HTTP header named is not kept, the page must not need it
                body = utf8_html(body, fetched.content_type)
        if not in_scope(final, scope):
            store.record(library_id, url, SKIPPED, note=f"redirected out of the crawl's scope, to {final}")
            return "skipped"
        if media not in HTML_TYPES:  # validators kept: the next crawl's conditional GET costs no download
            store.record(library_id, url, SKIPPED, note=f"not an HTML page ({media or 'no content type'})", body=b"", etag=etag,
                         last_modified=last_modified)  # fmt: skip
            return "skipped"
        digest = hashlib.sha256(body).hexdigest()
        state, note = self._judge(library_id, scope, url, final, body, digest)
        # validators kept for every HTML page: its next fetch may be a 304
        store.record(
            library_id, url, state, note=note, body=body, etag=etag, last_modified=last_modified, digest=digest
        )
        return "not-modified" if fetched.not_modified and state == PAGE else state

    def _judge(self, library_id: str, scope: str, url: str, final: str, body: bytes, digest: str) -> tuple[str, str]:
        """(state, note) of an HTML page fetched from ``url`` (``final`` after redirects); queues its links."""
        store = self._store
        if final != url and store.get(library_id, final) is not None:
            return DUPLICATE, f"redirects to {final}"
        links = self._follow(library_id, scope, body, final)
        if links.canonical and links.canonical != final and in_scope(links.canonical, scope):
            store.enqueue(library_id, [links.canonical], self._limits.max_pages)
            return DUPLICATE, f"canonical URL is {links.canonical}"
        if links.noindex:
            return SKIPPED, "the page asks not to be indexed (robots meta noindex)"
        holder = store.holder_of(library_id, digest, url)
        if holder:
            return DUPLICATE, f"same page as {holder}"
        return PAGE, ""

    def _follow(self, library_id: str, scope: str, body: bytes, url: str) -> PageLinks:
        """Queue the in-scope links of the page at ``url``; its links record."""
        links = page_links(html_text(body), url)
        if not links.nofollow:
            self._store.enqueue(
                library_id, [link for link in links.links if in_scope(link, scope)], self._limits.max_pages
            )
        return links

    def _robots(self, scope: str) -> Robots:
        parts = urlsplit(scope)
        url = urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))
        try:
            fetched = self._fetcher.get(url)
        except RemotePageNotFoundError:
            return Robots("")
        except SourceUnavailableError as error:
            raise CrawlError(
                f"The site's robots.txt cannot be read ({error.message}); docs-mcp does not crawl a site that cannot say what it allows.",
                "Try again later.",
            ) from None
        except InvalidContentError:  # the fetcher's size limit: only part of the rules could be read
            limit = self._fetcher.policy.max_bytes
            raise CrawlError(
                f"The site's robots.txt ({url}) is larger than {limit // 2**20} MiB, the most docs-mcp reads of it; docs-mcp does not "
                "crawl a site whose rules it cannot read whole.",
                "Ask the site's owners to trim their robots.txt (crawlers read 500 KiB of it), or index a copy of the documentation "
                "on disk: docs-mcp index FOLDER.",
            ) from None
        except RedirectRefusedError as error:
            raise CrawlError(
                f"The site's robots.txt ({url}) redirects to {error.target}, which docs-mcp refuses ({error.message.rstrip('.')}); without "
                "its rules the site is not crawled.",
                "A documentation site's robots.txt stays on public addresses: check the start URL, or ask the site's owners.",
            ) from None
        return Robots(fetched.body.decode("utf-8", errors="replace"))

    def _sitemap_urls(self, scope: str, robots: Robots) -> list[str]:
        """Every in-scope page URL the site's sitemaps list (robots.txt's, else the usual places)."""
        parts = urlsplit(scope)
        usual = [scope + "sitemap.xml", urlunsplit((parts.scheme, parts.netloc, "/sitemap.xml", "", ""))]
        todo = list(dict.fromkeys(normal_url(u) for u in (*robots.sitemaps, *usual) if normal_url(u)))
        seen: set[str] = set()
        pages: dict[str, None] = {}
        while todo and len(seen) < self._limits.max_sitemaps:
            url = todo.pop(0)
            if url in seen:
                continue
            seen.add(url)
            try:
                sitemap = parse_sitemap(self._fetcher.get(url).body)
            except SourceError:
                continue  # no sitemap there: links will do
            todo.extend(normal_url(child) for child in sitemap.sitemaps if normal_url(child))
            for entry in sitemap.pages:
                page = normal_url(entry.url)
                if page and in_scope(page, scope):
                    pages.setdefault(page, None)
        return list(pages)

    def _step(self, library_id: str, url: str, outcome: str, tally: _Tally) -> None:
        tally.done += 1
        if self._progress is not None:
            known = sum(self._store.counts(library_id).values())
            self._progress(CrawlStep(tally.done, known, url, outcome))


class _Tally:
    def __init__(self) -> None:
        self.done = self.fetched = self.not_modified = 0


class _Pace:
    """At most one request start per ``interval`` seconds (thread-safe): a host's request rate."""

    def __init__(self, interval: float, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            self._sleep(slot - now)
