"""A content-addressed cache of window vectors on local disk, so a killed build keeps the work it finished.

Vectors are addressed by the window key (sha256 of the model's checksum and the window's text,
vectors.window_key): the same text under the same model is never embedded twice, whichever
build, machine or generation asked for it first. The cache is a folder of shards, one per
finished batch: ``<name>.npy`` (float32 vectors) then ``<name>.keys`` (their keys, one a line),
each written to a temporary file and renamed. The keys file is written last, so a shard is
either complete or invisible: a build killed mid-write leaves nothing half-read.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from docs_mcp.indexer.errors import StorageError

KEYS_SUFFIX = ".keys"


class VectorCache:
    """Window vectors by key, in shard files under ``folder`` (created on the first write)."""

    def __init__(self, folder: Path, dimensions: int) -> None:
        self.folder = Path(folder)
        self.dimensions = dimensions
        self._where: dict[str, tuple[str, int]] = {}  # key -> (shard name, row)
        self._seen: set[str] = set()  # shards already indexed

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of those ``keys`` the cache holds."""
        self._index_new_shards()
        wanted: dict[str, list[tuple[str, int]]] = {}
        for key in keys:
            if key in self._where:
                shard, row = self._where[key]
                wanted.setdefault(shard, []).append((key, row))
        found: dict[str, np.ndarray] = {}
        for shard, rows in wanted.items():
            vectors = np.load(self.folder / f"{shard}.npy")
            for key, row in rows:
                found[key] = vectors[row]
        return found

    def put_many(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Keep ``vectors`` (one row per key) as one more shard.

        Raises:
            StorageError: the folder cannot be written (full disk, permissions).
        """
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(keys), self.dimensions):
            raise ValueError(f"expected {len(keys)} vectors of {self.dimensions} dimensions, got {vectors.shape}")
        name = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:24]
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_atomically(self.folder / f"{name}.npy", lambda handle: np.save(handle, vectors))
            _write_atomically(
                self.folder / f"{name}{KEYS_SUFFIX}", lambda handle: handle.write("\n".join(keys).encode())
            )
        except OSError as error:
            raise StorageError(
                f"Cannot write the vector cache {self.folder}: {error.strerror or error}.",
                "Free disk space or pass another --vector-cache folder.",
            ) from None

    def __len__(self) -> int:
        self._index_new_shards()
        return len(self._where)

    def _index_new_shards(self) -> None:
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob(f"*{KEYS_SUFFIX}")):
            shard = path.name[: -len(KEYS_SUFFIX)]
            if shard in self._seen:
                continue
            self._seen.add(shard)
            for row, key in enumerate(path.read_text(encoding="ascii").split("\n")):
                self._where.setdefault(key, (shard, row))


def _write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
