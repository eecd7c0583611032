"""A repository archive (a tar.gz as GitHub's API serves it) unpacked safely: its documentation files only.

Only regular files are written, under the destination folder: links, devices, absolute paths, ``..``,
backslashes and NUL characters never are (``member_path``, shared with release archives). The archive's
single top folder (``owner-repo-<sha>/``) is dropped. What is kept
is every page of a documentation format (markdown, MDX, reStructuredText, HTML, notebooks) and the
files that steer indexing (``.gitignore``, ``.docs-mcp.json`` manifests, ``metadata.json``); the
folder walk then skips dependencies and build outputs as for any folder. Sizes are bounded: one
file, the total unpacked, and the number of files.
"""

from __future__ import annotations

import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from docs_mcp.indexer.formats import is_page

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_TOTAL_BYTES = 500 * 1024 * 1024
MAX_FILES = 50_000
MAX_NAME_BYTES = 255  # a file or folder name, as Linux and macOS file systems take it
MAX_PATH_BYTES = 3072  # a member's whole path: the destination folder's comes before it, within PATH_MAX (4096)
_STEERING = frozenset({".gitignore", ".docs-mcp.json", "metadata.json"})


class ArchiveError(ValueError):
    """The archive cannot be unpacked (the message says why)."""


@dataclass(frozen=True)
class Unpacked:
    """What unpacking kept and left out."""

    files: int
    bytes: int
    skipped: int  # members that are not documentation, or are links, devices, too large or unsafe


def unpack_docs(archive: IO[bytes], destination: Path) -> Unpacked:
    """Write the documentation files of the tar(.gz) ``archive`` under ``destination``.

    Raises:
        ArchiveError: not a tar archive, or larger than the limits allow.
    """
    files = total = skipped = 0
    try:
        with tarfile.open(fileobj=archive, mode="r:*") as tar:
            for member in tar:
                relative = member_path(member.name)
                keep = member.isfile() and relative is not None and _wanted(relative) and member.size <= MAX_FILE_BYTES
                if not keep:
                    skipped += 1
                    continue
                files += 1
                total += member.size
                if files > MAX_FILES or total > MAX_TOTAL_BYTES:
                    raise ArchiveError(f"the archive holds more than {MAX_FILES:,} documentation files or {MAX_TOTAL_BYTES // 2**20} MiB of them")
                source = tar.extractfile(member)
                if source is None:
                    skipped += 1
                    continue
                target = destination.joinpath(*relative.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with source, open(target, "wb") as out:
                    out.write(source.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES])
    except (tarfile.TarError, EOFError, OSError) as error:
        raise ArchiveError(f"not a readable tar archive ({type(error).__name__}: {error})") from None
    return Unpacked(files, total, skipped)


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
