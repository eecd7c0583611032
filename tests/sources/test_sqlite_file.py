"""The SQLite files beside an index: opened at once by several threads (or processes), each one opens."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from docs_mcp.indexer.sources.packages.metadata_cache import MetadataCache
from docs_mcp.indexer.sources.web.sqlite_file import open_sqlite_file

SCHEMA = ("CREATE TABLE IF NOT EXISTS answers (name TEXT PRIMARY KEY, body TEXT)",)


def _open_at_once(path: Path, opener, count: int = 6) -> list[BaseException]:
    """Open ``path`` from ``count`` threads released together; the errors they met."""
    barrier, errors = threading.Barrier(count), []

    def open_one() -> None:
        barrier.wait()
        try:
            opener(path).close()
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_a_new_file_opened_by_several_threads_at_once_opens_in_every_one(tmp_path: Path) -> None:
    # The switch to WAL of one connection answered "database is locked" at once to another opening the same
    # new file (measured: 6 of 30 such rounds); resolve_library's lookups open the registry cache that way.
    errors = [
        error
        for trial in range(50)
        for error in _open_at_once(tmp_path / f"cache-{trial}.sqlite", lambda p: open_sqlite_file(p, SCHEMA), 8)
    ]
    assert errors == []
    connection = open_sqlite_file(tmp_path / "cache-0.sqlite", SCHEMA)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.close()


def test_the_registry_cache_opens_from_concurrent_lookups(tmp_path: Path) -> None:
    errors = [
        error for trial in range(20) for error in _open_at_once(tmp_path / f"registry-{trial}.sqlite", MetadataCache, 8)
    ]
    assert errors == []


def test_a_registry_client_opens_one_cache_for_lookups_on_many_threads(tmp_path: Path) -> None:
    from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings

    client = RegistryClient(RegistrySettings(cache_path=tmp_path / "registry.sqlite"))
    barrier, seen = threading.Barrier(8), []

    def look() -> None:
        barrier.wait()
        seen.append(client.cache)

    threads = [threading.Thread(target=look) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(seen) == 8 and len({id(cache) for cache in seen}) == 1
    finally:
        client.close()


def test_a_registry_cache_that_cannot_be_opened_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    from docs_mcp.indexer.sources.errors import SourceUnavailableError
    from docs_mcp.indexer.sources.packages.registry_client import CACHE_ENV, RegistryClient, RegistrySettings

    (tmp_path / "a-folder").mkdir()
    client = RegistryClient(RegistrySettings(cache_path=tmp_path / "a-folder"))  # a folder is no SQLite file
    try:
        with pytest.raises(SourceUnavailableError) as caught:
            _ = client.cache
        assert CACHE_ENV in caught.value.hint
    finally:
        client.close()
