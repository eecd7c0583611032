"""The crawl's progress as plain lines (stderr a file or a pipe): never silent for long, and its last count shown."""

from __future__ import annotations

import io

from docs_mcp.indexer.generation import Progress
from docs_mcp.indexer.sources.web.crawl_display import LOG_EVERY, LOG_SECONDS, CrawlDisplay
from docs_mcp.indexer.sources.web.crawler import CrawlStep


def test_a_slow_crawl_logs_a_line_at_least_every_log_seconds() -> None:
    # A page every 5 s (a site whose robots.txt asks for a crawl delay): LOG_EVERY URLs alone left 250 s without a line.
    now = [0.0]
    stream = io.StringIO()
    display = CrawlDisplay(stream=stream, clock=lambda: now[0])
    for done in range(1, 2 * LOG_EVERY + 1):
        now[0] += 5.0
        display.show(CrawlStep(done, 2 * LOG_EVERY, f"https://docs.example.com/{done}", "page"))
    display.close()
    done_at = [int(line.split()[1].split("/")[0]) for line in stream.getvalue().splitlines()]
    assert done_at[-1] == 2 * LOG_EVERY and LOG_EVERY in done_at
    assert max(b - a for a, b in zip([0, *done_at], done_at)) * 5.0 <= LOG_SECONDS


def test_the_build_after_the_crawl_is_shown_after_the_crawl_s_last_count() -> None:
    stream = io.StringIO()
    display = CrawlDisplay(stream=stream)
    for done in (1, 2, 3):
        display.show(CrawlStep(done, 3, f"https://docs.example.com/{done}", "page"))
    for step in (Progress("scan", 0, 0), Progress("embed", 0, 8), Progress("embed", 8, 8)):
        display.build(step)
    display.close()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("crawling: 3/3 URLs (") and lines[0].endswith("3 page")
    assert lines[1:3] == ["reading the docs folder", "embedding 0/8 windows"]
    assert lines[3].startswith("embedding 8/8 windows (")


def test_quiet_shows_neither() -> None:
    stream = io.StringIO()
    display = CrawlDisplay(quiet=True, stream=stream)
    display.show(CrawlStep(1, 1, "https://docs.example.com/", "page"))
    display.build(Progress("embed", 0, 8))
    display.close()
    assert stream.getvalue() == ""
