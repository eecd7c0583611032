"""The per-user cache of built libraries: a package release built once per machine, reused by every project.

An entry is one release (registry, library ID with its version) built with one embedding model, in the form
a project's build merges without reading, chunking or embedding anything: the library's chunks and catalog
entry as the build stored them, and its window vectors (sources/cached_release.py writes and reads them).
Entries are laid out as the fleet publishes a generation: every file's size and sha256 in ``checksums.json``
(fleet/checksum_manifest.py), so a team can point the cache at shared storage (a mounted folder):

    ROOT/<library id>/<key digest>/checksums.json, library.json, chunks.json, vectors.duckdb

An entry is written aside and renamed into place, so it is complete or invisible; when two projects build the
same release at once, the first rename wins and the other copy is dropped. It is read by copying it to a private
folder while every byte is checked against its manifest: an entry that fails, or that records another key, is
deleted (the release is then built again), never used. The cache stays under its size cap by deleting the
entries used longest ago (a folder's modification time is its last use), under a lock file so that two
evictions never race.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from docs_mcp.environment import variable
from docs_mcp.indexer.errors import ChecksumError
from docs_mcp.indexer.fleet.checksum_manifest import (
    MANIFEST_FILE,
    ChecksumManifest,
    build_manifest,
    check_entry,
    hash_stream,
)
from docs_mcp.indexer.schema import FORMAT_VERSION
from docs_mcp.redact import redact

CACHE_ENV = "DOCS_MCP_LIBRARY_CACHE"  # the cache's folder; "off" turns it off
CACHE_MB_ENV = "DOCS_MCP_LIBRARY_CACHE_MB"  # its size cap
DEFAULT_MB = 2048
OFF = ("off", "0", "none", "false")
CACHE_FORMAT = "1"  # the layout of an entry; another value is another key, never read as this one
# What a release's files become: the files unpacked from its archive and the chunks and search text made of them.
# Bumped when either changes for pages that already indexed, so that a release built by an older docs-mcp is built
# again, not served with the old text. 2: MyST read as its site shows it; the code files literalincludes show.
PAGES_FORMAT = "2"
RECORD_FILE = "library.json"
_INCOMING, _TRASH, _LOCK = ".incoming", ".trash", ".lock"


@dataclass(frozen=True)
class CacheKey:
    """What makes two builds of a library the same: the release, where it came from, the model and the formats."""

    library_id: str  # pypi/NAME/vVERSION, npm/NAME/vVERSION: the package and its version
    registry: str  # the registry's URL (credentials masked): another registry's package of the same name differs
    model: str  # the embedding model's name, "none" for full text only

    def as_json(self) -> dict[str, str]:
        return {"library_id": self.library_id, "registry": redact(self.registry), "model": self.model,
                "cache_format": CACHE_FORMAT, "index_format": FORMAT_VERSION, "pages_format": PAGES_FORMAT}  # fmt: skip

    @property
    def digest(self) -> str:
        return hashlib.sha256(orjson.dumps(self.as_json(), option=orjson.OPT_SORT_KEYS)).hexdigest()[:20]


@dataclass(frozen=True)
class CacheLookup:
    """A lookup's answer: a verified private copy of the entry (``folder``, the caller deletes it) and its record,
    or a miss, with ``problem`` saying why an entry that was there could not be used."""

    folder: Path | None = None
    record: Mapping[str, Any] | None = None
    problem: str = ""


@dataclass(frozen=True)
class CachedEntry:
    """One entry as `docs-mcp cache` lists it."""

    library_id: str
    model: str
    bytes: int
    last_used: float
    path: Path


class LibraryCache:
    """The entries under ``root``, kept within ``max_bytes``."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MB << 20) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes

    @classmethod
    def from_environment(cls) -> LibraryCache | None:
        """The cache the environment names (default: the user cache folder's ``libraries``); None when turned off."""
        from docs_mcp.indexer.models.loading import cache_dir

        where = variable(CACHE_ENV).strip()
        if where.lower() in OFF:
            return None
        try:
            megabytes = max(0, int(variable(CACHE_MB_ENV) or DEFAULT_MB))
        except ValueError:
            megabytes = DEFAULT_MB
        return cls(Path(where).expanduser() if where else cache_dir() / "libraries", megabytes << 20)

    def holds(self, key: CacheKey) -> bool:
        """Whether a complete entry of ``key`` is there (not checked: ``lookup`` checks it when it is used)."""
        return (self._folder(key) / MANIFEST_FILE).is_file()

    def lookup(self, key: CacheKey) -> CacheLookup:
        """The entry of ``key``, copied aside and checked byte for byte; a miss when there is none or it fails."""
        folder = self._folder(key)
        if not (folder / MANIFEST_FILE).is_file():
            return CacheLookup()
        private = Path(tempfile.mkdtemp(prefix="docs-mcp-cached-"))
        try:
            record = _copy_verified(folder, private)
            if record.get("key") != key.as_json():
                raise ChecksumError(f"{folder} records another key.", "It is deleted and built again.")
        except FileNotFoundError:  # evicted or replaced while it was read: a plain miss
            shutil.rmtree(private, ignore_errors=True)
            return CacheLookup()
        except (ChecksumError, ValueError, AttributeError) as error:
            shutil.rmtree(private, ignore_errors=True)
            self._discard(folder)
            return CacheLookup(problem=f"the library cache's entry failed its check and was deleted ({error})")
        except (
            OSError
        ) as error:  # unreadable here (permissions on shared storage, a full temporary disk): not its fault
            shutil.rmtree(private, ignore_errors=True)
            return CacheLookup(problem=f"the library cache's entry could not be read ({error}); built again")
        try:
            os.utime(folder)  # its last use, for the eviction
        except OSError:
            pass  # another user's entry on shared storage: used all the same
        return CacheLookup(private, record)

    def store(self, key: CacheKey, record: Mapping[str, Any], fill: Callable[[Path], None]) -> bool:
        """Write the entry of ``key``: ``fill`` writes its files into a new folder, which gets the record and the
        manifest, then is renamed into place. False when another writer's entry got there first.

        Raises:
            OSError: the cache folder cannot be written (the caller reports it; the project's build is done).
        """
        incoming = self.root / _INCOMING / f"{key.digest}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        incoming.mkdir(parents=True)
        try:
            fill(incoming)
            body = {**record, "key": key.as_json(), "stored_at": time.time()}
            (incoming / RECORD_FILE).write_bytes(orjson.dumps(body, option=orjson.OPT_SORT_KEYS))
            (incoming / MANIFEST_FILE).write_bytes(build_manifest(incoming).to_bytes())
            target = self._folder(key)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(incoming, target)
            except OSError:
                if not target.is_dir():
                    raise
                return False  # another project stored the same release meanwhile: its entry stands
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        self.evict(keep=target)
        return True

    def _folder(self, key: CacheKey) -> Path:
        return self.root / key.library_id / key.digest

    def entries(self) -> list[CachedEntry]:
        """Every complete entry, used longest ago first."""
        found = []
        for manifest in self.root.glob(f"*/*/*/*/{MANIFEST_FILE}"):
            folder = manifest.parent
            try:
                key = orjson.loads((folder / RECORD_FILE).read_bytes()).get("key") or {}
                size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
                found.append(
                    CachedEntry(
                        str(key.get("library_id", "")), str(key.get("model", "")), size, folder.stat().st_mtime, folder
                    )
                )
            except (OSError, ValueError, AttributeError):
                found.append(CachedEntry(folder.relative_to(self.root).parent.as_posix(), "?", 0, 0.0, folder))
        return sorted(found, key=lambda entry: (entry.last_used, str(entry.path)))

    def evict(self, max_bytes: int | None = None, keep: Path | None = None) -> list[CachedEntry]:
        """Delete the entries used longest ago until the cache holds at most ``max_bytes`` (default: its cap)."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        removed = []
        with self._locked():
            listed = self.entries()
            total = sum(entry.bytes for entry in listed)
            for entry in listed:
                if total <= limit:
                    break
                if entry.path != keep:
                    self._discard(entry.path)
                    removed.append(entry)
                    total -= entry.bytes
        return removed

    def discard(self, key: CacheKey) -> None:
        """Delete the entry of ``key``, if there is one."""
        self._discard(self.root / key.library_id / key.digest)

    def _discard(self, folder: Path) -> None:
        """Remove an entry: renamed out of the way first, so no reader takes a half-deleted folder for one."""
        trash = self.root / _TRASH / uuid.uuid4().hex
        try:
            trash.parent.mkdir(parents=True, exist_ok=True)
            os.rename(folder, trash)
        except OSError:
            return  # gone already (another process discarded it)
        shutil.rmtree(trash, ignore_errors=True)
        for parent in (folder.parent, folder.parent.parent, folder.parent.parent.parent):
            try:
                parent.rmdir()  # the library's folders, once empty
            except OSError:
                break

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / _LOCK, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released by the kernel if this process dies
            yield


def _copy_verified(folder: Path, private: Path) -> Mapping[str, Any]:
    """Copy the entry's files listed in its manifest to ``private``, checking each; the entry's record.

    Raises:
        ChecksumError: a file differs from the manifest, or the manifest is unreadable.
        FileNotFoundError: the entry went away meanwhile.
    """
    manifest = ChecksumManifest.from_bytes((folder / MANIFEST_FILE).read_bytes())
    if RECORD_FILE not in {file.path for file in manifest.files}:
        raise ChecksumError(f"{folder}'s manifest lists no {RECORD_FILE}.", "It is deleted and built again.")
    for file in manifest.files:
        target = private / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(folder / file.path, "rb") as source, open(target, "wb") as sink:
            digest, size = hash_stream(source, sink)
        check_entry(file, digest, size, str(folder))
    record = orjson.loads((private / RECORD_FILE).read_bytes())
    if not isinstance(record, dict):
        raise ChecksumError(f"{folder}/{RECORD_FILE} is no record.", "It is deleted and built again.")
    return record
