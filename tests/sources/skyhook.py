"""Skyhook: a small documentation site (llms.txt, markdown and HTML pages) the source tests serve on loopback."""

from __future__ import annotations

from pathlib import Path

from docs_site import DocsSite

from docs_mcp.indexer.sources.known_libraries import LLMS_TXT, RegisteredLibrary, Registry
from docs_mcp.indexer.sources.service import SourceService
from docs_mcp.indexer.sources.source_settings import SourceSettings, source_settings

SKYHOOK = "skyhook/skyhook"
LLMS_TXT_BODY = """# Skyhook

> Skyhook is an HTTP client for Python with retries, webhooks and rate limits.

## Guides

- [Retries](/docs/guides/retries.md): Exponential backoff with jitter for failed requests
- [Webhooks](/docs/guides/webhooks.html): Verify webhook signatures with HMAC

## Reference

- [Client](/docs/reference/client.md): The Client class and its options
"""
RETRIES = """# Retries

Skyhook retries failed requests with exponential backoff.

## Backoff schedule

The first retry waits 200 milliseconds, then the wait doubles up to the cap of 30 seconds.
A jitter of up to 10 percent spreads the retries of many clients over time.

## Idempotency keys

Skyhook sends an Idempotency-Key header so a retried POST is never applied twice.
"""
WEBHOOKS = """<!doctype html><html><head><title>Webhooks</title></head><body>
<nav>Home | Guides</nav><main><h1>Webhooks</h1>
<p>Skyhook signs every webhook delivery with an HMAC-SHA256 signature in the Skyhook-Signature header.</p>
<h2>Verifying signatures</h2><p>Compute the HMAC of the raw body with your signing secret and compare in constant time.</p>
</main><footer>(c) Skyhook</footer></body></html>"""
CLIENT = """# Client

`Client(base_url, timeout=10, retries=3)` opens a connection pool to one API.

## Options

The timeout is in seconds; retries counts attempts after the first.
"""


def serve_skyhook(site: DocsSite) -> str:
    """Put Skyhook on ``site``; returns the llms.txt URL."""
    site.serve("/docs/guides/retries.md", RETRIES, etag='"r1"')
    site.serve(
        "/docs/guides/webhooks.html",
        WEBHOOKS,
        content_type="text/html; charset=utf-8",
        last_modified="Mon, 02 Nov 2026 10:00:00 GMT",
    )
    site.serve("/docs/reference/client.md", CLIENT, etag='"c1"')
    return site.serve("/docs/llms.txt", LLMS_TXT_BODY, content_type="text/plain; charset=utf-8", etag='"l1"')


def skyhook_library(llms_url: str, ttl_hours: float = 24.0) -> RegisteredLibrary:
    return RegisteredLibrary(
        SKYHOOK, "Skyhook", LLMS_TXT, llms_txt_url=llms_url, languages=("python",), ttl_hours=ttl_hours
    )


def loopback_settings(index: Path, *libraries: RegisteredLibrary, **env: str) -> SourceSettings:
    """Settings with the loopback test mode on and ``libraries`` as the registry."""
    registry = Registry({lib.library_id: lib for lib in libraries})
    return source_settings(index, {"DOCS_MCP_ALLOW_PRIVATE_FETCH": "1", **env}, registry)


def service(index: Path, *libraries: RegisteredLibrary, **env: str) -> SourceService:
    """A service that never sleeps between retries."""
    return SourceService(loopback_settings(index, *libraries, **env), delays=(0.0, 0.0))
