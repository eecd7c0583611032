"""Document paths of remote pages: each URL of an llms.txt library gets its own markdown file name.

A path is derived from the URL (relative to the llms.txt folder on the same site, else
host/path), but the derivation is lossy: ``guide.html`` and ``guide.md`` both read as
``guide.md``, ``a b`` and ``a-b`` as ``a-b``. Paths are therefore given for a library's
URLs together: where several would share one (compared case-insensitively, as a macOS
checkout would), the URL that spells the path exactly keeps it, else the first URL in sorted
order, and every other one gets a short hash of its URL, so no page overwrites another. A path
that needs a folder where another page is a file (``guide.md`` and ``guide.md/install.md``), or the
reverse, is numbered (``guide.md-2/install.md``): :func:`distinct_paths`, which crawled sites use too.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar
from urllib.parse import urlsplit

LLMS_PAGE = "llms.md"  # the llms.txt itself, always at the library's root
# A file system takes at most 255 bytes a name: one over-long name failed the write of a whole library. 200 leaves
# room for the hash page_paths adds to tell two pages apart.
MAX_NAME_BYTES = 200
_KEEP_SUFFIXES = (".md", ".markdown", ".mdx")
_REPLACE_SUFFIXES = (".html", ".htm", ".txt")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
Key = TypeVar("Key", bound=Hashable)


def page_paths(urls: Iterable[str], llms_url: str) -> dict[str, str]:
    """URL -> document path for every URL of a library (the llms.txt's own URL -> ``llms.md``), no two alike."""
    claims: dict[str, list[str]] = {LLMS_PAGE: [llms_url]}
    for url in sorted(set(urls) - {llms_url}):
        claims.setdefault(page_path(url, llms_url).casefold(), []).append(url)
    paths: dict[str, str] = {llms_url: LLMS_PAGE}
    for claimants in claims.values():
        if claimants[0] == llms_url:
            keeper, others = llms_url, claimants[1:]
        else:
            keeper = next((url for url in claimants if _spelled_exactly(url, llms_url)), claimants[0])
            others = [url for url in claimants if url != keeper]
            paths[keeper] = page_path(keeper, llms_url)
        for url in others:
            paths[url] = _suffixed(page_path(url, llms_url), url)
    return distinct_paths(paths)


def page_path(url: str, llms_url: str) -> str:
    """The path the URL reads as on its own: relative to the llms.txt folder on the same site, else host/path.

    Always a markdown file name (``.html``/``.txt`` become ``.md``; a folder URL becomes ``index.md``);
    a query string adds a short hash of it. Two URLs can read as one path: :func:`page_paths` settles that.
    """
    if url == llms_url:
        return LLMS_PAGE
    parts, base = urlsplit(url), urlsplit(llms_url)
    folder = base.path.rsplit("/", 1)[0] + "/"
    if (parts.scheme, parts.netloc) == (base.scheme, base.netloc) and parts.path.startswith(folder):
        relative = parts.path[len(folder) :]
    else:
        relative = f"{parts.hostname or 'site'}{parts.path or '/'}"
    if not relative or relative.endswith("/"):
        relative += "index"
    segments = [_UNSAFE.sub("-", s).strip("-") or "_" for s in relative.split("/") if s]
    segments = ["_" if s in (".", "..") else s for s in segments]
    name = segments[-1]
    lower = name.lower()
    if lower.endswith(_REPLACE_SUFFIXES):
        name = name.rsplit(".", 1)[0] + ".md"
    elif not lower.endswith(_KEEP_SUFFIXES):
        name += ".md"
    if parts.query:
        name = _suffixed(name, parts.query)
    return "/".join(bounded_name(segment) for segment in [*segments[:-1], name])


def bounded_name(name: str) -> str:
    """``name`` (a folder's, or a file's with its suffix) in at most MAX_NAME_BYTES bytes of UTF-8: a longer one
    keeps its start and its suffix, a hash of the whole between them, so two long names stay two."""
    if len(name.encode()) <= MAX_NAME_BYTES:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or len(suffix) > 10:
        stem, dot, suffix = name, "", ""
    keep = MAX_NAME_BYTES - 9 - len(f"{dot}{suffix}".encode())
    return f"{stem.encode()[:keep].decode('utf-8', errors='ignore')}-{_hash8(name)}{dot}{suffix}"


def distinct_paths(wanted: Mapping[Key, str]) -> dict[Key, str]:
    """Each key's path, in order, none on another's path and none where another needs a folder, or the reverse.

    ``coll.html`` (a file) and ``coll.html/index.html`` (a file in a folder of that name) cannot both be
    written, nor ``Guide.html`` and ``guide.html`` on a file system that ignores case: the later one gets
    ``-2`` (``-3``...) on the name that clashes (``coll.html-2/index.html``, ``guide-2.html``).
    """
    files: set[str] = set()
    folders: set[str] = set()
    out: dict[Key, str] = {}
    for key, path in wanted.items():
        segments = path.split("/")
        for at in range(len(segments)):
            taken = files | folders if at == len(segments) - 1 else files
            name, n = segments[at], 1
            while "/".join(segments[: at + 1]).casefold() in taken:
                n += 1
                segments[at] = _numbered(name, n, is_file=at == len(segments) - 1)
        out[key] = "/".join(segments)
        files.add(out[key].casefold())
        folders.update("/".join(segments[:at]).casefold() for at in range(1, len(segments)))
    return out


def _numbered(name: str, n: int, *, is_file: bool) -> str:
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{n}.{suffix}" if is_file and dot and stem else f"{name}-{n}"


def _spelled_exactly(url: str, llms_url: str) -> bool:
    """Whether the URL ends in the very file name its path has (nothing replaced, added or hashed)."""
    parts = urlsplit(url)
    return not parts.query and parts.path.rsplit("/", 1)[-1] == page_path(url, llms_url).rsplit("/", 1)[-1]


def _suffixed(path: str, text: str) -> str:
    stem, _, suffix = path.rpartition(".")
    return f"{stem}-{_hash8(text)}.{suffix}"


def _hash8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]
