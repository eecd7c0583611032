"""A repository archive (a tar.gz as GitHub's API serves it) unpacked safely: its documentation files only.

Only regular files are written, under the destination folder: links, devices, absolute paths, ``..``,
backslashes and NUL characters never are (``member_path``, shared with release archives). The archive's
single top folder (``owner-repo-<sha>/``) is dropped. What is kept
is every page of a documentation format (markdown, MDX, reStructuredText, HTML, notebooks) and the
files that steer indexing (``.gitignore``, ``.docs-mcp.json`` manifests, ``metadata.json``); the
folder walk then skips dependencies and build outputs as for any folder. Sizes are bounded: one
file, the total unpacked, the number of files, and the archive itself (archive_bounds: its members,
its expanded bytes, its compression: gzip or plain tar, read from its first bytes). A member whose
path is a file and a folder at once (``docs/a.md`` and ``docs/a.md/b.md``) is skipped, with a warning.
"""

from __future__ import annotations

import logging
import lzma
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from docs_mcp.indexer.corpus.formats import is_page
from docs_mcp.indexer.sources.web.archive_bounds import (
    GZIP,
    TAR,
    ArchiveError,
    checked_compression,
    open_tar,
    tar_members,
)

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_TOTAL_BYTES = 500 * 1024 * 1024
MAX_FILES = 50_000
MAX_NAME_BYTES = 255  # a file or folder name, as Linux and macOS file systems take it
MAX_PATH_BYTES = 3072  # a member's whole path: the destination folder's comes before it, within PATH_MAX (4096)
_STEERING = frozenset({".gitignore", ".docs-mcp.json", "metadata.json"})


@dataclass(frozen=True)
class Unpacked:
    """What unpacking kept and left out."""

    files: int
    bytes: int
    skipped: int  # members that are not documentation, or are links, devices, too large or unsafe


def unpack_docs(archive: IO[bytes], destination: Path, name: str = "the archive") -> Unpacked:
    """Write the documentation files of the tar(.gz) ``archive`` under ``destination`` (``name``: the archive, in warnings).

    Raises:
        ArchiveError: not a tar archive, or larger than the limits allow.
    """
    data = archive.read()
    files = total = skipped = 0
    try:
        with open_tar(data, checked_compression(data, (GZIP, TAR))) as tar:
            for member in tar_members(tar, len(data)):
                relative = member_path(member.name)
                page = member.isfile() and relative is not None and _wanted(relative)
                if page and member.size > MAX_FILE_BYTES:
                    logger.warning(
                        "%s: %s skipped: larger than the %d MiB a file may be", name, relative, MAX_FILE_BYTES // 2**20
                    )
                    page = False
                source = tar.extractfile(member) if page else None
                if source is None or relative is None:  # relative is set when page is
                    skipped += 1
                    continue
                if files + 1 > MAX_FILES or total + member.size > MAX_TOTAL_BYTES:
                    raise ArchiveError(f"holds more than {MAX_FILES:,} documentation files or {MAX_TOTAL_BYTES // 2**20} MiB of them",
                                       "Clone the repository and index its docs folder (docs-mcp index PATH) instead.")  # fmt: skip
                with source:
                    body = source.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
                if not write_member(destination, relative, body, name):
                    skipped += 1
                    continue
                files += 1
                total += member.size
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as error:
        raise ArchiveError(
            f"is not a readable tar archive ({type(error).__name__}: {error})", "Try again; report it if it persists."
        ) from None
    return Unpacked(files, total, skipped)


def write_member(destination: Path, relative: PurePosixPath, body: bytes, archive: str) -> bool:
    """Write one member's ``body`` at ``relative`` below ``destination``; False (and a warning) when its path is a file
    and a folder at once in the archive (``a.md`` and ``a.md/b.md``): that is the archive's doing, not a failure to retry."""
    target = destination.joinpath(*relative.parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        logger.warning("%s: %s skipped: the archive has a file and a folder of that path", archive, relative)
        return False
    return True


def member_path(name: str, top: str | None = None) -> PurePosixPath | None:
    """Where an archive member goes below the destination, its top folder dropped; None where it must not or cannot
    go: an absolute path, a ``..``, a backslash, a drive, nothing below the top, a NUL or a name longer than a file
    system takes (open() refuses those: one such member failed the whole archive).

    ``top``: the top folder every member is under ('' when there is none); None drops the first part, whatever it is.
    """
    if "\\" in name or "\x00" in name:
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        return None
    parts = [part for part in path.parts if part != "."]
    if any(len(part.encode()) > MAX_NAME_BYTES for part in parts) or len(name.encode()) > MAX_PATH_BYTES:
        return None
    if top is None or top:
        if not parts or (top is not None and parts[0] != top):
            return None
        parts = parts[1:]
    return PurePosixPath(*parts) if parts else None


def _wanted(relative: PurePosixPath) -> bool:
    return is_page(relative.name) or relative.name in _STEERING
