"""The build display: rich bars on a terminal, a short plain log otherwise, nothing when quiet."""

from __future__ import annotations

import io
import re

from docs_mcp.indexer.display import BuildDisplay
from docs_mcp.indexer.generation import Progress
from docs_mcp.indexer.schema import FULL_TEXT, HYBRID

WINDOWS = 100
STEPS = [
    Progress("scan", 0, 0),
    Progress("files", 3, 3),
    Progress("chunks", 5, 5),
    Progress("full-text", 0, 1),
    Progress("publish", 0, 1, FULL_TEXT),
    Progress("live", 1, 1, FULL_TEXT),
    *(Progress("embed", done, WINDOWS) for done in range(0, WINDOWS + 1, 4)),
    Progress("publish", 0, 1, HYBRID),
    Progress("live", 1, 1, HYBRID),
]


def shown(**options: object) -> tuple[BuildDisplay, str]:
    stream = io.StringIO()
    with BuildDisplay(stream=stream, **options) as display:  # type: ignore[arg-type]
        for step in STEPS:
            display.show(step)
    return display, stream.getvalue()


def test_plain_log_has_one_line_per_step_and_a_tenth_of_the_embedding() -> None:
    display, text = shown(terminal=False)
    lines = text.splitlines()
    assert lines[:4] == ["reading the docs folder", "3 files, 5 chunks", "writing the full-text index", lines[3]]
    assert re.fullmatch(r"full-text search is live \([\d.]+ s\)", lines[3])
    embedding = [line for line in lines if line.startswith("embedding ")]
    assert [int(line.split()[1].split("/")[0]) for line in embedding] == [0, 12, 20, 32, 40, 52, 60, 72, 80, 92, 100]
    assert embedding[0] == "embedding 0/100 windows"
    assert re.fullmatch(r"embedding 52/100 windows \([\d.]+ windows/s, about \d+( min \d\d)? s left\)", embedding[5])
    assert re.fullmatch(r"embedding 100/100 windows \([\d.]+ windows/s\)", embedding[-1])
    assert re.fullmatch(r"hybrid search is live \([\d.]+ s\)", lines[-1])
    assert display.live == [FULL_TEXT, HYBRID]


def test_terminal_shows_bars_with_counts() -> None:
    display, text = shown(terminal=True)
    assert "\x1b[" in text  # drawn, not logged
    assert "reading the docs folder" in text and "writing the full-text index" in text
    assert "100/100 windows" in text
    assert "full-text search is live" in text and "hybrid search is live" in text
    assert display.live == [FULL_TEXT, HYBRID]


def test_quiet_shows_nothing_but_keeps_count() -> None:
    for terminal in (True, False):
        display, text = shown(quiet=True, terminal=terminal)
        assert text == ""
        assert display.live == [FULL_TEXT, HYBRID]


def test_nothing_to_embed_shows_no_embedding() -> None:
    stream = io.StringIO()
    with BuildDisplay(stream=stream, terminal=False) as display:
        display.show(Progress("embed", 0, 0))
    assert stream.getvalue() == ""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_time_left_is_estimated_from_the_work_done_not_the_windows() -> None:
    """Windows go shortest first: half the windows may be a tenth of the characters (was ~5x too optimistic);
    the work is the characters plus 300 per window (time_left.py): 16,000 of 40,000 done in 10 s, 24,000 left."""
    clock, stream = Clock(), io.StringIO()
    with BuildDisplay(stream=stream, terminal=False, clock=clock) as display:
        display.show(Progress("embed", 0, 100, work=0, work_total=10_000))
        clock.now = 10.0  # 50 short windows, 1,000 of the 10,000 characters, in 10 s
        display.show(Progress("embed", 50, 100, work=1_000, work_total=10_000))
    assert stream.getvalue().splitlines()[-1] == "embedding 50/100 windows (5.0 windows/s, about 15 s left)"


def test_a_long_embedding_logs_a_line_at_least_every_log_seconds() -> None:
    # 1,000 windows at one a second: a tenth is 100 s, so the tenths alone left 100 s without a line.
    from docs_mcp.indexer.display import LOG_SECONDS

    now = [0.0]
    stream = io.StringIO()
    with BuildDisplay(stream=stream, terminal=False, clock=lambda: now[0]) as display:
        for done in range(1001):
            display.show(Progress("embed", done, 1000, work=done, work_total=1000))
            now[0] += 1.0
    done_at = [int(line.split()[1].split("/")[0]) for line in stream.getvalue().splitlines()]
    assert done_at[0] == 0 and done_at[-1] == 1000
    assert max(b - a for a, b in zip(done_at, done_at[1:])) <= LOG_SECONDS  # one window a second
    assert {100, 500, 900} <= set(done_at)  # the tenths are still logged


def test_a_long_scan_logs_the_pages_read_at_least_every_log_seconds() -> None:
    # 527 pages at 0.25 s each (the Python documentation's HTML): "reading the docs folder", then 2 minutes of silence.
    from docs_mcp.indexer.display import LOG_SECONDS

    now = [0.0]
    stream = io.StringIO()
    with BuildDisplay(stream=stream, terminal=False, clock=lambda: now[0]) as display:
        display.show(Progress("scan", 0, 0))
        for done in range(1, 528):
            now[0] += 0.25
            display.show(Progress("pages", done, 527))
        display.show(Progress("files", 527, 527))
    lines = stream.getvalue().splitlines()
    assert lines[0] == "reading the docs folder"
    read = [int(line.split()[-2].split("/")[0]) for line in lines[1:]]
    assert all(re.fullmatch(r"reading the docs folder: \d+/527 pages", line) for line in lines[1:])
    assert len(read) == int(527 * 0.25 // LOG_SECONDS) and read[0] == LOG_SECONDS / 0.25
