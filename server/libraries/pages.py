"""Whole documents for read_page: path checks against the index, page assembly, line pagination.

A path is first checked for shape (no ``..``, no absolute path, no URL, no backslash,
no percent-encoding, no control characters), then looked up among the indexed
documents: nothing outside the index is ever read, and no file system is touched at all.
A page is its chunks joined in file order, which is the document as indexed (front
matter removed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from docs_mcp.indexer.index_store import IndexStore
from docs_mcp.indexer.libraries.library import Library
from docs_mcp.server.errors import quoted
from docs_mcp.server.libraries.errors import PageNotFoundError, PathNotAllowedError
from docs_mcp.server.libraries.fuzzy import name_score
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.search.tokens import count_tokens

CHUNK_SEPARATOR = "\n\n"
SUGGESTIONS = 3
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f\\]|%[0-9a-fA-F]{2}|^[A-Za-z][A-Za-z0-9+.-]*:|^[/~]")
_NEXT = "Use get_library_info to list a library's documents, or search_docs to find one; pass a path exactly as they show it."


def check_path(path: str) -> str:
    """``path`` if it has the shape of an indexed document path.

    Raises:
        PathNotAllowedError: it is absolute, a URL, percent-encoded, or walks with ``.`` / ``..``.
    """
    segments = path.split("/")
    if _FORBIDDEN.search(path) or any(s in ("", ".", "..") for s in segments):
        raise PathNotAllowedError(
            f"Path {quoted(path)} is not allowed: read_page only reads indexed documents, by their relative path.",
            _NEXT,
        )
    return path


def locate(catalog: LibraryCatalog, indexed: Iterable[str], path: str, library: Library | None) -> str:
    """The stored path of the document ``path`` names, within ``library`` when one is given.

    Raises:
        PathNotAllowedError: see :func:`check_path`.
        PageNotFoundError: no indexed document has that path; the suggestion names close ones.
    """
    check_path(path)
    known = set(indexed)
    if library is not None:
        candidates = [path if path.startswith(library.mount) else library.mount + path]
    else:
        candidates = [path] + [lib.mount + path for lib in catalog.libraries.values() if lib.mount]
    found = [c for c in dict.fromkeys(candidates) if c in known]
    # The path as given wins; otherwise it must name a document of exactly one library.
    if found and (found[0] == path or len(found) == 1):
        return found[0]
    where = f" in library '{library.library_id}'" if library else ""
    if found:
        raise PageNotFoundError(
            f"Path {quoted(path)} names a document in several libraries.",
            f"Pass library_id, or one of: {', '.join(found)}.",
        )
    pool = [p for p in known if library is None or p.startswith(library.mount)]
    close = sorted(pool, key=lambda p: (-name_score(path, p), p))[:SUGGESTIONS]
    guess = f"Did you mean {', '.join(repr(c) for c in close)}? " if close else ""
    raise PageNotFoundError(f"No indexed document {quoted(path)}{where}.", guess + _NEXT)


def read_lines(store: IndexStore, filepath: str, offset: int, max_lines: int) -> tuple[str, int, int]:
    """Lines ``offset`` .. ``offset + max_lines`` of the stored document: (content, total lines, lines returned).

    An offset at or past the end gives empty content.

    Raises:
        IndexFormatError: the index cannot be read.
    """
    return window(
        CHUNK_SEPARATOR.join(content.strip("\n") for content in store.page_contents(filepath)), offset, max_lines
    )


def window(text: str, offset: int, max_lines: int) -> tuple[str, int, int]:
    """Lines ``offset`` .. ``offset + max_lines`` of ``text``: (content, total lines, lines returned)."""
    lines = text.split("\n")
    shown = lines[offset : offset + max_lines]
    return "\n".join(shown), len(lines), len(shown)


def line_fields(content: str, total: int, offset: int, returned: int) -> dict[str, Any]:
    """The fields of a read_page answer that place its lines in the page, with where to read on (and what they cost)."""
    has_more = offset + returned < total
    return {
        "content": content,
        "tokens": count_tokens(content),
        "total_lines": total,
        "offset": offset,
        "lines_returned": returned,
        "has_more": has_more,
        "next_offset": offset + returned if has_more else None,
    }
