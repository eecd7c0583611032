"""SourceService over a real index: TOC, JIT indexing then search, cache hit/stale/refresh, outages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_files import write_corpus
from skyhook import LLMS_TXT_BODY, SKYHOOK, serve_skyhook, service, skyhook_library

from docs_mcp.indexer import build_index, list_libraries
from docs_mcp.indexer.libraries.spec import requested_spec
from docs_mcp.indexer.sources.errors import SourceUnavailableError, UrlNotAllowedError
from docs_mcp.indexer.sources.service import Freshness, SourceService
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.tools.search_docs import search_docs

LOCAL = {
    "index.md": "# Acme CLI\n\nAcme is a command-line tool for deployments.\n\n## Deploy\n\nRun acme deploy to ship a build.\n"
}


@pytest.fixture
def index(tmp_path: Path) -> Path:
    """An index with one local library, acme/cli."""
    docs = write_corpus(tmp_path / "acme", LOCAL)
    out = tmp_path / "index"
    build_index(docs, out, library=requested_spec(docs, "acme/cli", name="Acme CLI"))
    return out


@pytest.fixture
def svc(site, index: Path) -> Iterator[SourceService]:
    """A service over ``index`` with Skyhook (TTL 1 h) added."""
    service_ = service(index)
    service_.add(skyhook_library(serve_skyhook(site), ttl_hours=1))
    yield service_
    service_.close()


def read_and_index(svc: SourceService, url: str) -> None:
    svc.read_url(url)
    assert svc.wait_idle(60)


def search(index: Path, query: str) -> list[str]:
    hits = json.loads(search_docs(LiveIndex(index).current(), {"query": query, "limit": 3}, "hybrid"))["hits"]
    return [hit["chunk_id"] for hit in hits]


def catalog(index: Path) -> dict:
    return json.loads((index / "metadata.json").read_text())["libraries"]


def test_adding_an_llms_txt_indexes_its_toc_and_keeps_the_other_libraries(site, index):
    url = serve_skyhook(site)
    svc = service(index)
    llms = svc.add(skyhook_library(url))
    assert (llms.title, llms.sections) == ("Skyhook", ["Guides", "Reference"])
    entry = catalog(index)[SKYHOOK]
    assert entry["origin"] == "llms-txt" and entry["llms_txt"] == url
    assert [(t["path"], t["section"], t["url"]) for t in entry["toc"]] == [
        ("skyhook/skyhook/guides/retries.md", "Guides", site.url("/docs/guides/retries.md")),
        ("skyhook/skyhook/guides/webhooks.md", "Guides", site.url("/docs/guides/webhooks.html")),
        ("skyhook/skyhook/reference/client.md", "Reference", site.url("/docs/reference/client.md")),
    ]
    assert sorted(lib.library_id for lib in list_libraries(index)) == ["acme/cli", SKYHOOK]
    assert search(index, "acme deploy")[0] == "acme/cli/index.md#acme-cli/deploy"
    svc.close()


def test_a_page_read_by_url_is_indexed_in_the_background_then_found_by_search(site, index, svc):
    assert "skyhook/skyhook/guides/retries.md#retries/idempotency-keys" not in search(
        index, "idempotency key retried POST"
    )
    page = svc.read_url(site.url("/docs/guides/retries.md"))
    assert (page.library_id, page.path, page.title, page.cached, page.stale) == (
        SKYHOOK,
        "skyhook/skyhook/guides/retries.md",
        "Retries",
        False,
        False,
    )
    assert svc.wait_idle(60)
    assert (
        search(index, "idempotency key retried POST")[0] == "skyhook/skyhook/guides/retries.md#retries/idempotency-keys"
    )
    html = svc.read_url(site.url("/docs/guides/webhooks.html"))
    assert html.content.startswith("# Webhooks\n\nSkyhook signs every webhook delivery")
    assert svc.wait_idle(60)
    assert search(index, "verify webhook HMAC signature")[0].startswith("skyhook/skyhook/guides/webhooks.md#webhooks")


def test_a_cached_page_is_served_without_a_request_and_a_stale_one_revalidated(site, svc):
    page_url = site.url("/docs/guides/retries.md")
    read_and_index(svc, page_url)
    assert svc.read_url(page_url).cached and len(site.hits("/docs/guides/retries.md")) == 1
    now = [svc.cache.clock() + 2 * 3600]
    svc.cache.clock = lambda: now[0]
    stale = svc.read_url(page_url)
    assert (stale.cached, stale.stale, stale.warning) == (True, True, None)
    assert svc.wait_idle(60)
    assert (
        site.hits("/docs/guides/retries.md")[-1].headers["if-none-match"] == '"r1"'
    )  # a conditional GET, answered 304
    assert svc.read_url(page_url).stale is False


def test_a_source_outage_serves_the_stale_copy_with_a_warning(site, svc):
    page_url = site.url("/docs/reference/client.md")
    read_and_index(svc, page_url)
    site.routes["/docs/reference/client.md"].failures = 99
    svc.cache.clock = lambda: 4_000_000_000.0
    assert svc.read_url(page_url).stale
    svc.wait_idle(60)
    again = svc.read_url(page_url)
    assert again.stale and again.content.startswith("# Client")
    assert again.warning == (
        f"The source could not be reached at the last refresh ({page_url} could not be fetched after 3 attempts: HTTP 503.); "
        "this copy may be outdated."
    )
    with pytest.raises(SourceUnavailableError, match="after 3 attempts: HTTP 503"):
        site.serve("/docs/new.md", "# New\n\nwords words words words", failures=99)
        svc.read_url(site.url("/docs/new.md"))


def test_freshness_says_when_pages_are_past_the_ttl_and_why_a_refresh_failed(site, svc):
    page_url = site.url("/docs/reference/client.md")
    read_and_index(svc, page_url)
    assert svc.freshness(SKYHOOK) == Freshness(stale=False, last_error="")
    site.routes["/docs/reference/client.md"].failures = 99
    svc.cache.clock = lambda: 4_000_000_000.0
    assert svc.freshness(SKYHOOK) == Freshness(stale=True, last_error="")  # due, not yet tried
    svc.read_url(page_url)
    svc.wait_idle(60)
    assert svc.freshness(SKYHOOK) == Freshness(
        stale=True, last_error=f"{page_url} could not be fetched after 3 attempts: HTTP 503."
    )


def test_refresh_revalidates_and_reindexes_what_changed(site, index, svc):
    read_and_index(svc, site.url("/docs/guides/retries.md"))
    site.serve(
        "/docs/guides/retries.md",
        "# Retries\n\nSkyhook now retries with a circuit breaker after five failures.\n",
        etag='"r2"',
    )
    outcomes = svc.refresh(SKYHOOK)
    assert [(o.url.removeprefix(site.base), o.status) for o in outcomes] == [
        ("/docs/llms.txt", "unchanged"),
        ("/docs/guides/retries.md", "updated"),
    ]
    assert search(index, "circuit breaker after five failures")[0].startswith("skyhook/skyhook/guides/retries.md#")


def test_urls_off_the_allowlist_are_refused_before_any_request(site, index):
    svc = service(index)
    with pytest.raises(UrlNotAllowedError, match="evil.example.org"):
        svc.read_url("https://evil.example.org/steal")
    with pytest.raises(UrlNotAllowedError):
        svc.read_url("http://169.254.169.254/latest/meta-data/")
    svc.close()


def test_get_docs_picks_toc_pages_by_topic(site, index, svc):
    assert svc.pages_for_topic(SKYHOOK, "webhook signatures HMAC") == [site.url("/docs/guides/webhooks.html")]
    assert svc.ensure_pages(SKYHOOK, svc.pages_for_topic(SKYHOOK, "client options")) == []
    assert search(index, "Client base_url timeout retries")[0].startswith("skyhook/skyhook/reference/client.md")
    assert svc.pages_for_topic(SKYHOOK, "client options") == []  # indexed now


def test_the_cache_is_created_on_first_use_only_and_a_broken_one_is_reported(tmp_path: Path):
    svc = service(tmp_path / "index")
    assert not (tmp_path / "index" / "sources").exists()  # a server that reads no remote page writes nothing
    svc.close()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    broken = service(tmp_path / "index", DOCS_MCP_SOURCES_CACHE=str(blocker / "cache.sqlite"))
    with pytest.raises(SourceUnavailableError, match="cannot be opened") as caught:
        broken.cache  # noqa: B018 - the property opens it
    assert caught.value.hint == "Set DOCS_MCP_SOURCES_CACHE to a writable file for the server."
    broken.close()


def test_a_stale_toc_is_refreshed_in_the_background_when_the_library_is_used(site, index, svc):
    site.serve(
        "/docs/llms.txt",
        LLMS_TXT_BODY + "- [Streaming](/docs/guides/streaming.md): Stream large responses\n",
        etag='"l2"',
    )
    assert svc.ensure_library(SKYHOOK) is False  # fresh: nothing to do
    svc.cache.clock = lambda: 4_000_000_000.0
    assert svc.ensure_library(SKYHOOK) is False  # answered from the index at once...
    assert svc.wait_idle(60)  # ...while the llms.txt is revalidated and the library re-indexed
    assert [t["title"] for t in catalog(index)[SKYHOOK]["toc"]] == ["Retries", "Webhooks", "Client", "Streaming"]
