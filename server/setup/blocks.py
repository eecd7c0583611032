"""A marked block of text that `docs-mcp setup` owns inside a file the user owns (CLAUDE.md, AGENTS.md, config.toml).

The block starts and ends with a marker line, in the file's comment syntax: everything between
them is ours, everything outside is the user's and never touched.  A new block goes at the end
of the file after one line break, so taking it out again (block and that line break) gives back
the original bytes; a block already there is replaced where it stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from docs_mcp.server.setup.errors import ConfigFileError

TAG = "docs-mcp"
_NOTE = "written by `docs-mcp setup`; edit outside this block"


@dataclass(frozen=True)
class CommentStyle:
    """How a file writes a line comment: ``<!-- x -->`` in markdown, ``# x`` in TOML."""

    start: str
    end: str = ""

    def line(self, text: str) -> str:
        return f"{self.start}{text}{self.end}"

    @property
    def begin(self) -> str:
        return self.line(f"BEGIN {TAG} ({_NOTE})")

    @property
    def finish(self) -> str:
        return self.line(f"END {TAG}")


MARKDOWN = CommentStyle("<!-- ", " -->")
TOML = CommentStyle("# ")


def block(body: str, style: CommentStyle) -> str:
    """``body`` between the begin and end markers, ending with a line break."""
    return f"{style.begin}\n{body.strip(chr(10))}\n{style.finish}\n"


def find(text: str, style: CommentStyle, path: str = "") -> tuple[int, int] | None:
    """Where the block lies in ``text`` (start of its begin line, end after its end line), or None.

    Raises:
        ConfigFileError: a marker is there without its partner, or twice: the block was edited by hand.
    """
    begin = _marker_lines(text, style.begin)
    finish = _marker_lines(text, style.finish)
    if not begin and not finish:
        return None
    if len(begin) != 1 or len(finish) != 1 or finish[0] < begin[0]:
        raise ConfigFileError(
            path,
            f"has {len(begin)} begin and {len(finish)} end marker line(s) of the {TAG} block, out of order or unpaired",
            f"Keep exactly one '{style.begin}' line and one '{style.finish}' line after it (or delete both and the "
            "lines between), then run `docs-mcp setup` again.",
        )
    end = text.find("\n", finish[0])
    return begin[0], len(text) if end < 0 else end + 1


def put(text: str, body: str, style: CommentStyle, path: str = "") -> str:
    """``text`` with the block holding ``body``: replaced where it stands, else appended after one line break."""
    new = block(body, style)
    span = find(text, style, path)
    if span is not None:
        return text[: span[0]] + new + text[span[1] :]
    return text + "\n" + new


def take_out(text: str, style: CommentStyle, path: str = "") -> str:
    """``text`` without the block and the line break put() added before it: the inverse of put()."""
    span = find(text, style, path)
    if span is None:
        return text
    start, end = span
    if start and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


def _marker_lines(text: str, marker: str) -> list[int]:
    """Offsets of the lines that read exactly ``marker`` (surrounding spaces aside)."""
    found, offset = [], 0
    for line in text.splitlines(keepends=True):
        if line.strip() == marker:
            found.append(offset)
        offset += len(line)
    return found
