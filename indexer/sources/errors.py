"""Errors of remote sources; each carries the code the tools report (corpus/guide/libraries.md#errors).

IndexerError, CodedError
└── SourceError                 code + recoverable
    ├── UrlNotAllowedError      URL_NOT_ALLOWED: scheme, allowlist, or a private/metadata address
    │   └── RedirectRefusedError    the same, for where a redirect leads (``target``)
    ├── SourceUnavailableError  SOURCE_UNAVAILABLE: network failure after the retries, no cache to serve
    │   └── CrawlError          a site that cannot be crawled: robots.txt unreadable, or it forbids the start URL
    ├── RemotePageNotFoundError PAGE_NOT_FOUND: the source answered 404/410
    ├── LlmsTxtNotFoundError    LLMS_TXT_NOT_FOUND: the llms.txt itself is missing or not an llms.txt
    ├── InvalidContentError     INVALID_CONTENT: not documentation (binary, wrong type, too large, empty)
    ├── WrongToolError          WRONG_TOOL: a remote library asked of a local tool, or the reverse
    └── RemoteNotConfiguredError REMOTE_NOT_CONFIGURED: no Context7-compatible API is configured
"""

from __future__ import annotations

from docs_mcp.errors import CodedError
from docs_mcp.indexer.errors import IndexerError
from docs_mcp.redact import redact


class SourceError(IndexerError, CodedError):
    """Base of the remote-source errors; ``code`` is what a tool's error shape says.

    Messages name URLs: a password or key in one is masked here, before any tool, log or CLI shows it.
    """

    code = "SOURCE_ERROR"

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(redact(message), redact(hint))


class UrlNotAllowedError(SourceError):
    """The URL may not be fetched: not http(s), not on the allowlist, or it reaches a private address."""

    code = "URL_NOT_ALLOWED"
    recoverable = False


class RedirectRefusedError(UrlNotAllowedError):
    """A redirect leads to a URL that may not be fetched (the message says why, as for the URL itself)."""

    def __init__(self, message: str, hint: str = "", *, target: str) -> None:
        super().__init__(message, hint)
        self.target = redact(target)


class SourceUnavailableError(SourceError):
    """The source could not be reached (after the retries) and nothing is cached."""

    code = "SOURCE_UNAVAILABLE"


class RemotePageNotFoundError(SourceError):
    """The source answered that the page does not exist."""

    code = "PAGE_NOT_FOUND"


class LlmsTxtNotFoundError(SourceError):
    """The llms.txt URL answers 404, or what it serves is not an llms.txt."""

    code = "LLMS_TXT_NOT_FOUND"
    recoverable = False


class InvalidContentError(SourceError):
    """The response is not documentation: binary, an unexpected content type, too large or empty."""

    code = "INVALID_CONTENT"
    recoverable = False


class WrongToolError(SourceError):
    """A library was asked of the tool for the other kind of library (local vs remote)."""

    code = "WRONG_TOOL"
    recoverable = False


class RemoteNotConfiguredError(SourceError):
    """get_context7_docs was called but no Context7-compatible API is configured."""

    code = "REMOTE_NOT_CONFIGURED"
    recoverable = False


class CrawlError(SourceUnavailableError):
    """A site cannot be crawled at all: its robots.txt cannot be read, or it forbids the start URL."""
