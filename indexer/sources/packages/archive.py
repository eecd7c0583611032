"""A release archive (sdist .tar.gz/.zip, wheel, npm .tgz) unpacked safely: its documentation files only.

Only regular files are written, under the destination folder: links, devices, absolute paths,
``..`` and backslashes never are. The archive's single top folder (``tomli-2.0.1/``,
``package/``) is dropped. What is kept is the package's documentation: the README, changelog
and licence-free prose at the root, and every page of a documentation folder (``docs/``,
``doc/``, ``documentation/``), with the code and configuration files beside those pages that a page may
include (``literalinclude``, read as text by the docs' own include rules, never run; discovery reads only
pages); tests, the package's own code and dependencies never. The metadata file
(``PKG-INFO``, a wheel's ``METADATA``) is returned, not written: it holds the long description
at exactly this version. Sizes are bounded: one file, the total written, and the archive itself
(sources/archive_bounds: its members, its expanded bytes, and its compression, which must be the one
its file name declares: ``.tar.gz``/``.tgz`` gzip, ``.zip``/``.whl`` zip, ``.tar.bz2`` bzip2, ``.tar.xz`` xz).
"""

from __future__ import annotations

import io
import logging
import lzma
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath

from docs_mcp.indexer.errors import PackageFetchError
from docs_mcp.indexer.sources.github_archive import member_path, write_member
from docs_mcp.indexer.sources.web.archive_bounds import (
    ZIP,
    ArchiveError,
    check_expanded,
    check_zip_members,
    checked_compression,
    declared_compression,
    open_tar,
    tar_members,
)

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_FILES = 2_000
PAGE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm", ".ipynb")
DOC_FOLDERS = ("docs", "doc", "documentation")
# Files a docs folder's pages show by including them (Sphinx's literalinclude): the site shows their code, so
# search should find it (indexer/corpus/formats/rst_includes.py reads them inside the docs root, bounded).
INCLUDED_SUFFIXES = (
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".sh", ".bash",
    ".c", ".h", ".cpp", ".hpp", ".rs", ".go", ".java", ".rb", ".css", ".sql", ".xml",
)  # fmt: skip
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


def unpack_docs(data: bytes, destination: Path, name: str) -> UnpackedRelease:
    """Write the documentation files of the archive ``data`` (tar.gz, zip...: as its file name ``name`` declares)
    under ``destination``.

    Raises:
        PackageFetchError: not an archive of the declared kind, or more members or bytes than the limits allow.
    """
    file_name = name.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or name
    try:
        with _opened(data, file_name) as members:
            return _unpack(members, destination, file_name)
    except ArchiveError as error:
        raise PackageFetchError(f"{file_name} {error}.", error.hint) from None


def _unpack(members: list[_Member], destination: Path, name: str) -> UnpackedRelease:
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
        if not wanted(relative):
            skipped += 1
            continue
        body = member.read() if member.size <= MAX_FILE_BYTES else b""
        if member.size > MAX_FILE_BYTES or len(body) > MAX_FILE_BYTES:
            logger.warning(
                "%s: %s skipped: larger than the %d MiB a file may be", name, relative, MAX_FILE_BYTES // 2**20
            )
            skipped += 1
            continue
        total += len(body)
        if len(written) >= MAX_FILES or total > MAX_TOTAL_BYTES:
            raise ArchiveError(f"holds more than {MAX_FILES:,} documentation files or {MAX_TOTAL_BYTES // 2**20} MiB of them",
                               "Index its documentation site or repository instead.")  # fmt: skip
        if not write_member(destination, relative, body, name):
            total -= len(body)
            skipped += 1
            continue
        written.append(relative.as_posix())
    return UnpackedRelease(tuple(written), total, skipped, metadata)


def wanted(relative: PurePosixPath) -> bool:
    """Whether an archive path (below its top folder) is documentation: a root README/changelog, or a page of a docs
    folder or a file such a page may include."""
    parts = relative.parts
    if any(part.startswith(".") or part.lower() in _SKIP_FOLDERS for part in parts[:-1]):
        return False
    suffix = relative.suffix.lower()
    if len(parts) == 1:
        return relative.stem.lower().split(".")[0] in ROOT_PAGES and (suffix in PAGE_SUFFIXES or not suffix)
    kept = suffix in PAGE_SUFFIXES or included_by_pages(relative.name)
    return parts[0].lower() in DOC_FOLDERS and kept and not relative.name.startswith(".")


def included_by_pages(path: str) -> bool:
    """Whether an unpacked file is one a docs page may include (code, configuration), not a page itself."""
    return PurePosixPath(path).suffix.lower() in INCLUDED_SUFFIXES


@contextmanager
def _opened(data: bytes, name: str) -> Iterator[list[_Member]]:
    """The archive's members, readable while the block runs.

    Raises:
        ArchiveError: not an archive of the kind ``name`` declares, unreadable, or over a bound.
    """
    declared = declared_compression(name)
    compression = checked_compression(data, (declared,) if declared else ())
    try:
        if compression == ZIP:
            check_zip_members(data)
            archive = zipfile.ZipFile(io.BytesIO(data))
            infos = archive.infolist()
            check_expanded(len(data), sum(i.file_size for i in infos))
            with archive:
                yield [_Member(i.filename, i.file_size, _zip_regular(i), partial(_read_zip, archive, i)) for i in infos]
            return
        with open_tar(data, compression) as tar:
            members = list(tar_members(tar, len(data)))
            yield [_Member(m.name, m.size, m.isfile(), partial(_read_tar, tar, m)) for m in members]
    except ArchiveError:
        raise
    # zipfile's own besides BadZipFile: an encrypted member (RuntimeError), an unknown method (NotImplementedError),
    # a name that is no UTF-8 though flagged so, an offset before the start (ValueError)
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        EOFError,
        OSError,
        zlib.error,
        lzma.LZMAError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as error:
        raise ArchiveError(
            f"cannot be read ({type(error).__name__}: {str(error)[:200]})", "Pick another version."
        ) from None


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
