"""FastAPI-style code includes, ``{* ../../docs_src/app/main.py ln[3:9] hl[4] *}``, as the code they show.

The site renders such a line as a code block read from a file; left as written, the code it shows
is neither searchable nor in what ``get_doc`` returns. A page is untrusted, so an include is read
only when it names a regular file inside the docs folder (symlinks resolved first, so none leads
out), within a budget per page (``MAX_INCLUDES`` files, ``MAX_INCLUDED_BYTES`` in all); the code is
only read, never run. The path is tried from the page's folder, then from each folder above it up
to the docs root (FastAPI writes them relative to its docs folder, whatever the page's depth). An
include that is not read stays as written (search drops the line).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath

from docs_mcp.indexer.corpus.formats.rst_includes import SUFFIX_LANGUAGES

MAX_INCLUDES = 100
MAX_INCLUDED_BYTES = 2_000_000
_INCLUDE = re.compile(r"^([ \t]*)\{\*[ \t]+(\S+)((?:[ \t]+\w+\[[^\]\n]*\])*)[ \t]*\*\}[ \t]*$")
_LINES = re.compile(r"\bln\[([^\]]*)\]")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")


def expand_code_includes(markdown: str, page: Path, root: Path) -> str:
    """``markdown`` (the page at ``page`` under the docs ``root``) with each readable include replaced by its code."""
    if "{*" not in markdown:
        return markdown
    budget = [MAX_INCLUDES, MAX_INCLUDED_BYTES]
    out, fence = [], ""
    for line in markdown.split("\n"):
        opens = _FENCE.match(line)
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
        elif opens:
            fence = opens.group(1)
        elif m := _INCLUDE.match(line):
            code = _read(m.group(2), page, root.resolve(), budget)
            if code is not None:
                line = _fenced(_selected(code, m.group(3)), m.group(2), m.group(1))
        out.append(line)
    return "\n".join(out)


def _read(target: str, page: Path, root: Path, budget: list[int]) -> str | None:
    if budget[0] <= 0 or target.startswith("/"):
        return None
    folder = page.resolve().parent
    while folder.is_relative_to(root):
        path = (folder / target).resolve()
        if path.is_relative_to(root) and (text := _regular_file(path, budget)) is not None:
            return text
        if folder == root:
            break
        folder = folder.parent
    return None


def _regular_file(path: Path, budget: list[int]) -> str | None:
    try:
        status = os.stat(path)  # never opens it: opening a FIFO waits for a writer
        if not stat.S_ISREG(status.st_mode) or status.st_size > budget[1]:
            return None
        budget[0] -= 1
        budget[1] -= status.st_size
        return path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except (OSError, UnicodeDecodeError):
        return None


def _selected(code: str, options: str) -> str:
    """The lines ``ln[3:9,12]`` of ``code`` (1-based, inclusive), all of it without ``ln``."""
    spec = _LINES.search(options)
    lines = code.rstrip("\n").split("\n")
    if not spec:
        return "\n".join(lines)
    keep: list[str] = []
    for part in spec.group(1).split(","):
        first, _, last = part.strip().partition(":")
        if not (first.isdigit() and (last.isdigit() or not last)):
            return "\n".join(lines)
        keep.extend(lines[int(first) - 1 : int(last or first)])
    return "\n".join(keep)


def _fenced(code: str, target: str, indent: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * (longest + 1)
    language = SUFFIX_LANGUAGES.get(PurePosixPath(target).suffix.lower(), "")
    return "\n".join(indent + line if line else line for line in (fence + language, *code.split("\n"), fence))
