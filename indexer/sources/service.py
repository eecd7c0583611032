"""SourceService: the one interface through which the server (and the CLI) use remote sources.

- ``read_url``: a page by URL (allowlist, cache, fetch, conversion). A page of a library's
  table of contents (or under its llms.txt's folder) is then indexed into that library in
  the background, so search_docs finds it afterwards; any other page, even on the same host,
  is only read: never indexed, never attributed to a library (text planted on a shared host
  must not become a library's documentation).
- ``ensure_library`` / ``ensure_pages``: fetch an llms.txt library (its TOC) or some of its
  pages now and add them to the index before answering (get_library_info, get_docs).
- ``refresh``: revalidate a library's llms.txt and cached pages with conditional GETs.
- what fetching an llms.txt refuses beyond any page (HTML, not an llms.txt, no pages) is llms_txt_fetch.py.
- ``context7``: the passthrough for remote (Context7-compatible) libraries.

A fresh cached page is served as is; a stale one is served with ``stale: true`` while a
background job revalidates it; a page never fetched is fetched now (retries with backoff,
then SOURCE_UNAVAILABLE).
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.schema import METADATA_FILE
from docs_mcp.indexer.sources.context7 import Context7Client
from docs_mcp.indexer.sources.errors import (
    InvalidContentError,
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
)
from docs_mcp.indexer.sources.ingest import SourcePages, index_pages, indexed_digests
from docs_mcp.indexer.sources.job_thread import Worker
from docs_mcp.indexer.sources.kinds import RefreshOutcome, fetches_on_demand
from docs_mcp.indexer.sources.known_libraries import CONTEXT7, LLMS_TXT, RegisteredLibrary
from docs_mcp.indexer.sources.llms_txt_fetch import linked_pages, llms_txt_missing, refuse_html, refuse_unparsable
from docs_mcp.indexer.sources.llms_txt_parse import LlmsTxt, parse_llms_txt
from docs_mcp.indexer.sources.source_settings import SourceSettings
from docs_mcp.indexer.sources.web.convert import to_markdown
from docs_mcp.indexer.sources.web.fetch import DEFAULT_DELAYS, Fetcher
from docs_mcp.indexer.sources.web.fetch_pool import FetchPool
from docs_mcp.indexer.sources.web.page_cache import CachedPage, PageCache
from docs_mcp.indexer.sources.web.paths import page_paths
from docs_mcp.indexer.sources.web.refusals import Refusals
from docs_mcp.indexer.sources.web.safety import FetchPolicy, check_url, host_of, warn_if_loopback_allowed
from docs_mcp.redact import redact

logger = logging.getLogger(__name__)

TOPIC_PAGES = 3  # pages get_docs fetches for a topic before searching
_WORD = re.compile(r"[a-z0-9]{3,}")


@dataclass(frozen=True)
class PageRead:
    """A page as read_page returns it."""

    url: str
    library_id: str  # '' when no registered library owns the URL
    path: str  # the document path in the index once indexed ('' without a library)
    title: str
    content: str
    cached: bool
    stale: bool
    fetched_at: str
    warning: str | None


@dataclass(frozen=True)
class Freshness:
    """How current an llms.txt library's cached pages are, for an answer built from them."""

    stale: bool  # some page is past the library's TTL (a background refresh is due or running)
    last_error: str  # why the last refresh of one of its pages failed ('' when none did)


class SourceService:
    """Remote sources of one index: cache, fetcher, background worker."""

    def __init__(
        self,
        settings: SourceSettings,
        *,
        fetcher: Fetcher | None = None,
        cache: PageCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
        delays: tuple[float, ...] = DEFAULT_DELAYS,
    ) -> None:
        self.settings = settings
        self._pool = FetchPool(settings.fetch_slots) if fetcher is None else None
        self.fetcher = fetcher or Fetcher(settings.policy, delays=delays, pool=self._pool)
        self._cache = cache
        self._cache_lock = threading.Lock()
        self.context7 = Context7Client(settings.context7_url, settings.context7_key, self.fetcher)
        self._sleep = sleep
        self._delays = delays
        self._worker = Worker()
        self._refusals = Refusals()
        self._catalog: tuple[tuple[int, int, int], dict[str, CatalogEntry]] | None = None
        warn_if_loopback_allowed()
        for problem in settings.registry.problems:
            logger.warning("library registry: %s", problem)

    @property
    def cache(self) -> PageCache:
        """The page cache, opened on first use: a server that never reads a remote page never creates it."""
        with self._cache_lock:
            if self._cache is None:
                try:
                    self._cache = PageCache(self.settings.cache_path)
                except (OSError, sqlite3.Error) as error:
                    raise SourceUnavailableError(
                        f"The page cache {self.settings.cache_path} cannot be opened ({error}).",
                        "Set DOCS_MCP_SOURCES_CACHE to a writable file for the server.",
                    ) from error
            return self._cache

    def close(self) -> None:
        """Wait for a running background job (an index write), then close the fetcher, its pool and the cache."""
        self._worker.close()
        self.fetcher.close()
        if self._pool is not None:
            self._pool.close()
        if self._cache is not None:
            self._cache.close()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for background refreshes and index writes to finish (tests, the CLI)."""
        return self._worker.wait_idle(timeout)

    # -- what is known ------------------------------------------------------------------

    def llms_libraries(self) -> dict[str, RegisteredLibrary]:
        """llms.txt libraries: those the index holds, then the registry's others."""
        indexed = {i: _indexed_library(e) for i, e in self._entries().items() if fetches_on_demand(e.origin)}
        listed = {
            i: lib for i, lib in self.settings.registry.libraries.items() if lib.kind == LLMS_TXT and i not in indexed
        }
        return {**indexed, **listed}

    def remote_libraries(self) -> dict[str, RegisteredLibrary]:
        """Remote libraries, answered by the Context7-compatible API."""
        return {i: lib for i, lib in self.settings.registry.libraries.items() if lib.kind == CONTEXT7}

    def policy(self) -> FetchPolicy:
        """The allowlist now: configured and registry domains, plus every llms.txt link's domain."""
        hosts = {host_of(entry.llms_txt) for entry in self._entries().values()}
        hosts |= {host_of(toc.get("url", "")) for entry in self._entries().values() for toc in entry.toc}
        return self.settings.policy.allowing(hosts - {""})

    # -- reads --------------------------------------------------------------------------

    def read_url(self, url: str) -> PageRead:
        """The page at ``url`` as markdown: from the cache when fresh, stale while revalidating, else fetched.

        Raises:
            UrlNotAllowedError: the URL is refused (scheme, allowlist, private address).
            SourceUnavailableError, RemotePageNotFoundError, InvalidContentError: the page cannot be read.
        """
        check_url(url, self.policy())
        library = self._owner(url)
        ttl = library.ttl_hours if library else _DEFAULT.ttl_hours
        page, cached, stale = self._get(url, library.library_id if library else "", ttl)
        if library is not None and page.library_id != library.library_id:
            page = self.cache.put(replace(page, library_id=library.library_id))  # read before it joined the TOC
        if library is not None and not self._is_indexed(library.library_id, page):
            self._worker.submit(f"index:{library.library_id}", lambda: self.index_library(library.library_id))
        warning = (
            f"The source could not be reached at the last refresh ({page.last_error}); this copy may be outdated."
            if stale and page.last_error
            else None
        )
        return PageRead(
            url=url,
            library_id=library.library_id if library else "",
            path=self._path_of(library, url) if library else "",
            title=page.title,
            content=page.markdown,
            cached=cached,
            stale=stale,
            fetched_at=_iso(page.fetched_at),
            warning=warning,
        )

    def ensure_library(self, library_id: str) -> bool:
        """Make sure the llms.txt library is in the index (fetching its llms.txt if needed); True if the index changed.

        Raises:
            KeyError: ``library_id`` is no llms.txt library.
            LlmsTxtNotFoundError, SourceUnavailableError, UrlNotAllowedError: the llms.txt cannot be read.
        """
        if library_id in self._entries():
            self._revalidate_if_stale(self.llms_libraries()[library_id])
            return False
        return self.index_library(library_id)

    def ensure_pages(self, library_id: str, urls: Iterable[str]) -> list[str]:
        """Fetch ``urls`` of the library (those not cached) and index them now; the failures, as messages."""
        library = self.llms_libraries()[library_id]
        failures = []
        for url in urls:
            try:
                self._get(url, library_id, library.ttl_hours)
            except SourceUnavailableError as error:
                failures.append(f"{redact(url)}: {error.message}")
                break  # the source is down: the other pages would only add their retries to the wait
            except SourceError as error:
                failures.append(f"{redact(url)}: {error.message}")
        self.index_library(library_id)
        return failures

    def freshness(self, library_id: str) -> Freshness:
        """Whether the library's cached pages are past its TTL, and the last refresh failure among them."""
        library = self.llms_libraries()[library_id]
        now = self.cache.clock()
        pages = self.cache.states_of(library_id)
        stale = any(now - page.fetched_at >= library.ttl_hours * 3600 for page in pages)
        return Freshness(stale, next((page.last_error for page in pages if page.last_error), ""))

    def pages_for_topic(self, library_id: str, topic: str, limit: int = TOPIC_PAGES) -> list[str]:
        """URLs of the library's TOC pages whose title, section or description share words with ``topic``, not yet indexed."""
        entry = self._entries().get(library_id)
        indexed = indexed_digests(entry)
        wanted = set(_WORD.findall(topic.casefold()))
        scored = []
        for position, toc in enumerate(entry.toc if entry else ()):
            url = toc.get("url", "")
            words = set(
                _WORD.findall(
                    f"{toc.get('title', '')} {toc.get('section', '')} {toc.get('description', '')}".casefold()
                )
            )
            score = len(wanted & words)
            if url and url not in indexed and score:
                scored.append((-score, position, url))
        return [url for _, _, url in sorted(scored)[:limit]]

    def index_library(self, library_id: str) -> bool:
        """Write the library's llms.txt and cached pages into the index, unless they are indexed as they are; True if written."""
        library = self.llms_libraries()[library_id]
        llms_page, _, _ = self._get(library.llms_txt_url, library_id, library.ttl_hours, llms=True)
        llms = parse_llms_txt(llms_page.markdown, library.llms_txt_url)
        toc = {entry.url for entry in llms.entries}
        pages = tuple(
            p
            for p in self.cache.pages_of(library_id)
            if p.url != library.llms_txt_url and _belongs(p.url, library, toc)
        )
        source = SourcePages(library, llms, llms_page.markdown, pages)
        if indexed_digests(self._entries().get(library_id)) == source.digests():
            return False
        report = index_pages(self.settings.index_dir, source, sleep=self._sleep, delays=self._delays)
        logger.info(
            "indexed %s: %d documents, %d chunks (%d embedded)",
            library_id,
            len(pages) + 1,
            report.chunks,
            report.embedded,
        )
        return True

    def add(self, library: RegisteredLibrary) -> LlmsTxt:
        """Register an llms.txt library now: fetch and parse its llms.txt, index it; the parsed llms.txt.

        Raises:
            UrlNotAllowedError, LlmsTxtNotFoundError, SourceUnavailableError, InvalidContentError.
        """
        registry = replace(
            self.settings.registry, libraries={**self.settings.registry.libraries, library.library_id: library}
        )
        self.settings = replace(self.settings, registry=registry, policy=self.settings.policy.allowing(library.domains))
        page = self._fetch(library.llms_txt_url, library.library_id, None, llms=True)
        llms = linked_pages(page.markdown, library.llms_txt_url)
        self.index_library(library.library_id)
        return llms

    def refresh(self, library_id: str | None = None) -> list[RefreshOutcome]:
        """Revalidate the llms.txt and every cached page of one library (None: all), then re-index what changed.

        Raises:
            KeyError: ``library_id`` is no indexed llms.txt library.
        """
        libraries = self.llms_libraries()
        chosen = (
            [libraries[library_id]] if library_id else [lib for i, lib in libraries.items() if i in self._entries()]
        )
        outcomes = []
        for library in chosen:
            urls = [
                library.llms_txt_url,
                *(p.url for p in self.cache.states_of(library.library_id) if p.url != library.llms_txt_url),
            ]
            for url in urls:
                outcomes.append(self._refresh_one(library, url))
            if any(o.status == "updated" for o in outcomes if o.library_id == library.library_id):
                self.index_library(library.library_id)
        return outcomes

    # -- internals ----------------------------------------------------------------------

    def _get(self, url: str, library_id: str, ttl_hours: float, *, llms: bool = False) -> tuple[CachedPage, bool, bool]:
        """(page, served from cache, stale): stale pages are revalidated in the background."""
        page = self.cache.get(url)
        if page is None:
            return self._fetch(url, library_id, None, llms=llms), False, False
        if page.age(self.cache.clock()) < ttl_hours * 3600:
            return page, True, False
        self._worker.submit(f"refresh:{url}", lambda: self._revalidate(page, llms=llms))
        return page, True, True

    def _fetch(self, url: str, library_id: str, previous: CachedPage | None, *, llms: bool = False) -> CachedPage:
        self._refusals.check(url)
        try:
            fetched = self.fetcher.get(
                url,
                etag=previous.etag if previous else "",
                last_modified=previous.last_modified if previous else "",
                policy=self.policy(),
            )
            if fetched.not_modified and previous is not None:
                return self.cache.revalidated(previous)
            if llms:
                refuse_html(url, fetched)
            converted = to_markdown(fetched)
        except RemotePageNotFoundError as error:
            if llms:
                raise llms_txt_missing(error) from error
            raise
        except InvalidContentError as error:
            self._refusals.remember(url, error)
            raise
        if llms:
            refuse_unparsable(converted.markdown, url)
        return self.cache.put(
            CachedPage(
                url,
                library_id,
                converted.title,
                converted.markdown,
                fetched.etag,
                fetched.last_modified,
                self.cache.clock(),
            )
        )

    def _revalidate_if_stale(self, library: RegisteredLibrary) -> None:
        """Refresh an indexed library's llms.txt (its TOC) in the background once its TTL has passed."""
        page = self.cache.get(library.llms_txt_url)
        if page is not None and page.age(self.cache.clock()) >= library.ttl_hours * 3600:
            self._worker.submit(f"refresh:{page.url}", lambda: self._revalidate(page, llms=True))

    def _revalidate(self, page: CachedPage, *, llms: bool = False) -> None:
        try:
            fresh = self._fetch(page.url, page.library_id, page, llms=llms)
        except SourceError as error:
            logger.warning("refreshing %s failed, serving the cached copy: %s", redact(page.url), error.message)
            self.cache.failed(page, error.message)
            return
        if fresh.digest != page.digest and page.library_id in self._entries():
            self.index_library(page.library_id)

    def _refresh_one(self, library: RegisteredLibrary, url: str) -> RefreshOutcome:
        previous = self.cache.get(url)
        try:
            page = self._fetch(url, library.library_id, previous, llms=url == library.llms_txt_url)
        except SourceError as error:
            if previous is not None:
                self.cache.failed(previous, error.message)
            return RefreshOutcome(
                library.library_id,
                url,
                "failed",
                f"{error.message} (kept the cached copy)" if previous else error.message,
            )
        changed = previous is None or page.digest != previous.digest
        return RefreshOutcome(library.library_id, url, "updated" if changed else "unchanged")

    def _owner(self, url: str) -> RegisteredLibrary | None:
        """The library whose table of contents lists ``url`` (or whose llms.txt folder holds it); None for any other URL."""
        entries = self._entries()
        for library_id, library in self.llms_libraries().items():
            entry = entries.get(library_id)
            toc = {t.get("url") for t in (entry.toc if entry else ())} or self._cached_toc(library)
            if _belongs(url, library, toc):
                return library
        return None

    def _cached_toc(self, library: RegisteredLibrary) -> set[str]:
        """The TOC URLs of a library not indexed yet, from its cached llms.txt (none before it was fetched)."""
        page = self.cache.get(library.llms_txt_url) if library.llms_txt_url else None
        if page is None:
            return set()
        try:
            return {entry.url for entry in parse_llms_txt(page.markdown, page.url).entries}
        except SourceError:
            return set()

    def _path_of(self, library: RegisteredLibrary, url: str) -> str:
        """The document path ``url`` has (or will have once indexed) in its library, as ingest names it."""
        entry = self._entries().get(library.library_id)
        toc = entry.toc if entry else ()
        known = [
            *(t["url"] for t in toc if t.get("url")),
            *(p.url for p in self.cache.states_of(library.library_id)),
            url,
        ]
        return f"{library.library_id}/{page_paths(known, library.llms_txt_url)[url]}"

    def _is_indexed(self, library_id: str, page: CachedPage) -> bool:
        return indexed_digests(self._entries().get(library_id)).get(page.url) == page.digest

    def entries(self) -> dict[str, CatalogEntry]:
        """The index's catalog entries by library ID (from the published metadata.json)."""
        return dict(self._entries())

    def _entries(self) -> dict[str, CatalogEntry]:
        """The index's catalog, from the published metadata.json (no database opened)."""
        path = self.settings.index_dir / METADATA_FILE
        try:
            stat = path.stat()
        except OSError:
            return {}
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if self._catalog is None or self._catalog[0] != key:
            try:
                metadata = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                return {}
            self._catalog = (key, catalog_entries(metadata) if metadata.get("libraries") else {})
        return self._catalog[1]


_DEFAULT = RegisteredLibrary("", "", LLMS_TXT)


def _belongs(url: str, library: RegisteredLibrary, toc: set[str] | set[str | None]) -> bool:
    """Whether ``url`` is the library's llms.txt, an entry of its table of contents, or under the llms.txt's folder."""
    return bool(library.llms_txt_url) and (
        url == library.llms_txt_url or url in toc or _under_folder(url, library.llms_txt_url)
    )


def _under_folder(url: str, llms_url: str) -> bool:
    """Same scheme and host as the llms.txt, and a path inside its folder once escapes and dot segments are resolved."""
    try:
        page, base = urlsplit(url), urlsplit(llms_url)
    except ValueError:
        return False
    if (page.scheme, page.netloc.lower()) != (base.scheme, base.netloc.lower()):
        return False
    raw = unquote(page.path or "/")
    if "\\" in raw:
        return False
    path = posixpath.normpath("/" + raw.lstrip("/"))
    if raw.endswith("/") and path != "/":
        path += "/"
    return path.startswith(base.path.rsplit("/", 1)[0] + "/")


def _indexed_library(entry: CatalogEntry) -> RegisteredLibrary:
    return RegisteredLibrary(
        library_id=entry.library_id,
        name=entry.name or entry.library_id,
        kind=LLMS_TXT,
        llms_txt_url=entry.llms_txt,
        description=entry.description,
        languages=entry.languages,
        aliases=entry.aliases,
        ttl_hours=entry.ttl_hours or _DEFAULT.ttl_hours,
    )


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
