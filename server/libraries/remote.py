"""Remote sources as the library tools see them: registered libraries, JIT fetching, URL reads, Context7.

Everything goes through :class:`~docs_mcp.indexer.sources.service.SourceService` (the indexer
owns fetching, the cache and writing the index); this module only decides what a tool call
needs fetched first, and shapes the answers. After a fetch wrote a new generation, the
tool answers from ``live.current()``, the generation that now holds the pages.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from docs_mcp.indexer.libraries.library import LOCAL, REMOTE, Library
from docs_mcp.indexer.sources.errors import WrongToolError
from docs_mcp.indexer.sources.kinds import fetches_on_demand
from docs_mcp.indexer.sources.known_libraries import CONTEXT7, LLMS_TXT, RegisteredLibrary
from docs_mcp.server.core.live_index import LiveIndex, ServedIndex
from docs_mcp.server.libraries.pages import line_fields, window
from docs_mcp.server.libraries.served_libraries import LibraryCatalog

if TYPE_CHECKING:
    from docs_mcp.indexer.sources.packages.registry_client import RegistryClient
    from docs_mcp.indexer.sources.service import SourceService
    from docs_mcp.indexer.sources.web.fetch_pool import FetchPool

T = TypeVar("T")

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """The index to answer from once the llms.txt libraries have what they need, and how current they are."""

    index: ServedIndex
    stale: bool  # some page of those libraries is past its TTL (being refreshed in the background)
    warnings: tuple[str, ...]  # pages that could not be fetched, refreshes that failed


class Sources:
    """The remote-source side of one server: the service, and the live index it writes to."""

    def __init__(
        self,
        service: SourceService | Callable[[], SourceService],
        live: LiveIndex,
        registry: RegistryClient | Callable[[], RegistryClient | None] | None = None,
    ) -> None:
        """``service`` and ``registry`` (PyPI and npm, for resolve_library's live lookups; None: off), or functions
        that open them when a library tool first needs them."""
        self._service: _OnFirstUse[SourceService] = _OnFirstUse(service)
        self._registry: _OnFirstUse[RegistryClient | None] = _OnFirstUse(registry)
        self.live = live

    @classmethod
    def opened_on_use(cls, index_dir: Path, live: LiveIndex) -> Sources:
        """The sources of the index at ``index_dir``, their service and package registry opened on first use.

        Fetching, converting and indexing pages, and asking package registries (httpx, BeautifulSoup,
        the index writer) are imported then, not at start: a server that only searches never loads
        them (measured: about 0.2 CPU-s and 6 MB of a stdio server's start).  The test mode's warning
        stays a start-up one.
        """
        from docs_mcp.indexer.sources.web.safety import warn_if_loopback_allowed

        warn_if_loopback_allowed()

        def open_service() -> SourceService:
            from docs_mcp.indexer.sources.service import SourceService
            from docs_mcp.indexer.sources.source_settings import source_settings

            return SourceService(source_settings(Path(index_dir)))

        def open_registry() -> RegistryClient | None:
            from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings
            from docs_mcp.server.libraries.packages import lookups_enabled

            return RegistryClient(RegistrySettings.for_index(Path(index_dir))) if lookups_enabled() else None

        return cls(open_service, live, open_registry)

    @property
    def service(self) -> SourceService:
        return self._service.get()

    @property
    def registry(self) -> RegistryClient | None:
        return self._registry.get()

    def close_registry(self) -> None:
        """Close the package registry client, if one was opened."""
        client = self._registry.opened()
        if client is not None:
            client.close()

    def close(self) -> None:
        """Close what was opened: the service (after its background index write) and the registry client."""
        service = self._service.opened()
        if service is not None:
            service.close()
        self.close_registry()

    def fetch_pool(self) -> FetchPool | None:
        """The pool the service fetches pages on, once the service is open (None before: nothing was fetched)."""
        service = self._service.opened()
        return service.fetcher.pool if service is not None else None

    def registered(self) -> tuple[Library, ...]:
        """The registry's libraries as catalog entries (those the index holds are replaced by theirs)."""
        llms = (_library(lib, LOCAL) for lib in self.service.llms_libraries().values())
        remote = (_library(lib, REMOTE) for lib in self.service.remote_libraries().values())
        return (*llms, *remote)

    def prepare(self, index: ServedIndex, libraries: Sequence[Library], topic: str | None = None) -> Prepared:
        """Fetch what the llms.txt libraries among ``libraries`` lack (their TOC; pages about ``topic``); the index to answer from.

        Raises:
            SourceError: an llms.txt cannot be fetched (SOURCE_UNAVAILABLE, LLMS_TXT_NOT_FOUND, URL_NOT_ALLOWED...).
        """
        changed, stale, warnings = False, False, []
        for library in libraries:
            if library.source != LOCAL or not fetches_on_demand(library.origin):
                continue
            changed |= self.service.ensure_library(library.library_id)
            urls = self.service.pages_for_topic(library.library_id, topic) if topic else []
            if urls:
                failures = self.service.ensure_pages(library.library_id, urls)
                for failure in failures:
                    logger.warning("get_docs could not fetch %s", failure)
                if failures:
                    warnings.append(
                        f"{len(failures)} page(s) of '{library.library_id}' about this topic could not be fetched ({failures[0]}); the answer is built without them."
                    )
                changed = True
            freshness = self.service.freshness(library.library_id)
            stale |= freshness.stale
            if freshness.last_error:
                warnings.append(
                    f"The source of '{library.library_id}' could not be reached at the last refresh ({freshness.last_error}); some of its pages may be outdated."
                )
        return Prepared(self.live.current() if changed else index, stale, tuple(warnings))

    def read_url(self, url: str, offset: int, max_lines: int) -> dict[str, Any]:
        """read_page by URL: the page (cached, stale or fetched) as ``max_lines`` lines from ``offset``.

        Raises:
            SourceError: the URL is refused or the page cannot be read.
        """
        page = self.service.read_url(url)
        content, total, returned = window(page.content, offset, max_lines)
        answer = {
            "library_id": page.library_id or None,
            "url": page.url,
            "path": page.path or None,
            "title": page.title,
            **line_fields(content, total, offset, returned),
            "cached": page.cached,
            "stale": page.stale,
            "fetched_at": page.fetched_at,
            "provenance": {
                "library_id": page.library_id or None,
                "version": None,
                "source_url": page.url,
                "revision": None,
                "fetched_at": page.fetched_at,
                "indexed_at": None,
            },  # fmt: skip
        }
        if page.warning:
            answer["warning"] = page.warning
        return answer

    def context7_docs(self, library_id: str, topic: str, tokens: int, catalog: LibraryCatalog) -> dict[str, Any]:
        """get_context7_docs: the Context7-compatible API's answer, as it gave it.

        Raises:
            WrongToolError: the library is local.
            SourceError: the API is not configured or cannot be reached.
        """
        library = catalog.libraries.get(library_id)
        if library is not None and library.source == LOCAL:
            raise WrongToolError(
                f"'{library_id}' is a local library. Use 'get_docs' for enhanced features.",
                f"Call get_docs(libraries=['{library_id}'], topic='...'), or get_library_info and read_page.",
            )
        content = self.service.context7.docs(library_id, topic, tokens)
        return {"library_id": library_id, "topic": topic, "tokens": tokens, "source": REMOTE, "content": content}


def refuse_remote(library: Library) -> None:
    """Refuse a remote library in a tool for local ones: get_context7_docs answers for it.

    Raises:
        WrongToolError: ``library`` is remote.
    """
    if library.source == REMOTE:
        raise WrongToolError(
            f"'{library.library_id}' is not locally indexed. Use 'get_context7_docs' instead.",
            f"Call get_context7_docs(library_id='{library.library_id}', topic='...') with one descriptive topic string.",
        )


def _library(registered: RegisteredLibrary, source: str) -> Library:
    return Library(
        library_id=registered.library_id,
        name=registered.name,
        description=registered.description,
        languages=registered.languages,
        version="",
        aliases=registered.aliases,
        mount=f"{registered.library_id}/",
        toc=(),
        chunks=0,
        indexed_at="",
        source=source,
        origin=CONTEXT7 if source == REMOTE else LLMS_TXT,
        indexed=False,
    )


class _OnFirstUse(Generic[T]):
    """A value, or a function that makes it the first time it is asked for (once, under a lock)."""

    def __init__(self, value: T | Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = value if callable(value) else None
        self._value: T | None = None if callable(value) else value
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._make is not None:
                self._value, self._make = self._make(), None
            return self._value  # type: ignore[return-value]

    def opened(self) -> T | None:
        """The value if it has been made, without making it."""
        with self._lock:
            return None if self._make is not None else self._value
