"""The page cache: a memory LRU in front of a SQLite store shared by every process of one index.

A page is fresh for its library's TTL after it was last fetched or revalidated; after that
it is stale: still served (with ``stale: true``) while a background refresh revalidates
it with a conditional GET. ``last_error`` keeps why the last refresh failed, so a stale
answer can say so.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from docs_mcp.indexer.sources.web.sqlite_file import open_sqlite_file

DEFAULT_MEMORY_ENTRIES = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY, library_id TEXT NOT NULL, title TEXT NOT NULL, markdown TEXT NOT NULL,
    etag TEXT NOT NULL, last_modified TEXT NOT NULL, fetched_at REAL NOT NULL, last_error TEXT NOT NULL
)
"""
_COLUMNS = "url, library_id, title, markdown, etag, last_modified, fetched_at, last_error"


@dataclass(frozen=True)
class CachedPage:
    """One fetched page as markdown, with what a conditional GET needs."""

    url: str
    library_id: str
    title: str
    markdown: str
    etag: str = ""
    last_modified: str = ""
    fetched_at: float = 0.0  # epoch seconds of the last fetch or successful revalidation
    last_error: str = ""  # why the last refresh failed ('' when it did not)

    @property
    def digest(self) -> str:
        """A short hash of the content: what the index records to know whether a page changed."""
        return hashlib.sha256(self.markdown.encode()).hexdigest()[:16]

    def age(self, now: float) -> float:
        return max(0.0, now - self.fetched_at)


@dataclass(frozen=True)
class PageState:
    """A cached page without its content: what freshness checks and path naming read."""

    url: str
    fetched_at: float
    last_error: str


class PageCache:
    """Pages by URL; thread-safe (one connection behind a lock)."""

    def __init__(
        self, path: Path, *, memory_entries: int = DEFAULT_MEMORY_ENTRIES, clock: Callable[[], float] = time.time
    ) -> None:
        self.clock = clock
        self._memory: OrderedDict[str, CachedPage] = OrderedDict()
        self._capacity = memory_entries
        self._lock = threading.Lock()
        self._db = open_sqlite_file(path, (_SCHEMA,))

    def get(self, url: str) -> CachedPage | None:
        """The cached page at ``url``: from memory, else from disk (then kept in memory)."""
        with self._lock:
            if url in self._memory:
                self._memory.move_to_end(url)
                return self._memory[url]
            row = self._db.execute(f"SELECT {_COLUMNS} FROM pages WHERE url = ?", (url,)).fetchone()
            page = CachedPage(*row) if row else None
            if page is not None:
                self._remember(page)
            return page

    def put(self, page: CachedPage) -> CachedPage:
        """Store ``page`` (replacing any older copy) and return it."""
        with self._lock:
            self._db.execute(f"INSERT OR REPLACE INTO pages ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _row(page))
            self._db.commit()
            self._remember(page)
        return page

    def revalidated(self, page: CachedPage) -> CachedPage:
        """``page`` confirmed unchanged (304) now."""
        return self.put(replace(page, fetched_at=self.clock(), last_error=""))

    def failed(self, page: CachedPage, error: str) -> CachedPage:
        """``page`` kept as it is after a refresh that failed with ``error``."""
        return self.put(replace(page, last_error=error))

    def pages_of(self, library_id: str) -> list[CachedPage]:
        """Every cached page of a library, by URL."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM pages WHERE library_id = ? ORDER BY url", (library_id,)
            ).fetchall()
        return [CachedPage(*row) for row in rows]

    def states_of(self, library_id: str) -> list[PageState]:
        """URL, fetch time and last refresh error of every cached page of a library, by URL (no content read)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT url, fetched_at, last_error FROM pages WHERE library_id = ? ORDER BY url", (library_id,)
            ).fetchall()
        return [PageState(*row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _remember(self, page: CachedPage) -> None:
        self._memory[page.url] = page
        self._memory.move_to_end(page.url)
        while len(self._memory) > self._capacity:
            self._memory.popitem(last=False)


def _row(page: CachedPage) -> tuple:
    return (
        page.url,
        page.library_id,
        page.title,
        page.markdown,
        page.etag,
        page.last_modified,
        page.fetched_at,
        page.last_error,
    )
