"""Crawl progress on stderr, then the progress of the build that indexes what was crawled.

The crawl shows one live line on a terminal; otherwise a plain line every ``LOG_EVERY`` URLs, at least
every ``LOG_SECONDS``, and the last count when the crawl ends; or nothing when quiet. The build after it
(embedding the pages can take longer than the crawl) is shown by the build display, as `docs-mcp index`
shows it: it printed nothing before, 15 minutes of silence for a large site.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from docs_mcp.indexer.display import BuildDisplay
from docs_mcp.indexer.sources.web.crawler import CrawlStep

if TYPE_CHECKING:
    from docs_mcp.indexer.generation import Progress

LOG_EVERY = 50
LOG_SECONDS = 30.0


class CrawlDisplay:
    """Shows a crawl's steps (URLs done of those known, pages per second, how they went), then its build's."""

    def __init__(
        self, *, quiet: bool = False, stream: TextIO | None = None, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self._terminal = self.stream.isatty()
        self._clock = clock
        self._started = self._logged = clock()
        self._outcomes: dict[str, int] = {}
        self._unlogged: CrawlStep | None = None  # the last step, when its line is not written yet
        self._build: BuildDisplay | None = None

    def show(self, step: CrawlStep) -> None:
        """Display one crawled URL."""
        self._outcomes[step.outcome] = self._outcomes.get(step.outcome, 0) + 1
        if self.quiet:
            return
        if self._terminal:
            self.stream.write(f"\r\x1b[Kcrawling: {self.describe(step)}")
            self.stream.flush()
        elif step.done % LOG_EVERY == 0 or self._clock() - self._logged >= LOG_SECONDS:
            self._log(step)
        else:
            self._unlogged = step

    def describe(self, step: CrawlStep) -> str:
        seconds = max(self._clock() - self._started, 1e-6)
        counts = ", ".join(f"{count} {outcome}" for outcome, count in sorted(self._outcomes.items()))
        return f"{step.done}/{step.known} URLs ({step.done / seconds:.1f}/s): {counts}"

    def build(self, step: Progress) -> None:
        """Display one step of the build after the crawl (the crawl's line is ended first)."""
        if self._build is None:
            self._end_crawl()
            self._build = BuildDisplay(quiet=self.quiet, stream=self.stream).__enter__()
        self._build.show(step)

    def close(self) -> None:
        """End the crawl's line and the build's bars."""
        self._end_crawl()
        if self._build is not None:
            self._build.__exit__(None, None, None)
            self._build = None

    def _end_crawl(self) -> None:
        if self._unlogged is not None:
            self._log(self._unlogged)
        if self._terminal and not self.quiet and self._outcomes:
            self.stream.write("\n")
            self.stream.flush()
            self._outcomes = {}

    def _log(self, step: CrawlStep) -> None:
        self.stream.write(f"crawling: {self.describe(step)}\n")
        self.stream.flush()
        self._logged = self._clock()
        self._unlogged = None
