"""robots.txt for the site crawler: which URLs docs-mcp may fetch, how slowly, and the sitemaps it names.

Parsed by the standard library's ``urllib.robotparser`` for docs-mcp's user agent (``docs-mcp``,
else ``*``). A missing robots.txt (4xx) allows everything; one that cannot be read (5xx, network
failure) is handled by the caller, which refuses to crawl (RFC 9309: assume complete disallow).
"""

from __future__ import annotations

from urllib.robotparser import RobotFileParser

AGENT = "docs-mcp"
# Longest Crawl-delay honoured: a site asking for more is crawled at this pace and told so.
MAX_CRAWL_DELAY = 30.0


class Robots:
    """The rules of one host's robots.txt as they apply to docs-mcp (``""``: no robots.txt, everything allowed)."""

    def __init__(self, text: str = "") -> None:
        self.text = text
        self._parser = RobotFileParser()
        self._parser.parse(text.splitlines())

    def allows(self, url: str) -> bool:
        """Whether docs-mcp may fetch ``url``."""
        return bool(self._parser.can_fetch(AGENT, url))

    @property
    def crawl_delay(self) -> float:
        """Seconds to leave between two requests (0 when the file asks for none), at most MAX_CRAWL_DELAY."""
        delay = self._parser.crawl_delay(AGENT)
        rate = self._parser.request_rate(AGENT)
        seconds = float(delay or 0)
        if rate is not None and rate.requests:
            seconds = max(seconds, rate.seconds / rate.requests)
        return min(seconds, MAX_CRAWL_DELAY)

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """The sitemap URLs the file lists, in order."""
        return tuple(self._parser.site_maps() or ())
