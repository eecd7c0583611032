"""The registry cache: what PyPI and npm said about a package, kept for a TTL in a SQLite file.

Stores the parsed record (a few KiB), not the registry's document (megabytes for a package with
thousands of versions), with the document's ETag for a conditional revalidation once the TTL has
passed, and remembers names the registry does not know (so an agent's typo costs one request a
TTL). Thread-safe: one connection behind a lock; several processes share the file (WAL).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.indexer.sources.packages.package_info import PackageInfo
from docs_mcp.indexer.sources.web.sqlite_file import open_sqlite_file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS packages (
    ecosystem TEXT NOT NULL, name TEXT NOT NULL, fetched_at REAL NOT NULL, etag TEXT NOT NULL,
    info TEXT, PRIMARY KEY (ecosystem, name)
)
"""


@dataclass(frozen=True)
class CachedPackage:
    """A registry answer: the package (None: the registry said it does not exist), when, and its ETag."""

    ecosystem: str
    name: str
    info: PackageInfo | None
    fetched_at: float
    etag: str = ""

    def age(self, now: float) -> float:
        return max(0.0, now - self.fetched_at)


class MetadataCache:
    """Registry answers by (ecosystem, name)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._db = open_sqlite_file(path, (_SCHEMA,))

    def get(self, ecosystem: str, name: str) -> CachedPackage | None:
        with self._lock:
            row = self._db.execute(
                "SELECT fetched_at, etag, info FROM packages WHERE ecosystem = ? AND name = ?", (ecosystem, name)
            ).fetchone()
        if row is None:
            return None
        info = PackageInfo.from_json(json.loads(row[2])) if row[2] else None
        return CachedPackage(ecosystem, name, info, row[0], row[1])

    def put(self, ecosystem: str, name: str, info: PackageInfo | None, etag: str = "") -> CachedPackage:
        """Remember the registry's answer now (``info`` None: no such package)."""
        entry = CachedPackage(ecosystem, name, info, self.clock(), etag)
        text = json.dumps(info.as_json()) if info is not None else None
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO packages VALUES (?, ?, ?, ?, ?)",
                (ecosystem, name, entry.fetched_at, etag, text),
            )
            self._db.commit()
        return entry

    def close(self) -> None:
        with self._lock:
            self._db.close()
