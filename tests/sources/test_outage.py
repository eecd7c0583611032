"""What a source outage looks like to an agent: the exact read_page answers, in-process with no retry sleeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skyhook import SKYHOOK, serve_skyhook, service, skyhook_library

from docs_mcp.indexer.sources.errors import SourceError
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.core.tool_errors import error_shape
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.tools import get_library_info, read_page
from docs_mcp.server.tools.get_library_info import parse as parse_info_args
from docs_mcp.server.tools.read_page import parse as parse_page_args


@pytest.fixture
def sources(site, tmp_path: Path):
    url = serve_skyhook(site)
    svc = service(tmp_path / "index")
    svc.add(skyhook_library(url, ttl_hours=1))
    yield Sources(svc, LiveIndex(tmp_path / "index"))
    svc.close()


def read(sources: Sources, url: str) -> dict:
    return read_page.run(sources.live.current(), parse_page_args({"url": url, "max_lines": 1}), sources)


def test_a_page_never_fetched_during_an_outage_is_source_unavailable(site, sources):
    site.serve("/docs/guides/new.md", "# New\n\nA page published during the outage.", failures=99)
    url = site.url("/docs/guides/new.md")
    with pytest.raises(SourceError) as caught:
        read(sources, url)
    assert error_shape(caught.value) == {
        "code": "SOURCE_UNAVAILABLE",
        "message": f"{url} could not be fetched after 3 attempts: HTTP 503.",
        "recoverable": True,
        "suggestion": "The source seems down; try again later (cached pages are still served).",
    }
    assert len(site.hits("/docs/guides/new.md")) == 3  # the first try and two retries


def test_a_cached_page_during_an_outage_is_served_stale_with_a_warning(site, sources):
    url = site.url("/docs/reference/client.md")
    assert read(sources, url)["stale"] is False
    sources.service.wait_idle(60)
    site.routes["/docs/reference/client.md"].failures = 99
    sources.service.cache.clock = lambda: 4_000_000_000.0  # long past the 1 h TTL
    first = read(sources, url)
    sources.service.wait_idle(60)  # the background revalidation fails (3 attempts)
    second = read(sources, url)
    shown = {k: second[k] for k in ("library_id", "content", "cached", "stale", "warning")}
    assert (first["stale"], "warning" in first) == (True, False)
    assert shown == {
        "library_id": SKYHOOK,
        "content": "# Client",
        "cached": True,
        "stale": True,
        "warning": f"The source could not be reached at the last refresh ({url} could not be fetched after 3 attempts: HTTP 503.); "
        "this copy may be outdated.",
    }


def info(sources: Sources) -> dict:
    return json.loads(get_library_info.run(sources.live.current(), parse_info_args({"library_id": SKYHOOK}), sources))


def test_get_library_info_says_when_the_library_is_stale_and_why_its_refresh_failed(site, sources):
    url = site.url("/docs/reference/client.md")
    read(sources, url)
    sources.service.wait_idle(60)
    assert (info(sources)["stale"], "warnings" in info(sources)) == (False, False)
    site.routes["/docs/reference/client.md"].failures = 99
    sources.service.cache.clock = lambda: 4_000_000_000.0  # long past the 1 h TTL
    assert (info(sources)["stale"], "warnings" in info(sources)) == (True, False)  # due, not yet tried
    read(sources, url)
    sources.service.wait_idle(60)  # the background revalidation fails (3 attempts)
    described = info(sources)
    assert described["stale"] is True and described["toc"]
    assert described["warnings"] == [
        f"The source of '{SKYHOOK}' could not be reached at the last refresh ({url} could not be fetched after 3 attempts: HTTP 503.); "
        "some of its pages may be outdated."
    ]
