"""Fetching an llms.txt: what it refuses beyond any page's fetch (service.py fetches, caches and revalidates both).

An llms.txt URL that answers 404 is LLMS_TXT_NOT_FOUND, not a page's PAGE_NOT_FOUND; an HTML page at it (a
directory listing, a site's front page) is refused before it is converted; text that does not parse as an
llms.txt is refused before it is cached; and an llms.txt that links no page is refused before it becomes a
library of 0 pages.
"""

from __future__ import annotations

from docs_mcp.indexer.sources.errors import LlmsTxtNotFoundError, RemotePageNotFoundError
from docs_mcp.indexer.sources.llms_txt_parse import LlmsTxt, parse_llms_txt
from docs_mcp.indexer.sources.web.convert import is_html
from docs_mcp.indexer.sources.web.fetch import Fetched


def refuse_html(url: str, fetched: Fetched) -> None:
    """Refuse an HTML page served at an llms.txt URL.

    Raises:
        LlmsTxtNotFoundError: the response is HTML.
    """
    if is_html(fetched):
        raise LlmsTxtNotFoundError(
            f"{url} serves an HTML page ({fetched.content_type or 'no content type'}), not an llms.txt: a directory "
            "listing or a site's front page, not the markdown file that lists the documentation.",
            "Pass the URL of the site's llms.txt itself (usually https://SITE/llms.txt; open it in a browser: it is plain text).",
        )


def llms_txt_missing(error: RemotePageNotFoundError) -> LlmsTxtNotFoundError:
    """The error of an llms.txt URL the source says does not exist."""
    return LlmsTxtNotFoundError(error.message, "Check the llms.txt URL of the library (docs-mcp add llms-txt URL).")


def refuse_unparsable(markdown: str, url: str) -> None:
    """Refuse what is not an llms.txt before it is cached (parse_llms_txt raises LlmsTxtNotFoundError)."""
    parse_llms_txt(markdown, url)


def linked_pages(markdown: str, url: str) -> LlmsTxt:
    """The llms.txt a library is added from, refused when it links no page.

    Raises:
        LlmsTxtNotFoundError: it is no llms.txt, or lists no ``- [title](url)`` line.
    """
    llms = parse_llms_txt(markdown, url)
    if not llms.entries:
        raise LlmsTxtNotFoundError(
            f"{url} lists no pages (no '- [title](url)' lines): it would be a library of 0 pages.",
            "Pass the URL of an llms.txt that links the documentation's pages (check it in a browser).",
        )
    return llms
