"""Parse an llms.txt (https://llmstxt.org): a title, a summary, and sections of linked pages.

    # Title
    > One-paragraph summary.
    Free text...
    ## Section
    - [Page title](https://url): one-line description

The format is line-based by definition, so it is read line by line. Relative links are
resolved against the llms.txt URL; a link before any section goes to "Overview".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from docs_mcp.indexer.sources.errors import LlmsTxtNotFoundError

ROOT_SECTION = "Overview"
_TITLE = re.compile(r"^#\s+(.+?)\s*$")
_SECTION = re.compile(r"^##\s+(.+?)\s*$")
_SUMMARY = re.compile(r"^>\s?(.*)$")
_LINK = re.compile(r"^\s*[-*+]\s*\[(?P<title>[^\]]+)\]\((?P<url>[^)\s]+)\)\s*(?::\s*(?P<description>.*))?$")


@dataclass(frozen=True)
class LlmsEntry:
    """One linked page of an llms.txt."""

    section: str
    title: str
    url: str
    description: str

    def as_json(self) -> dict[str, Any]:
        return {"section": self.section, "title": self.title, "url": self.url, "description": self.description}


@dataclass(frozen=True)
class LlmsTxt:
    """A parsed llms.txt."""

    url: str
    title: str
    summary: str
    entries: tuple[LlmsEntry, ...]

    @property
    def sections(self) -> list[str]:
        """Section names in file order, each once."""
        return list(dict.fromkeys(entry.section for entry in self.entries))


def parse_llms_txt(text: str, url: str) -> LlmsTxt:
    """The title, summary and linked pages of the llms.txt at ``url``.

    Raises:
        LlmsTxtNotFoundError: it has neither a ``# Title`` nor a single link (not an llms.txt).
    """
    title, summary, section = "", [], ROOT_SECTION
    entries: list[LlmsEntry] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not title and (match := _TITLE.match(line)):
            title = match.group(1)
        elif match := _SECTION.match(line):
            section = match.group(1)
        elif not entries and section == ROOT_SECTION and (match := _SUMMARY.match(line)):
            summary.append(match.group(1).strip())
        elif match := _LINK.match(line):
            entries.append(
                LlmsEntry(
                    section, match["title"].strip(), urljoin(url, match["url"]), (match["description"] or "").strip()
                )
            )
    if not title and not entries:
        raise LlmsTxtNotFoundError(
            f"{url} is not an llms.txt: it has no '# Title' line and no '- [title](url)' links.",
            "Pass the URL of the site's llms.txt (usually https://SITE/llms.txt).",
        )
    return LlmsTxt(url=url, title=title or url, summary=" ".join(s for s in summary if s), entries=tuple(entries))
