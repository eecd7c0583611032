"""Shared storage: where a builder publishes generations and every replica pulls them from.

The interface is a handful of whole-object operations (put a generation, open one of its
files for reading, list, delete), so an object store can stand behind it later;
``DirectoryStorage`` is a folder (a network filesystem mount, or a local one in tests).

Replicas never serve from shared storage: ``pull_generation`` copies each file to the
replica's own disk with plain reads, hashing it on the way, and only a copy whose every
file matches the manifest is renamed into place. Memory-mapping across a network
filesystem (ESTALE, SIGBUS when the file is replaced) never happens.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import BinaryIO, Protocol

from docs_mcp.indexer.errors import ChecksumError, StorageError
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.fleet.checksum_manifest import (
    MANIFEST_FILE,
    ChecksumManifest,
    check_entry,
    hash_stream,
    verify_folder,
)
from docs_mcp.indexer.index_file import GENERATION_NAME, flush

LEFTOVER_SECONDS = 600  # a copy in which nothing changed for this long has no writer left


class SharedStorage(Protocol):
    """Whole-generation storage shared by the builder and the replicas."""

    def put(self, folder: Path, manifest: ChecksumManifest) -> None:
        """Copy the generation ``folder`` and its manifest; readers see it whole or not at all."""

    def manifest_bytes(self, generation: str) -> bytes:
        """The manifest of a published generation (StorageError if there is none)."""

    def open(self, generation: str, path: str) -> BinaryIO:
        """One file of a published generation, for reading."""

    def generations(self) -> list[str]:
        """The published generations, oldest first."""

    def delete(self, generation: str) -> None:
        """Remove a generation (nothing if it is absent)."""


class DirectoryStorage:
    """Shared storage in a folder: ``ROOT/<generation>/...`` with ``manifest.json`` beside the files."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def put(self, folder: Path, manifest: ChecksumManifest) -> None:
        """See SharedStorage.put; the caller holds the fleet's build lock, so copies other publishers left are swept."""
        self.sweep()
        target = self.root / manifest.generation
        if (target / MANIFEST_FILE).is_file():
            return  # published before: generations are immutable
        incoming = self.root / f".incoming-{manifest.generation}-{os.getpid()}"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(incoming, ignore_errors=True)
            for entry in manifest.files:
                destination = incoming / entry.path
                destination.parent.mkdir(parents=True, exist_ok=True)
                with open(folder / entry.path, "rb") as source, open(destination, "wb") as sink:
                    digest, size = hash_stream(source, sink)
                check_entry(entry, digest, size, manifest.generation)  # the local file changed since it was hashed
                fault_point("publish-copy")
            (incoming / MANIFEST_FILE).write_bytes(manifest.to_bytes())
            flush(incoming)
            os.replace(incoming, target)
        except OSError as error:
            shutil.rmtree(incoming, ignore_errors=True)
            raise StorageError(
                f"Cannot publish {manifest.generation} to {self.root}: {error.strerror or error}.",
                "Check that the shared storage folder is mounted and writable (fleet.storage).",
            ) from None
        except ChecksumError:
            shutil.rmtree(incoming, ignore_errors=True)
            raise

    def sweep(self) -> list[str]:
        """Remove the half-made copies (``.incoming-*``) and half-done deletions (``.deleting-*``) of killed
        processes: those in which nothing changed for LEFTOVER_SECONDS. The build lock keeps other publishers out;
        the age keeps a copy still being written by one that lost its lock with its connection."""
        if not self.root.is_dir():
            return []
        now = time.time()
        swept = []
        for leftover in self.root.iterdir():
            if (
                leftover.name.startswith((".incoming-", ".deleting-"))
                and now - _last_change(leftover) > LEFTOVER_SECONDS
            ):
                shutil.rmtree(leftover, ignore_errors=True)
                swept.append(leftover.name)
        return swept

    def manifest_bytes(self, generation: str) -> bytes:
        try:
            return (self.root / _checked(generation) / MANIFEST_FILE).read_bytes()
        except OSError as error:
            raise StorageError(
                f"Generation {generation} is not in shared storage {self.root} ({error.strerror or error}).",
                "Publish it again with `docs-mcp publish`, or check the fleet.storage mount.",
            ) from None

    def open(self, generation: str, path: str) -> BinaryIO:
        try:
            return open(self.root / _checked(generation) / path, "rb")
        except OSError as error:
            raise StorageError(
                f"Cannot read {path} of generation {generation} from shared storage: {error.strerror or error}.",
                "Check the fleet.storage mount; publish the generation again if files are missing.",
            ) from None

    def generations(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(
            p.name for p in self.root.iterdir() if GENERATION_NAME.fullmatch(p.name) and (p / MANIFEST_FILE).is_file()
        )

    def delete(self, generation: str) -> None:
        target = self.root / _checked(generation)
        if not target.exists():
            return
        doomed = self.root / f".deleting-{generation}-{os.getpid()}"
        os.replace(target, doomed)  # readers stop seeing it at once, then the files go
        shutil.rmtree(doomed, ignore_errors=True)


def pull_generation(storage: SharedStorage, manifest: ChecksumManifest, index_dir: Path) -> Path:
    """Copy a published generation into the local index folder ``index_dir``, verifying every byte.

    The copy goes to a hidden folder first and is renamed to ``index_dir/<generation>`` only
    when every file matches the manifest; a generation already there is verified, not copied.

    Raises:
        StorageError: shared storage cannot be read, or the local disk written.
        ChecksumError: a file does not match the manifest (the partial copy is deleted).
    """
    target = Path(index_dir) / manifest.generation
    if target.is_dir():
        verify_folder(target, manifest)
        return target
    partial = Path(index_dir) / f".pull-{manifest.generation}-{os.getpid()}"
    try:
        shutil.rmtree(partial, ignore_errors=True)
        for entry in manifest.files:
            destination = partial / entry.path
            destination.parent.mkdir(parents=True, exist_ok=True)
            with storage.open(manifest.generation, entry.path) as source, open(destination, "wb") as sink:
                digest, size = hash_stream(source, sink)
            check_entry(entry, digest, size, manifest.generation)
        (partial / MANIFEST_FILE).write_bytes(manifest.to_bytes())
        flush(partial)
        os.replace(partial, target)
    except OSError as error:
        raise StorageError(
            f"Cannot copy generation {manifest.generation} to {index_dir}: {error.strerror or error}.",
            "Free disk space on the replica or fix the permissions of its index folder.",
        ) from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _last_change(folder: Path) -> float:
    """The latest modification time of ``folder`` and anything in it (0 if it vanished meanwhile)."""
    latest = 0.0
    for path in (folder, *folder.rglob("*")):
        try:
            latest = max(latest, path.lstat().st_mtime)
        except OSError:
            continue
    return latest


def _checked(generation: str) -> str:
    if not GENERATION_NAME.fullmatch(generation):
        raise StorageError(
            f"{generation!r} is not a generation name.", "Use a name the registry lists (`docs-mcp fleet status`)."
        )
    return generation
