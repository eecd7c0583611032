"""A release archive (sdist .tar.gz/.zip, wheel, npm .tgz) unpacked safely: its documentation files only.

Only regular files are written, under the destination folder: links, devices, absolute paths,
``..`` and backslashes never are. The archive's single top folder (``tomli-2.0.1/``,
``package/``) is dropped. What is kept is the package's documentation: the README, changelog
and licence-free prose at the root, and every page of a documentation folder (``docs/``,
``doc/``, ``documentation/``); tests, examples' code and dependencies never. The metadata file
(``PKG-INFO``, a wheel's ``METADATA``) is returned, not written: it holds the long description
at exactly this version. Sizes are bounded: one file, the total written, the members looked at.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator

from docs_mcp.indexer.packages.errors import PackageFetchError
from docs_mcp.indexer.sources.archive import member_path

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_FILES = 2_000
MAX_MEMBERS = 100_000
PAGE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm", ".ipynb")
DOC_FOLDERS = ("docs", "doc", "documentation")
ROOT_PAGES = ("readme", "changelog", "changes", "history", "news", "migration", "upgrading", "upgrade")
METADATA_NAMES = ("PKG-INFO", "METADATA")
_SKIP_FOLDERS = {"node_modules", "tests", "test", "__pycache__", "_build", "build", "dist", "site-packages"}


@dataclass(frozen=True)
class UnpackedRelease:
    """What unpacking wrote (paths relative to the destination), the metadata file's text, and what it left out."""

    files: tuple[str, ...]
    bytes: int
    skipped: int  # members that are not documentation, or are links, devices, too large or unsafe
    metadata: str  # PKG-INFO / METADATA, '' when the archive has none


@dataclass(frozen=True)
class _Member:
    name: str
    size: int
    regular: bool
    read: Callable[[], bytes]  # reads at most MAX_FILE_BYTES + 1


def unpack_docs(data: bytes, destination: Path) -> UnpackedRelease:
    """Write the documentation files of the archive ``data`` (tar, tar.gz or zip) under ``destination``.

    Raises:
        PackageFetchError: not an archive, or more members or bytes than the limits allow.
    """
    with _opened(data) as members:
        return _unpack(members, destination)


def _unpack(members: list[_Member], destination: Path) -> UnpackedRelease:
    written: list[str] = []
    total = skipped = 0
    metadata = ""
    top = _single_top(members)
    for member in members:
        relative = member_path(member.name, top)
        if relative is None or not member.regular:
            skipped += 1
            continue
        if relative.name in METADATA_NAMES and _is_metadata(relative):
            if not metadata or len(relative.parts) == 1:
                metadata = member.read()[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
            continue
        if not wanted(relative) or member.size > MAX_FILE_BYTES:
            skipped += 1
            continue
        body = member.read()
        if len(body) > MAX_FILE_BYTES:
            skipped += 1
            continue
        total += len(body)
        if len(written) >= MAX_FILES or total > MAX_TOTAL_BYTES:
            raise PackageFetchError(
                f"The archive holds more than {MAX_FILES:,} documentation files or {MAX_TOTAL_BYTES // 2**20} MiB of them.",
                "Index its documentation site or repository instead.",
            )
        target = destination.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        written.append(relative.as_posix())
    return UnpackedRelease(tuple(written), total, skipped, metadata)


def wanted(relative: PurePosixPath) -> bool:
    """Whether an archive path (below its top folder) is documentation: a root README/changelog, or a page of a docs folder."""
    parts = relative.parts
    if any(part.startswith(".") or part.lower() in _SKIP_FOLDERS for part in parts[:-1]):
        return False
    suffix = relative.suffix.lower()
    if len(parts) == 1:
        return relative.stem.lower().split(".")[0] in ROOT_PAGES and (suffix in PAGE_SUFFIXES or not suffix)
    return parts[0].lower() in DOC_FOLDERS and suffix in PAGE_SUFFIXES and not relative.name.startswith(".")


@contextmanager
def _opened(data: bytes) -> Iterator[list[_Member]]:
    """The archive's members (at most MAX_MEMBERS), readable while the block runs."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            infos = archive.infolist()
        except (zipfile.BadZipFile, OSError) as error:
            raise PackageFetchError(f"The archive cannot be read ({error}).", "Pick another version.") from None
        _check_count(len(infos))
        with archive:
            yield [_Member(i.filename, i.file_size, _zip_regular(i), lambda i=i: _read_zip(archive, i)) for i in infos]
        return
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, EOFError, OSError) as error:
        raise PackageFetchError(f"The release file is not a tar or zip archive ({type(error).__name__}).", "Pick another version.") from None
    with tar:
        infos = []
        try:
            for info in tar:
                infos.append(info)
                _check_count(len(infos))
        except (tarfile.TarError, EOFError, OSError) as error:
            raise PackageFetchError(f"The archive cannot be read ({type(error).__name__}: {error}).", "Pick another version.") from None
        yield [_Member(i.name, i.size, i.isfile(), lambda i=i: _read_tar(tar, i)) for i in infos]


def _check_count(count: int) -> None:
    if count > MAX_MEMBERS:
        raise PackageFetchError(f"The archive has more than {MAX_MEMBERS:,} members.", "Index its documentation site or repository instead.")


def _zip_regular(info: zipfile.ZipInfo) -> bool:
    kind = stat.S_IFMT(info.external_attr >> 16)  # 0: a zip made without Unix modes
    return not info.is_dir() and kind in (0, stat.S_IFREG)


def _read_tar(tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    source = tar.extractfile(info)
    if source is None:
        return b""
    with source:
        return source.read(MAX_FILE_BYTES + 1)


def _read_zip(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with archive.open(info) as source:  # the declared size may lie: read a bounded amount
        return source.read(MAX_FILE_BYTES + 1)


def _single_top(members: list[_Member]) -> str:
    """The one top folder every member with a safe path is under ('' when there is none, as in a wheel)."""
    tops = {PurePosixPath(m.name).parts[0] for m in members if member_path(m.name, "") is not None}
    if len(tops) != 1:
        return ""
    (top,) = tops
    return top if any(len(PurePosixPath(m.name).parts) > 1 and member_path(m.name, "") for m in members) else ""


def _is_metadata(relative: PurePosixPath) -> bool:
    """PKG-INFO at the sdist's root (or in its egg-info), METADATA in a wheel's dist-info."""
    return len(relative.parts) == 1 or relative.parts[-2].endswith((".dist-info", ".egg-info"))
