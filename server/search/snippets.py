"""Snippets: the stretch of a chunk's plain text around the query's words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Needles:
    """What a snippet looks for: words of the text starting with a needle (made once per search).

    A word matches from a position not preceded by an ASCII letter or digit, and runs on over ASCII letters and
    digits, letter case aside. Needles of ASCII letters and digits alone (the query's words: search_text.tokenize)
    in a text whose lower case changes no match (below) are found by ``str.find`` in the lower-cased text: no
    pattern to compile (0.1 ms a needle set, two or three sets a search, most of them never seen before) and 1.4x
    quicker to search; of those, only the needles that begin with no other needle are searched (``searched``): a
    word starting with "routing" starts with "rout". Other needles take a case-folding pattern, compiled once per
    needle set (there a longer needle can match more than its prefix: "a-b-" beside "a-").
    """

    words: tuple[str, ...]  # longest first, so a match is whole; empty: no needle of two letters or more

    @classmethod
    def of(cls, needles: Iterable[str]) -> Needles:
        """``needles`` are lower-case prefixes (query words and their stems)."""
        return cls(tuple(sorted({n for n in needles if len(n) >= 2}, key=lambda n: (-len(n), n))))

    def found(self, text: str) -> list[tuple[int, str]]:
        """Where each word of ``text`` that starts with a needle starts, and the word in lower case."""
        if not self.words:
            return []
        if self._alphanumeric and _folds_as_lower(text):
            return _alphanumeric_words_from(self.searched, text.lower())
        return _folded_words_from(_folding_pattern(self.words), text)

    @cached_property
    def searched(self) -> tuple[str, ...]:
        """The needles that begin with no other needle: of ASCII letters and digits, they find the same words.

        A query's word beside its stem ("routing", "rout") made 13% of the needles searched over FastAPI's hits,
        each one a pass over a hit's text.
        """
        kept: list[str] = []
        for word in sorted(self.words):  # a needle's prefixes sort right before it and its extensions
            if not kept or not word.startswith(kept[-1]):
                kept.append(word)
        return tuple(kept)

    @cached_property
    def _alphanumeric(self) -> bool:
        """Whether every needle is ASCII letters and digits (asked for each text: found once)."""
        return all(_ALPHANUMERIC.issuperset(word) for word in self.words)

    def first(self, text: str) -> int | None:
        """Where the first word of ``text`` that starts with a needle starts (None: nowhere)."""
        found = self.found(text)
        return found[0][0] if found else None


# The letters a case-folding pattern of ASCII letters matches besides them (the re module's documentation lists them);
# they are also the only ones whose lower case is longer (U+0130) or an ASCII letter (U+0130, U+212A): checked over
# every code point of this Python.
_FOLDING_EXTRAS = ("\u0130", "\u0131", "\u017f", "\u212a")


def _folds_as_lower(text: str) -> bool:
    """Whether ASCII needles match ``text`` lower-cased exactly where they match it case-folded, at the same places."""
    return text.isascii() or not any(extra in text for extra in _FOLDING_EXTRAS)


_ALPHANUMERIC = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ALPHANUMERIC_RUN = re.compile(r"[a-z0-9]+")


def _alphanumeric_words_from(needles: tuple[str, ...], lower: str) -> list[tuple[int, str]]:
    """``found`` for needles of lower-case ASCII letters and digits, none beginning another: a match is the whole run
    of letters and digits that starts with a needle (whichever needle: they hold nothing else), so matches never
    overlap, and no two needles start at one place."""
    starts = []
    find = lower.find
    for needle in needles:
        at = find(needle)
        while at >= 0:
            if not at or lower[at - 1] not in _ALPHANUMERIC:
                starts.append(at)
            at = find(needle, at + len(needle))  # one starting inside this one follows a letter or digit
    starts.sort()
    # A needle starts at each of ``starts`` (letters and digits only), so a run always matches there.
    run = _ALPHANUMERIC_RUN.match
    return [(start, word.group()) for start in starts if (word := run(lower, start)) is not None]


# A needle's match starts where no letter or digit comes before it. The pattern leaves that test out, so that it
# opens with the needles' letters, which the regex engine scans for quickly (an opening look-behind is tried at every
# character: 1.8x slower here); each match found is then tested, and a refused one searched past by one character.
_FOLDING_WORD_CHAR = re.compile(r"[A-Za-z0-9]", re.IGNORECASE)


def _folded_words_from(pattern: re.Pattern[str], text: str) -> list[tuple[int, str]]:
    found = []
    position = 0
    while (match := pattern.search(text, position)) is not None:
        start = match.start()
        if start and _FOLDING_WORD_CHAR.match(text, start - 1):
            position = start + 1
            continue
        found.append((start, match.group().lower()))
        position = match.end()
    return found


@lru_cache(maxsize=64)
def _folding_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"(?:{'|'.join(re.escape(w) for w in words)})[A-Za-z0-9]*", re.IGNORECASE)


def make_snippet(flat: str, needles: Needles, width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``flat`` (a text, whitespace folded: fold_spaces) holding the most distinct query words.

    A text word matches a needle it starts with.  Without a match, the snippet is the text's start.
    """
    if len(flat) <= width:
        return flat
    hits = needles.found(flat)
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
    every = len({word for _, word in hits})
    counts: dict[str, int] = {}
    best_start, best_count, end = hits[0][0], 0, 0
    for position, word in hits:  # slide a window [position, position + reach) over the hits
        while end < len(hits) and hits[end][0] < position + reach:
            counts[hits[end][1]] = counts.get(hits[end][1], 0) + 1
            end += 1
        if len(counts) > best_count:
            best_start, best_count = position, len(counts)
            if best_count == every:
                break  # a window with every word: no later one covers more
        counts[word] -= 1
        if not counts[word]:
            del counts[word]
    return max(0, best_start - width // 4)
