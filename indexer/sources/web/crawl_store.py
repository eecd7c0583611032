"""What a site crawl knows, on disk: every URL it met, its state, validators and body, so a crawl resumes and refreshes.

One SQLite file per index (``INDEX_DIR/sources/sites.sqlite``), one row per (library, URL). A URL is
``queued`` until fetched, then ``page`` (indexed), ``duplicate`` (the same page as another URL: its
canonical URL or the same body), ``skipped`` (robots.txt, noindex, not HTML, out of scope after a
redirect) or ``failed``. Bodies are kept compressed, with the ``ETag`` and ``Last-Modified`` the
server sent, so the next crawl asks with conditional GETs and a 304 reuses the body. A crawl that
stops half-way (Ctrl-C, a crash) leaves its queue here, and the next run continues it.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.indexer.sources.web.sqlite_file import open_sqlite_file

QUEUED, PAGE, DUPLICATE, SKIPPED, FAILED = "queued", "page", "duplicate", "skipped", "failed"
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS crawls (
        library_id TEXT PRIMARY KEY, start_url TEXT NOT NULL, scope TEXT NOT NULL,
        started_at REAL NOT NULL, finished_at REAL, robots TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE IF NOT EXISTS urls (
        library_id TEXT NOT NULL, url TEXT NOT NULL, state TEXT NOT NULL, seq INTEGER NOT NULL,
        etag TEXT NOT NULL DEFAULT '', last_modified TEXT NOT NULL DEFAULT '', digest TEXT NOT NULL DEFAULT '',
        body BLOB, note TEXT NOT NULL DEFAULT '', fetched_at REAL NOT NULL DEFAULT 0,
        last_state TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (library_id, url)
    )""",
)


@dataclass(frozen=True)
class StoredUrl:
    """One URL of a crawl and what was learnt of it."""

    url: str
    state: str
    etag: str = ""
    last_modified: str = ""
    digest: str = ""
    note: str = ""
    last_state: str = ""  # what the previous crawl made of it ('' before its first fetch)

    @property
    def validators(self) -> tuple[str, str]:
        return self.etag, self.last_modified


@dataclass(frozen=True)
class Crawl:
    """One library's crawl: where it started, its scope, and whether it finished."""

    library_id: str
    start_url: str
    scope: str
    started_at: float
    finished_at: float | None
    robots: str = ""


class CrawlStore:
    """The crawl file of one index; used from one thread (the crawler's), guarded anyway."""

    def __init__(self, path: Path) -> None:
        self._conn = open_sqlite_file(path, _SCHEMA, timeout=5.0, autocommit=True)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def crawl(self, library_id: str) -> Crawl | None:
        """The library's crawl record, None before its first crawl."""
        row = self._one(
            "SELECT library_id, start_url, scope, started_at, finished_at, robots FROM crawls WHERE library_id = ?",
            (library_id,),
        )
        return Crawl(*row) if row else None

    def begin(self, library_id: str, start_url: str, scope: str, robots: str) -> bool:
        """Start (or resume) a crawl; True when an unfinished one is resumed (its queue kept).

        A new crawl of a library crawled before queues every known page again, validators kept.
        """
        previous = self.crawl(library_id)
        resume = previous is not None and previous.finished_at is None and previous.start_url == start_url
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO crawls VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT(library_id) DO UPDATE SET "
                "start_url = excluded.start_url, scope = excluded.scope, robots = excluded.robots, finished_at = NULL"
                + ("" if resume else ", started_at = excluded.started_at"),
                (library_id, start_url, scope, time.time(), robots),
            )
            if not resume:
                self._conn.execute(
                    "UPDATE urls SET last_state = CASE WHEN state = ? THEN last_state ELSE state END, state = ? WHERE library_id = ?",
                    (QUEUED, QUEUED, library_id),
                )
        return resume

    def finish(self, library_id: str) -> None:
        with self._lock, self._conn:
            self._conn.execute("UPDATE crawls SET finished_at = ? WHERE library_id = ?", (time.time(), library_id))

    def enqueue(self, library_id: str, urls: Iterable[str], cap: int) -> int:
        """Queue the URLs not met yet, while the crawl knows fewer than ``cap``; how many were queued."""
        added = 0
        with self._lock, self._conn:
            known, last = self._conn.execute(
                "SELECT count(*), coalesce(max(seq), 0) FROM urls WHERE library_id = ?", (library_id,)
            ).fetchone()
            for url in urls:
                if known >= cap:
                    break
                cursor = self._conn.execute(
                    "INSERT OR IGNORE INTO urls (library_id, url, state, seq) VALUES (?, ?, ?, ?)",
                    (library_id, url, QUEUED, last + 1),
                )
                if cursor.rowcount:
                    known, last, added = known + 1, last + 1, added + 1
        return added

    def queued(self, library_id: str, limit: int) -> list[StoredUrl]:
        """The next queued URLs, first met first."""
        rows = self._all(
            "SELECT url, state, etag, last_modified, digest, note, last_state FROM urls WHERE library_id = ? AND state = ? ORDER BY seq LIMIT ?",
            (library_id, QUEUED, limit),
        )
        return [StoredUrl(*row) for row in rows]

    def get(self, library_id: str, url: str) -> StoredUrl | None:
        row = self._one(
            "SELECT url, state, etag, last_modified, digest, note, last_state FROM urls WHERE library_id = ? AND url = ?",
            (library_id, url),
        )
        return StoredUrl(*row) if row else None

    def body(self, library_id: str, url: str) -> bytes:
        row = self._one("SELECT body FROM urls WHERE library_id = ? AND url = ?", (library_id, url))
        return zlib.decompress(row[0]) if row and row[0] else b""

    def record(self, library_id: str, url: str, state: str, *, body: bytes | None = None, etag: str = "", last_modified: str = "",
               digest: str = "", note: str = "") -> None:  # fmt: skip
        """What fetching ``url`` gave; ``body`` None keeps the stored one (a 304)."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO urls (library_id, url, state, seq) VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING",
                (library_id, url, state),
            )
            sets = "state = ?, note = ?, fetched_at = ?" + (
                ", etag = ?, last_modified = ?, digest = ?, body = ?" if body is not None else ""
            )
            values: tuple[object, ...] = (state, note, time.time())
            if body is not None:
                values += (etag, last_modified, digest, zlib.compress(body, 6))
            self._conn.execute(f"UPDATE urls SET {sets} WHERE library_id = ? AND url = ?", (*values, library_id, url))

    def pages(self, library_id: str) -> list[StoredUrl]:
        """The indexed pages, in the order they were met."""
        rows = self._all("SELECT url, state, etag, last_modified, digest, note, last_state FROM urls WHERE library_id = ? AND state = ? ORDER BY seq, url",
                         (library_id, PAGE))  # fmt: skip
        return [StoredUrl(*row) for row in rows]

    def counts(self, library_id: str) -> dict[str, int]:
        """URLs per state."""
        return dict(self._all("SELECT state, count(*) FROM urls WHERE library_id = ? GROUP BY state", (library_id,)))

    def holder_of(self, library_id: str, digest: str, other_than: str) -> str:
        """The page already indexed with this body digest ('' when none)."""
        row = self._one("SELECT url FROM urls WHERE library_id = ? AND state = ? AND digest = ? AND url != ? ORDER BY seq LIMIT 1",
                        (library_id, PAGE, digest, other_than))  # fmt: skip
        return row[0] if row else ""

    def forget(self, library_id: str) -> None:
        """Drop everything known of the library's crawl (the library was removed)."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM urls WHERE library_id = ?", (library_id,))
            self._conn.execute("DELETE FROM crawls WHERE library_id = ?", (library_id,))

    def _one(self, sql: str, args: tuple[object, ...]) -> tuple | None:
        with self._lock:
            return self._conn.execute(sql, args).fetchone()

    def _all(self, sql: str, args: tuple[object, ...]) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()
