"""The best passage of a chunk: blocks whole, the most distinct words, fences never left open."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from docs_mcp.server.search import passages
from docs_mcp.server.search.passages import WEAK_WEIGHT, best_passage, markdown_blocks
from docs_mcp.server.search.snippets import Needles
from docs_mcp.server.search.tokens import count_tokens

DOC = """## Retries

The client retries a failed request up to three times.

Set `max_retries` to change the number.

```python
client = Client(max_retries=5)

# a blank line inside the fence does not end the block
```

## Pagination

Every list endpoint pages its results with a cursor.
"""


def test_blocks_are_paragraphs_headings_and_whole_fences():
    blocks = [DOC[start:end] for start, end in markdown_blocks(DOC)]
    assert blocks[0] == "## Retries"
    assert blocks[3].startswith("```python") and blocks[3].rstrip().endswith("```") and "blank line inside" in blocks[3]
    assert blocks[-1].startswith("Every list endpoint")


def test_the_window_with_the_most_distinct_words_wins_and_starts_at_the_first_match():
    passage = best_passage(DOC, ["max_retries"], max_chars=160)
    assert passage.text.startswith("Set `max_retries`")
    assert "Client(max_retries=5)" in passage.text
    assert DOC[passage.start : passage.end].rstrip() == passage.text
    assert (
        best_passage(DOC, ["cursor"], max_chars=160).text
        == "## Pagination\n\nEvery list endpoint pages its results with a cursor."
    )


def test_weak_words_count_less_than_the_query_words():
    assert WEAK_WEIGHT < 1
    strong_retries = best_passage(DOC, ["retries"], ["cursor", "pages"], max_chars=80)
    assert "retries" in strong_retries.text.lower() and "cursor" not in strong_retries.text


def test_without_a_match_the_passage_is_the_beginning():
    assert best_passage(DOC, ["zebra"], max_chars=120).text.startswith("## Retries\n\nThe client retries")


def test_a_long_code_block_is_cut_around_the_match_and_its_fence_closed():
    code = (
        "```python\n"
        + "\n".join(f"x{i} = {i}" for i in range(200))
        + "\nneedle = 1\n"
        + "\n".join(f"y{i} = {i}" for i in range(200))
        + "\n```\n"
    )
    passage = best_passage(code, ["needle"], max_chars=200)
    assert len(passage.text) <= 200 + len("```python\n```\n")
    assert passage.text.startswith("```python\n") and passage.text.endswith("\n```")
    assert "needle = 1" in passage.text


def test_an_empty_chunk_has_an_empty_passage_and_tokens_are_a_quarter_of_the_characters():
    assert best_passage("", ["a"]).text == ""
    assert [count_tokens(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]


_WORDS = ["retry", "retries", "client", "backoff", "limit", "page", "cursor"]


@settings(max_examples=200, deadline=None)
@given(
    blocks=st.lists(
        st.lists(st.sampled_from([*_WORDS, "the", "a", "Retry-After", "x1"]), min_size=1, max_size=8),
        min_size=1,
        max_size=12,
    ),
    headings=st.lists(st.booleans(), min_size=12, max_size=12),
    strong=st.lists(st.sampled_from(_WORDS), max_size=3),
    weak=st.lists(st.sampled_from(_WORDS), max_size=3),
    max_chars=st.integers(min_value=20, max_value=200),
)
def test_scoring_each_block_once_picks_the_passage_scoring_each_window_text_picks(
    blocks, headings, strong, weak, max_chars
):
    """The reference: every window's words counted by matching its whole text, as the passage was first found."""
    markdown = "\n\n".join(("## " if heading else "") + " ".join(words) for words, heading in zip(blocks, headings))
    scorers = [(Needles.of(strong), 1.0), (Needles.of(weak), WEAK_WEIGHT)]

    def text_score(text: str) -> float:
        total, seen = 0.0, set()
        for needles, weight in scorers:
            words = {word for _, word in needles.found(text)} - seen
            seen |= words
            total += weight * len(words)
        return total

    spans = markdown_blocks(markdown)
    found = passages._block_words(markdown, [start for start, _ in spans], scorers)
    for first in range(len(spans)):
        for last in range(first, len(spans)):
            assert passages._score(found[first : last + 1], scorers) == text_score(
                markdown[spans[first][0] : spans[last][1]]
            )
    passage = best_passage(markdown, strong, weak, max_chars)
    assert passage.text == markdown[passage.start : passage.end].rstrip() or passage.end - passage.start > max_chars


def _exhaustive_passage(markdown: str, strong: list[str], weak: list[str], max_chars: int) -> tuple[str, int, int]:
    """The reference: every window from every block scored by matching its whole text; the earliest best one, its
    blocks before the first match given way (a heading right above it stays), then the same finishing steps."""
    blocks = markdown_blocks(markdown)
    if not blocks:
        return ("", 0, 0)
    scorers = [(Needles.of(strong), 1.0), (Needles.of(weak), WEAK_WEIGHT)]

    def score(first: int, last: int) -> float:
        total, seen = 0.0, set()
        for needles, weight in scorers:
            words = {word for _, word in needles.found(markdown[blocks[first][0] : blocks[last][1]])} - seen
            seen |= words
            total += weight * len(words)
        return total

    def reach(first: int, last: int) -> int:
        while last + 1 < len(blocks) and blocks[last + 1][1] - blocks[first][0] <= max_chars:
            last += 1
        return last

    def heading(block: int) -> bool:
        return passages._HEADING.match(markdown[blocks[block][0] : blocks[block][1]]) is not None

    windows = [(first, reach(first, first)) for first in range(len(blocks))]
    best_score = max(score(*window) for window in windows)
    first, last = next(window for window in windows if score(*window) == best_score)
    while (
        best_score > 0
        and first < last
        and not score(first, first)
        and not (heading(first) and score(first + 1, first + 1))
    ):
        first += 1
    last = reach(first, last)
    while last > first and heading(last):
        last -= 1
    start, end = blocks[first][0], blocks[last][1]
    if end - start > max_chars:  # cut as the passage cuts
        cut = passages._cut(
            markdown, start, end, [(needles, weight) for needles, weight in scorers if needles.words], max_chars
        )
        return (cut.text, cut.start, cut.end)
    return (markdown[start:end].rstrip(), start, end)


_PIECES = [
    "retry ",
    "retries ",
    "client ",
    "cursor ",
    "the ",
    "a ",
    "x1 ",
    "\n## Retry",
    "\n# Client",
    "\n#nohead",
    "\n#",
    "\n```",
    "\n```py",
    "\n~~~~",
    "   ",
    "\n",
    "\n\n",
    "\n\n\n",
]


@settings(max_examples=1500, deadline=None)
@example(
    pieces=["retry ", "\n\n", "\n#", "\n"], strong=["retry"], weak=[], max_chars=50
)  # a last block "#": no heading
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=40),
    strong=st.lists(st.sampled_from(_WORDS), max_size=3),
    weak=st.lists(st.sampled_from(_WORDS), max_size=3),
    max_chars=st.integers(min_value=10, max_value=120),
)
def test_the_windows_scored_pick_the_passage_scoring_every_window_picks(pieces, strong, weak, max_chars):
    """Only windows opening on a match (or a heading above one) are scored, and none after one scoring all the words:
    the passage is the one scoring every window finds (markdown_blocks' edge cases: headings, fences, blank runs)."""
    markdown = "".join(pieces)
    passage = best_passage(markdown, strong, weak, max_chars)
    assert (passage.text, passage.start, passage.end) == _exhaustive_passage(markdown, strong, weak, max_chars)


def test_a_chunks_blocks_are_split_once_however_often_searches_choose_its_passage(monkeypatch):
    """A session's searches come back to the same chunks: their markdown is split into blocks once, not per search."""
    splits: list[str] = []

    def counted(markdown: str) -> list[tuple[int, int]]:
        splits.append(markdown)
        return markdown_blocks(markdown)

    monkeypatch.setattr(passages, "markdown_blocks", counted)
    text = DOC + "\nA line only this test's chunk holds.\n"
    first = best_passage(text, ["max_retries"], max_chars=160)
    again = best_passage(text, ["cursor"], ["pages"], max_chars=160)
    assert splits == [text]
    assert first.text.startswith("Set `max_retries`") and "cursor" in again.text


def test_a_chunks_headings_are_found_when_it_is_split_not_by_each_search(monkeypatch):
    """Which blocks are headings is part of the split remembered per chunk: a later search asks no block again."""
    asked: list[int] = []

    class CountedHeading:
        def match(self, text: str, *bounds: int) -> object:
            asked.append(len(bounds))
            return HEADING.match(text, *bounds)

    HEADING = passages._HEADING
    monkeypatch.setattr(passages, "_HEADING", CountedHeading())
    text = DOC + "\n## A heading only this test's chunk holds\n\nWith a line under it.\n"
    first = best_passage(text, ["cursor"], max_chars=160)
    split = len(asked)
    again = best_passage(text, ["retries"], ["pages"], max_chars=160)
    assert split and len(asked) == split
    assert "cursor" in first.text and again.text.startswith("## Retries")
