"""The checksum manifest of a generation: every file's relative path, size and sha256, as canonical JSON.

A builder writes it when it publishes; a replica checks every byte it pulled against it
before it opens the copy. The manifest's own sha256 is what the registry records, so a
manifest swapped in shared storage is caught too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

from docs_mcp.indexer.errors import ChecksumError

MANIFEST_FILE = "checksums.json"  # beside the files (serving/ has a manifest.json of its own)
MANIFEST_VERSION = 1
READ_BLOCK = 1 << 20  # bytes read at a time while hashing or copying


@dataclass(frozen=True)
class FileEntry:
    """One file of a generation."""

    path: str  # relative to the generation folder, with '/' separators
    size: int
    sha256: str


@dataclass(frozen=True)
class ChecksumManifest:
    """What a generation holds, file by file."""

    generation: str
    files: tuple[FileEntry, ...]

    def to_bytes(self) -> bytes:
        """Canonical JSON (sorted files, sorted keys): the same generation always gives the same bytes."""
        body = {
            "version": MANIFEST_VERSION,
            "generation": self.generation,
            "files": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in self.files],
        }
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.files)

    @classmethod
    def from_bytes(cls, data: bytes, expected_sha256: str | None = None) -> ChecksumManifest:
        """Parse a manifest, checking its own digest first when the registry gave one.

        Raises:
            ChecksumError: the digest differs, or the bytes are no manifest.
        """
        if expected_sha256 is not None and hashlib.sha256(data).hexdigest() != expected_sha256:
            raise ChecksumError(
                "The generation's manifest in shared storage does not match the registry's sha256.",
                "Publish the generation again (`docs-mcp publish`); shared storage may be corrupted.",
            )
        try:
            body = orjson.loads(data)
            files = tuple(FileEntry(str(f["path"]), int(f["size"]), str(f["sha256"])) for f in body["files"])
            manifest = cls(str(body["generation"]), files)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise ChecksumError(f"The manifest cannot be read ({error}).", "Publish the generation again.") from None
        for entry in files:
            if entry.path.startswith("/") or ".." in entry.path.split("/"):
                raise ChecksumError(
                    f"The manifest names a path outside the generation: {entry.path!r}.",
                    "Publish the generation again.",
                )
        return manifest


def build_manifest(folder: Path) -> ChecksumManifest:
    """Hash every file under ``folder`` (the manifest itself excluded), in path order."""
    entries = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p != folder / MANIFEST_FILE):
        with open(path, "rb") as handle:
            digest, size = hash_stream(handle)
        entries.append(FileEntry(path.relative_to(folder).as_posix(), size, digest))
    return ChecksumManifest(folder.name, tuple(entries))


def hash_stream(handle: BinaryIO, sink: BinaryIO | None = None) -> tuple[str, int]:
    """The sha256 and size of what ``handle`` holds, copying it to ``sink`` on the way when given."""
    digest, size = hashlib.sha256(), 0
    for block in _blocks(handle):
        digest.update(block)
        size += len(block)
        if sink is not None:
            sink.write(block)
    return digest.hexdigest(), size


def verify_folder(folder: Path, manifest: ChecksumManifest) -> None:
    """Check that ``folder`` holds exactly the manifest's files, byte for byte.

    Raises:
        ChecksumError: a file is missing, extra, of another size or another sha256.
    """
    present = {
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p != folder / MANIFEST_FILE
    }
    expected = {entry.path for entry in manifest.files}
    if present != expected:
        extra, missing = sorted(present - expected), sorted(expected - present)
        raise ChecksumError(
            f"The copy of {manifest.generation} differs from its manifest (missing {missing[:3]}, extra {extra[:3]}).",
            "Delete the copy; the replica pulls it again.",
        )
    for entry in manifest.files:
        with open(folder / entry.path, "rb") as handle:
            digest, size = hash_stream(handle)
        check_entry(entry, digest, size, manifest.generation)


def check_entry(entry: FileEntry, digest: str, size: int, generation: str) -> None:
    """Raise ChecksumError when a file's digest or size is not the manifest's."""
    if (digest, size) != (entry.sha256, entry.size):
        raise ChecksumError(
            f"{entry.path} of generation {generation} fails its checksum ({size} bytes, sha256 {digest[:12]}..., "
            f"expected {entry.size} bytes, {entry.sha256[:12]}...).",
            "The copy is discarded and pulled again; if it persists, publish the generation again.",
        )


def _blocks(handle: BinaryIO) -> Iterator[bytes]:
    while block := handle.read(READ_BLOCK):
        yield block
