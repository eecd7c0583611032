"""A marked block of text that `docs-mcp setup` owns inside a file the user owns (CLAUDE.md, AGENTS.md, config.toml).

The block starts and ends with a marker line naming the server (``--name``), in the file's comment
syntax: everything between them is ours, everything outside is the user's and never touched, and
each name has its own block.  A new block goes at the end of the file after one line break, so taking
it out again (block and that line break) gives back the original bytes; a block already there is
replaced where it stands.  In markdown, a marker line inside a fenced code block (a user quoting
one) or indented as code is text, not a marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_mcp.server.errors import ConfigFileError

_NOTE = "written by `docs-mcp setup`; edit outside this block"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")  # CommonMark: an opening fence, and its info string
_CLOSING = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")


@dataclass(frozen=True)
class CommentStyle:
    """How a file writes a line comment (``<!-- x -->`` in markdown, ``# x`` in TOML) and whether it has code fences."""

    start: str
    end: str = ""
    markdown: bool = False

    def line(self, text: str) -> str:
        return f"{self.start}{text}{self.end}"

    def begin(self, name: str) -> str:
        return self.line(f"BEGIN {name} ({_NOTE})")

    def finish(self, name: str) -> str:
        return self.line(f"END {name}")


MARKDOWN = CommentStyle("<!-- ", " -->", markdown=True)
TOML = CommentStyle("# ")


def block(body: str, style: CommentStyle, name: str) -> str:
    """``body`` between the begin and end markers of ``name``, ending with a line break."""
    return f"{style.begin(name)}\n{body.strip(chr(10))}\n{style.finish(name)}\n"


def find(text: str, style: CommentStyle, name: str, path: str = "") -> tuple[int, int] | None:
    """Where the block of ``name`` lies in ``text`` (start of its begin line, end after its end line), or None.

    Raises:
        ConfigFileError: a marker is there without its partner, or twice: the block was edited by hand.
    """
    begin = _marker_lines(text, style.begin(name), style)
    finish = _marker_lines(text, style.finish(name), style)
    if not begin and not finish:
        return None
    if len(begin) != 1 or len(finish) != 1 or finish[0] < begin[0]:
        raise ConfigFileError(
            path,
            f"has {len(begin)} begin and {len(finish)} end marker line(s) of the {name} block, out of order or unpaired",
            f"Keep exactly one '{style.begin(name)}' line and one '{style.finish(name)}' line after it (or delete both "
            "and the lines between), then run `docs-mcp setup` again.",
        )
    end = text.find("\n", finish[0])
    return begin[0], len(text) if end < 0 else end + 1


def put(text: str, body: str, style: CommentStyle, name: str, path: str = "") -> str:
    """``text`` with the block holding ``body``: replaced where it stands, else appended after one line break.

    Raises:
        ConfigFileError: the markers are unpaired, or a markdown file ends inside a code block (the
            block appended there would be code, and never found again).
    """
    new = block(body, style, name)
    span = find(text, style, name, path)
    if span is not None:
        return text[: span[0]] + new + text[span[1] :]
    if style.markdown and _scan(text)[1]:
        raise ConfigFileError(
            path, "ends inside a code block (a ``` or ~~~ fence that is never closed)",
            "Close the code block with a fence line at the end of the file, then run `docs-mcp setup` again; nothing was written.",
        )  # fmt: skip
    return text + "\n" + new


def take_out(text: str, style: CommentStyle, name: str, path: str = "") -> str:
    """``text`` without the block and the line break put() added before it: the inverse of put()."""
    span = find(text, style, name, path)
    if span is None:
        return text
    start, end = span
    if start and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


def _marker_lines(text: str, marker: str, style: CommentStyle) -> list[int]:
    """Offsets of the lines that read exactly ``marker``; in markdown, not in a code block (fenced, or indented 4)."""
    found, offset = [], 0
    lines = _scan(text)[0] if style.markdown else [(line, False) for line in text.splitlines(keepends=True)]
    for line, code in lines:
        if not code and line.strip() == marker and not (style.markdown and line.startswith(("    ", "\t"))):
            found.append(offset)
        offset += len(line)
    return found


def _scan(text: str) -> tuple[list[tuple[str, bool]], bool]:
    """Each markdown line (with its line break) and whether it is in a fenced code block (fences included);
    and whether a fence is still open at the end."""
    lines, fence = [], ""
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if fence:
            closing = _CLOSING.fullmatch(bare)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = ""
            lines.append((line, True))
            continue
        opening = _FENCE.fullmatch(bare)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
        lines.append((line, bool(fence)))
    return lines, bool(fence)
