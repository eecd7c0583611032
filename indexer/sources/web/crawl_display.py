"""Crawl progress on stderr: one live line on a terminal, a plain line every ``LOG_EVERY`` URLs otherwise, or nothing."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from docs_mcp.indexer.sources.web.crawler import CrawlStep

LOG_EVERY = 50


class CrawlDisplay:
    """Shows a crawl's steps: URLs done of those known, pages per second, how the last one went."""

    def __init__(self, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self._terminal = self.stream.isatty()
        self._started = time.perf_counter()
        self._outcomes: dict[str, int] = {}

    def show(self, step: CrawlStep) -> None:
        """Display one crawled URL."""
        self._outcomes[step.outcome] = self._outcomes.get(step.outcome, 0) + 1
        if self.quiet:
            return
        if self._terminal:
            self.stream.write(f"\r\x1b[Kcrawling: {self.describe(step)}")
            self.stream.flush()
        elif step.done % LOG_EVERY == 0:
            self.stream.write(f"crawling: {self.describe(step)}\n")
            self.stream.flush()

    def describe(self, step: CrawlStep) -> str:
        seconds = max(time.perf_counter() - self._started, 1e-6)
        counts = ", ".join(f"{count} {outcome}" for outcome, count in sorted(self._outcomes.items()))
        return f"{step.done}/{step.known} URLs ({step.done / seconds:.1f}/s): {counts}"

    def close(self) -> None:
        """End the live line."""
        if self._terminal and not self.quiet and self._outcomes:
            self.stream.write("\n")
            self.stream.flush()
