"""The Context7-compatible passthrough: request shape, the key only in a header, errors without the key."""

from __future__ import annotations

import pytest
from docs_site import open_fetcher

from docs_mcp.indexer.sources.context7 import Context7Client
from docs_mcp.indexer.sources.errors import RemoteNotConfiguredError, RemotePageNotFoundError, SourceUnavailableError
from docs_mcp.indexer.sources.web.safety import FetchPolicy

KEY = "c7-key-that-must-never-show"


def client(base: str, key: str = KEY) -> Context7Client:
    return Context7Client(base, key, open_fetcher(FetchPolicy(allow_loopback=True, timeout=2), sleep=lambda _s: None))


def test_the_request_carries_topic_and_tokens_and_the_key_only_as_a_bearer_token(site):
    site.serve("/api/v1/vercel/next.js", "TITLE: Routing\nFolders become routes.\n", content_type="text/plain")
    answer = client(site.url("/api")).docs("/vercel/next.js", "app router", 1200)
    assert answer == "TITLE: Routing\nFolders become routes."
    request = site.requests[0]
    assert request.path == "/api/v1/vercel/next.js?tokens=1200&type=txt&topic=app+router"
    assert request.headers["authorization"] == f"Bearer {KEY}" and KEY not in request.path
    assert KEY not in repr(client(site.url("/api")))


def test_no_configured_api_is_reported_with_what_to_set():
    with pytest.raises(RemoteNotConfiguredError, match="No Context7-compatible API is configured") as caught:
        client("").docs("vercel/next.js", "routing")
    assert "DOCS_MCP_CONTEXT7_URL" in caught.value.hint


@pytest.mark.parametrize(
    ("status", "error"), [(401, SourceUnavailableError), (403, SourceUnavailableError), (404, RemotePageNotFoundError)]
)
def test_api_refusals_never_echo_the_key(site, status, error):
    site.serve("/api/v1/acme/lib", "denied", status=status, content_type="text/plain")
    with pytest.raises(error) as caught:
        client(site.url("/api")).docs("acme/lib", "x")
    assert f"answered {status}" in caught.value.message and KEY not in str(caught.value)
