"""A fetched body as clean markdown: markdown and plain text as they are, HTML converted.

HTML goes through the same converter as local ``.html`` pages (indexer/corpus/formats/html.py: main
content only, navigation, headers, footers and scripts dropped). A body that is not text, not a
documentation content type, has almost no words, or is HTML nested deeper than the converter
reads (no documentation page is) is refused as INVALID_CONTENT.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from docs_mcp.indexer.corpus.charsets import html_text
from docs_mcp.indexer.corpus.formats import Converted, FormatError
from docs_mcp.indexer.corpus.formats.html import html_to_markdown, markdown_title
from docs_mcp.indexer.sources.errors import InvalidContentError
from docs_mcp.indexer.sources.web.fetch import Fetched

MARKDOWN_TYPES = ("text/markdown", "text/x-markdown", "text/plain", "")
HTML_TYPES = ("text/html", "application/xhtml+xml")
MIN_WORDS = 5
_HINT = "Read a documentation page (markdown or HTML) from the library's table of contents."


def to_markdown(fetched: Fetched) -> Converted:
    """The markdown of a fetched page.

    Raises:
        InvalidContentError: binary, an unexpected content type, (almost) no text, or HTML nested too deep.
    """
    text = _decode(fetched)
    media = fetched.content_type.split(";", 1)[0].strip().lower()
    if is_html(fetched, text):
        converted = _from_html(text, fetched.url)
    elif media in MARKDOWN_TYPES:
        markdown = text.replace("\r\n", "\n").replace("\r", "\n").strip() + "\n"
        converted = Converted(markdown, markdown_title(markdown) or _url_title(fetched.url))
    else:
        raise InvalidContentError(f"{fetched.url} serves '{media}', not documentation.", _HINT)
    if len(converted.markdown.split()) < MIN_WORDS:
        raise InvalidContentError(f"{fetched.url} has no documentation text.", _HINT)
    return converted


def _from_html(text: str, url: str) -> Converted:
    try:
        page = html_to_markdown(text, _url_title(url))
    except FormatError as error:
        raise InvalidContentError(
            f"{url}: {error}; it is not a documentation page docs-mcp can read.",
            "Read another page of the table of contents, or the site's markdown version of this page if it has one.",
        ) from None
    return Converted(page.markdown, page.title)


def is_html(fetched: Fetched, text: str | None = None) -> bool:
    """Whether the page is HTML: by its content type, or by its first bytes when it has none (or says text/plain)."""
    media = fetched.content_type.split(";", 1)[0].strip().lower()
    if media in HTML_TYPES:
        return True
    start = (text if text is not None else fetched.body[:512].decode("utf-8", errors="replace")).lstrip()[:64].lower()
    return media in ("", "text/plain") and start.startswith(("<!doctype html", "<html"))


def _decode(fetched: Fetched) -> str:
    if b"\x00" in fetched.body[:4096]:
        raise InvalidContentError(f"{fetched.url} is binary, not documentation.", _HINT)
    if is_html(fetched):  # its HTTP header's charset, else its own declaration (<meta charset>...)
        return html_text(fetched.body, fetched.content_type)
    match = re.search(r"charset=([\w.-]+)", fetched.content_type, re.IGNORECASE)
    try:
        return fetched.body.decode(match.group(1) if match else "utf-8-sig", errors="replace")
    except LookupError:
        return fetched.body.decode("utf-8", errors="replace")


def _url_title(url: str) -> str:
    path = urlsplit(url).path.rstrip("/")
    return path.rsplit("/", 1)[-1] or urlsplit(url).hostname or url
