"""The passage of a chunk that matches a query best: a few consecutive markdown blocks, at most ``PASSAGE_CHARS``.

An agent deciding whether to read a whole chunk (and spend its tokens) is helped most by the
lines that answer: the passage shows them, where the 240-character snippet shows only where the
words occur.  Blocks are paragraphs, list items, headings and whole fenced code blocks; the window
of consecutive blocks holding the most distinct query words wins (the query's and keywords' words
count 1, the question's and hypothetical answer's ``WEAK_WEIGHT``), the earliest on a tie, so a
chunk without any of the words shows its beginning.  A block longer than the window is cut at line
ends around its first match, and a code fence cut open is closed again.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.lru_cache import LruCache
from docs_mcp.server.search.snippets import Needles

PASSAGE_CHARS = 600
WEAK_WEIGHT = 0.4
_FENCE = re.compile(r" {0,3}(```+|~~~+)")  # matched at a line's start
_HEADING = re.compile(r" {0,3}#{1,6}\s")


@dataclass(frozen=True)
class _Blocks:
    """A chunk's blocks: their (start, end) spans, their starts alone, and which are headings."""

    spans: tuple[tuple[int, int], ...]
    starts: tuple[int, ...]
    headings: tuple[bool, ...]

    @classmethod
    def of(cls, markdown: str) -> _Blocks:
        spans = tuple(markdown_blocks(markdown))
        headings = tuple(_HEADING.match(markdown, start, end) is not None for start, end in spans)
        return cls(spans, tuple(start for start, _ in spans), headings)


# A session's searches come back to the same chunks: each one's markdown is split into blocks once, not per search
# (FastAPI: 0.13-0.24 ms less CPU a full-text tool call, 1.6-1.8 -> 1.5-1.55 ms; corpus/guide/benchmarks.md), and
# which of its blocks are headings found once (choosing the window asked each block again and again).
_BLOCKS: LruCache[str, _Blocks] = LruCache("passage-blocks", lru_cache.PASSAGE_BLOCKS)


@dataclass(frozen=True)
class Passage:
    """A stretch of a chunk's markdown and where it lies in it (character offsets)."""

    text: str
    start: int
    end: int


def best_passage(
    markdown: str, strong: Sequence[str], weak: Sequence[str] = (), max_chars: int = PASSAGE_CHARS
) -> Passage:
    """The window of consecutive blocks of ``markdown`` that holds the most distinct words (weighted), cut to ``max_chars``."""
    return PassageWords.of(strong, weak).best(markdown, max_chars)


@dataclass(frozen=True)
class PassageWords:
    """The words passages are chosen by, each set with its weight: made once for a search, used for each of its hits."""

    scorers: tuple[tuple[Needles, float], ...]  # sets without a needle left out: they count nothing

    @classmethod
    def of(cls, strong: Sequence[str], weak: Sequence[str] = ()) -> PassageWords:
        scorers = ((Needles.of(strong), 1.0), (Needles.of(weak), WEAK_WEIGHT))
        return cls(tuple((needles, weight) for needles, weight in scorers if needles.words))

    def best(self, markdown: str, max_chars: int = PASSAGE_CHARS) -> Passage:
        """The best passage of ``markdown`` (best_passage)."""
        chunk = _BLOCKS.get_or_compute(markdown, _Blocks.of)
        blocks, heading = chunk.spans, chunk.headings.__getitem__
        if not blocks:
            return Passage("", 0, 0)
        scorers = self.scorers
        # The words are found once in the whole chunk; a window's are the union of its blocks' (no word spans two blocks).
        found = _block_words(markdown, chunk.starts, scorers)

        def score(first: int, last: int) -> float:
            return _score(found[first : last + 1], scorers)

        def worth_opening(first: int) -> bool:
            # A window opening on a block without words scores no more than the next block's window, which reaches
            # as far or further, and ends up as that one once the blocks before its first match give way (below).
            return any(found[first]) or (first + 1 < len(blocks) and heading(first) and any(found[first + 1]))

        # Where no block holds a word no window is scored: (0, 0), grown below, is the chunk's beginning.
        best, best_score, whole_score = (0, 0), -1.0, score(0, len(blocks) - 1)
        for first in filter(worth_opening, range(len(blocks))):
            last = _last_within(blocks, first, first, max_chars)
            window_score = score(first, last)
            if window_score > best_score:
                best, best_score = (first, last), window_score
                if best_score == whole_score:
                    break  # no later window can score more
        first, last = best
        # Blocks before the first match give way (a heading right above it stays) to blocks after the window.
        while best_score > 0 and first < last and not score(first, first):
            if heading(first) and score(first + 1, first + 1):
                break
            first += 1
        last = _last_within(blocks, first, last, max_chars)
        while last > first and heading(last):
            last -= 1  # a heading with nothing under it says nothing
        start, end = blocks[first][0], blocks[last][1]
        if end - start > max_chars:
            return _cut(markdown, start, end, scorers, max_chars)
        return Passage(markdown[start:end].rstrip(), start, end)


def _last_within(blocks: Sequence[tuple[int, int]], first: int, last: int, max_chars: int) -> int:
    """``last`` moved on over the blocks that still end within ``max_chars`` of the start of block ``first``."""
    while last + 1 < len(blocks) and blocks[last + 1][1] - blocks[first][0] <= max_chars:
        last += 1
    return last


def markdown_blocks(markdown: str) -> list[tuple[int, int]]:
    """(start, end) of each block: runs of lines between blank lines, a heading line alone, a fenced code block whole."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    fence: str | None = None
    offset = 0
    for line in markdown.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        opener = _FENCE.match(body)
        if fence is not None:
            if (
                opener
                and opener.group(1)[0] == fence[0]
                and len(opener.group(1)) >= len(fence)
                and not body.strip().strip(fence[0])
            ):
                fence = None
        elif opener:
            fence = opener.group(1)
            start = offset if start is None else start
        elif not body.strip():
            if start is not None:
                blocks.append((start, offset))
                start = None
        elif _HEADING.match(body):
            if start is not None:
                blocks.append((start, offset))
            blocks.append((offset, offset + len(body)))
            start = None
        elif start is None:
            start = offset
        offset += len(line)
    if start is not None:
        blocks.append((start, len(markdown.rstrip("\r\n"))))
    return [(s, e) for s, e in blocks if markdown[s:e].strip()]


def _block_words(
    markdown: str, starts: Sequence[int], scorers: Sequence[tuple[Needles, float]]
) -> list[tuple[int, ...]]:
    """Per block (``starts``: where each begins), per scorer, the distinct words (lower case) its needles match there,
    as a bit set (a bit per word)."""
    bits: dict[str, int] = {}
    found = [[0] * len(scorers) for _ in starts]
    for k, (needles, _) in enumerate(scorers):
        for start, word in needles.found(markdown):
            block = bisect_right(starts, start) - 1  # matches lie in blocks: between them is only blank space
            found[block][k] |= 1 << bits.setdefault(word, len(bits))
    return [tuple(words) for words in found]


def _score(blocks: Sequence[tuple[int, ...]], scorers: Sequence[tuple[Needles, float]]) -> float:
    """The weighted count of distinct words in ``blocks`` (their ``_block_words``); a word counts once, at its first scorer's weight."""
    total = 0.0
    seen = 0
    for k, (_, weight) in enumerate(scorers):
        words = 0
        for block in blocks:
            words |= block[k]
        words &= ~seen
        seen |= words
        total += weight * words.bit_count()
    return total


def _cut(markdown: str, start: int, end: int, scorers: Sequence[tuple[Needles, float]], max_chars: int) -> Passage:
    """``max_chars`` of the block [start, end) from the line of its first match, at line ends; a cut fence is closed."""
    text = markdown[start:end]
    first = min((at for needles, _ in scorers if (at := needles.first(text)) is not None), default=0)
    begin = text.rfind("\n", 0, max(first - max_chars // 3, 0)) + 1
    stop = text.rfind("\n", begin, begin + max_chars)
    stop = stop if stop > begin else min(begin + max_chars, len(text))
    piece = text[begin:stop].rstrip()
    opened = _open_fence(text[:begin])
    if opened:
        piece = f"{opened}\n{piece}"
    still_open = _open_fence(piece)
    closing = _FENCE.match(still_open) if still_open else None  # an opening line: the pattern matches it
    if closing is not None:
        piece = f"{piece}\n{closing.group(1)}"
    return Passage(piece, start + begin, start + stop)


def _open_fence(text: str) -> str | None:
    """The opening line (```python) of the fence a text leaves open at its end, if any."""
    fence: str | None = None
    line_open = ""
    for line in text.splitlines():
        opener = _FENCE.match(line)
        if not opener:
            continue
        if fence is None:
            fence, line_open = opener.group(1), line.strip()
        elif opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
            fence = None
    return line_open if fence is not None else None
