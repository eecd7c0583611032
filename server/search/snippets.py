"""Snippets: the stretch of a chunk's plain text around the query's words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Needles:
    """What a snippet looks for: words of the text starting with a needle, as one pattern (made once per search)."""

    pattern: re.Pattern[str] | None  # None: no needle of two letters or more

    @classmethod
    def of(cls, needles: Iterable[str]) -> "Needles":
        """``needles`` are lower-case prefixes (query words and their stems); longest first, so a match is whole."""
        kept = sorted({n for n in needles if len(n) >= 2}, key=lambda n: (-len(n), n))
        if not kept:
            return cls(None)
        alternatives = "|".join(re.escape(n) for n in kept)
        return cls(re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})[A-Za-z0-9]*", re.IGNORECASE))


def make_snippet(flat: str, needles: Needles, width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``flat`` (a text, whitespace folded: fold_spaces) holding the most distinct query words.

    A text word matches a needle it starts with.  Without a match, the snippet is the text's start.
    """
    if len(flat) <= width:
        return flat
    hits = [(m.start(), m.group().lower()) for m in needles.pattern.finditer(flat)] if needles.pattern else []
    start = _best_start(hits, width) if hits else 0
    start = max(0, min(start, len(flat) - width))
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 30 else start
    end = start + width
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")


def _best_start(hits: list[tuple[int, str]], width: int) -> int:
    """Start of the window (a little before a hit) that covers the most distinct matched words."""
    reach = width * 3 // 4
    counts: dict[str, int] = {}
    best_start, best_count, end = hits[0][0], 0, 0
    for position, word in hits:  # slide a window [position, position + reach) over the hits
        while end < len(hits) and hits[end][0] < position + reach:
            counts[hits[end][1]] = counts.get(hits[end][1], 0) + 1
            end += 1
        if len(counts) > best_count:
            best_start, best_count = position, len(counts)
        counts[word] -= 1
        if not counts[word]:
            del counts[word]
    return max(0, best_start - width // 4)
