"""The bounds every archive docs-mcp opens is held to (repository tarballs, sdists, wheels, npm tarballs), checked
before the work they bound is done.

- Compression: read from the archive's first bytes, never guessed ("any"): it must be one the archive is declared
  as (a release's file name: ``.tar.gz``, ``.zip``...; a repository archive: gzip or plain tar). A bzip2 file named
  ``.tar.gz`` is refused unopened.
- Members: at most MAX_MEMBERS (listing a million empty members cost minutes and half a gigabyte).
- Expanded bytes: at most MAX_EXPANDED_BYTES, and at most MAX_RATIO times the archive's own size (any archive may
  expand to RATIO_FLOOR_BYTES: a small one pads and repeats more than a large one). A tar member's
  declared size is checked when its header is read, before its data is decompressed (skipping it decompresses it
  too); a zip's declared sizes bound what reading its members may yield, and are checked before any is read.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
from collections.abc import Callable, Iterator
from typing import IO

MAX_MEMBERS = 100_000  # the largest real sdists and repositories hold tens of thousands of files
MAX_EXPANDED_BYTES = 2 * 1024**3
MAX_RATIO = 200  # text tars gzip 4-20 to 1; a run of zeros, 1,000 to 1 (bzip2: millions)
RATIO_FLOOR_BYTES = 32 * 1024**2  # what any archive may expand to, whatever its ratio (a small one pads and repeats)

GZIP, BZIP2, XZ, ZIP, TAR = "gzip", "bzip2", "xz", "zip", "tar"
_MAGIC = ((b"\x1f\x8b", GZIP), (b"BZh", BZIP2), (b"\xfd7zXZ\x00", XZ), (b"PK\x03\x04", ZIP), (b"PK\x05\x06", ZIP))
_DECLARED = ((".tar.gz", GZIP), (".tgz", GZIP), (".tar.bz2", BZIP2), (".tbz2", BZIP2), (".tar.xz", XZ), (".zip", ZIP),
             (".whl", ZIP), (".tar", TAR))  # fmt: skip
_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], io.BufferedIOBase]] = {
    GZIP: lambda raw: gzip.GzipFile(fileobj=raw, mode="rb"),
    BZIP2: bz2.BZ2File,
    XZ: lzma.LZMAFile,
}
_ZIP_ENTRY = b"PK\x01\x02"  # a zip's central directory entry


class ArchiveError(ValueError):
    """The archive cannot be unpacked: ``str`` says why as a phrase ("has more than ... members"), ``hint`` what to do."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.hint = hint


def compression_of(data: bytes) -> str:
    """What the archive's first bytes say it is ('' : no archive docs-mcp reads)."""
    kind = next((kind for magic, kind in _MAGIC if data.startswith(magic)), "")
    return kind or (TAR if data[257:262] == b"ustar" else "")


def declared_compression(name: str) -> str:
    """What an archive's file name (or URL) declares it is ('' : no archive docs-mcp reads)."""
    lower = name.split("?", 1)[0].split("#", 1)[0].lower()
    return next((kind for suffix, kind in _DECLARED if lower.endswith(suffix)), "")


def checked_compression(data: bytes, declared: tuple[str, ...]) -> str:
    """The archive's compression, which must be one of ``declared``.

    Raises:
        ArchiveError: the bytes are no archive, or one compressed otherwise than declared.
    """
    actual = compression_of(data)
    if not declared:
        names = ", ".join(suffix for suffix, _kind in _DECLARED)
        raise ArchiveError(
            f"is named as no archive docs-mcp reads ({names}): it was not opened", "Pick another version."
        )
    expected = " or ".join(declared)
    if not actual:
        raise ArchiveError(f"is not an archive (declared {expected}; its first bytes are no tar, gzip, bzip2, xz or zip)",
                           "The server answered something else than the archive (an error page?): try again, or another version; report it if it persists.")  # fmt: skip
    if actual not in declared:
        raise ArchiveError(f"is declared {expected} but its bytes are {actual}: it was not opened",
                           "The server (registry, mirror or GitHub) serves a mislabelled file: pick another version or source.")  # fmt: skip
    return actual


def expanded_limit(archive_bytes: int) -> int:
    """How many bytes an archive of ``archive_bytes`` may expand to."""
    return min(MAX_EXPANDED_BYTES, max(MAX_RATIO * archive_bytes, RATIO_FLOOR_BYTES))


def too_large(archive_bytes: int) -> ArchiveError:
    """The refusal of an archive of ``archive_bytes`` that expands past its limit."""
    return ArchiveError(
        f"expands to more than {_size(expanded_limit(archive_bytes))} (the limit for an archive of {_size(archive_bytes)}:"
        f" {MAX_RATIO} times its size, at least {_size(RATIO_FLOOR_BYTES)}, at most {_size(MAX_EXPANDED_BYTES)}): it was not unpacked",
        "An archive bomb, or one that ships large data: index its documentation site, or a checkout of its docs folder (docs-mcp index PATH), instead.",
    )


def too_many(what: str = "members") -> ArchiveError:
    return ArchiveError(f"has more than {MAX_MEMBERS:,} {what} (the limit for an archive): it was not unpacked",
                        "Index its documentation site, or a checkout of its docs folder (docs-mcp index PATH), instead.")  # fmt: skip


def open_tar(data: bytes, compression: str) -> tarfile.TarFile:
    """The tar in ``data``, decompressed as ``compression`` (never guessed) through a stream that yields at most the
    archive's expanded limit: no header, pax record or skipped member can make it decompress more.

    Raises:
        ArchiveError: over the limit already in its first member.
        tarfile.TarError, EOFError, OSError: not a readable tar.
    """
    compressed = io.BytesIO(data)
    stream = _DECOMPRESSORS[compression](compressed) if compression in _DECOMPRESSORS else compressed
    return tarfile.open(fileobj=_Expanding(stream, len(data)), mode="r:")


def tar_members(tar: tarfile.TarFile, archive_bytes: int) -> Iterator[tarfile.TarInfo]:
    """The tar's members, each checked against the bounds before the next is read (which reads past its data).

    Raises:
        ArchiveError: more members, or more expanded bytes, than an archive of ``archive_bytes`` may have.
    """
    limit = expanded_limit(archive_bytes)
    count = 0
    while (member := tar.next()) is not None:
        count += 1
        if count > MAX_MEMBERS:
            raise too_many()
        if member.offset_data + member.size > limit:
            raise too_large(archive_bytes)
        # tarfile keeps every header it read: the walk needs none of them again (typeshed omits TarFile.members)
        tar.members.clear()  # type: ignore[attr-defined]
        yield member


class _Expanding(io.RawIOBase):
    """A decompressed stream that refuses to go past the expanded limit of an archive of ``archive_bytes``."""

    def __init__(self, stream: io.BufferedIOBase, archive_bytes: int) -> None:
        super().__init__()
        self._stream, self._archive_bytes, self._limit = stream, archive_bytes, expanded_limit(archive_bytes)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._stream.tell()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._stream.tell()
        elif whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a tar is read forwards")
        if offset > self._limit:  # skipping a member decompresses it: refused before, not after
            raise too_large(self._archive_bytes)
        return self._stream.seek(offset)

    def read(self, size: int | None = -1) -> bytes:
        room = self._limit - self._stream.tell()
        body = self._stream.read(room + 1 if size is None or size < 0 else min(size, room + 1))
        if len(body) > room:
            raise too_large(self._archive_bytes)
        return body

    def readinto(self, buffer) -> int:
        body = self.read(len(buffer))
        buffer[: len(body)] = body
        return len(body)


def check_zip_members(data: bytes) -> None:
    """A zip's member count: its central directory's entries, counted before they are parsed.

    Raises:
        ArchiveError: more than MAX_MEMBERS.
    """
    if data.count(_ZIP_ENTRY) > MAX_MEMBERS:
        raise too_many()


def check_expanded(archive_bytes: int, expanded: int) -> None:
    """The expanded size an archive's index declares (a zip's: what reading its members can yield at most).

    Raises:
        ArchiveError: over the limit of an archive of ``archive_bytes``.
    """
    if expanded > expanded_limit(archive_bytes):
        raise too_large(archive_bytes)


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"
