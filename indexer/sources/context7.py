"""Passthrough to a Context7-compatible HTTP API: ``GET {base}/v1/{org}/{project}?topic=&tokens=&type=txt``.

The answer is returned as the API wrote it (no local processing: the API's text is the answer). The key goes
only into the Authorization header: never into a URL, a log line or an error message.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from docs_mcp.indexer.sources.errors import InvalidContentError, RemoteNotConfiguredError
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import host_of

DEFAULT_TOKENS = 5000


class Context7Client:
    """One configured Context7-compatible API."""

    def __init__(self, base_url: str, api_key: str, fetcher: Fetcher) -> None:
        self._base = base_url.rstrip("/")
        self._key = api_key
        self._fetcher = fetcher

    def __repr__(self) -> str:  # never the key
        return f"Context7Client({self._base!r})"

    def docs(self, library_id: str, topic: str, tokens: int = DEFAULT_TOKENS) -> str:
        """The API's documentation text for ``library_id`` about ``topic``, within ``tokens``.

        Raises:
            RemoteNotConfiguredError: no base URL is configured.
            SourceUnavailableError, RemotePageNotFoundError, UrlNotAllowedError: from the fetch.
            InvalidContentError: the API answered with no text.
        """
        if not self._base:
            raise RemoteNotConfiguredError(
                "No Context7-compatible API is configured, so remote libraries cannot be read.",
                "Set DOCS_MCP_CONTEXT7_URL (and DOCS_MCP_CONTEXT7_KEY) for the server, or use a local library.",
            )
        query = {"tokens": str(tokens), "type": "txt", **({"topic": topic} if topic else {})}
        url = f"{self._base}/v1/{quote(library_id.strip('/'), safe='/.-_')}?{urlencode(query)}"
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        policy = self._fetcher.policy.allowing({host_of(self._base)})
        fetched = self._fetcher.get(url, headers=headers, policy=policy)
        text = fetched.body.decode("utf-8", errors="replace").strip()
        if not text:
            raise InvalidContentError(f"The remote API returned nothing for '{library_id}'.", "Try another topic.")
        return text
