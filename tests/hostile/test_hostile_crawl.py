"""A hostile documentation site on loopback against the site crawler: links that climb out of the scope or past
robots.txt by their spelling, a robots.txt that is huge or redirects to a private address."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hostile_site import Behaviour, HostileSite, lying_length, response_head, whole

from docs_mcp.indexer.sources.errors import CrawlError
from docs_mcp.indexer.sources.web.crawl_store import PAGE, CrawlStore
from docs_mcp.indexer.sources.web.crawler import CrawlLimits, SiteCrawler
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy

LIB = "hostile/site"
HTML = "text/html; charset=utf-8"
ROBOTS = b"User-agent: *\nDisallow: /private/\nDisallow: /docs/secret/\n"


def redirect(location: str) -> Behaviour:
    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(response_head("302 Found", "text/plain", 0, extra=f"Location: {location}\r\n"))

    return send


def page(title: str, *links: str) -> bytes:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return f"<html><body><h1>{title}</h1><p>{title} explains how Skyhook retries requests.</p><ul>{anchors}</ul></body></html>".encode()


def crawl(
    site: HostileSite, tmp_path: Path, start: str = "/docs/index.html", *, also: frozenset[str] = frozenset()
) -> CrawlStore:
    policy = FetchPolicy(allowed_domains=frozenset({"127.0.0.1"}) | also, allow_loopback=True)
    store = CrawlStore(tmp_path / "sites.sqlite")
    fetcher = Fetcher(policy, delays=())
    try:
        SiteCrawler(fetcher, store, CrawlLimits(rate=1000.0, max_pages=50)).crawl(LIB, site.url(start))
    finally:
        fetcher.close()
    return store


def test_links_that_climb_out_by_their_spelling_are_judged_where_they_lead(
    hostile: HostileSite, tmp_path: Path
) -> None:
    # Each href reads as under /docs/ and past robots.txt, yet a server resolves it to /private/ or /docs/secret/:
    # the crawler checked the raw spelling and fetched the resolved one.
    base = hostile.base
    climbing = [
        f"{base}/docs/../private/x.html", f"{base}/docs/sub/../secret/y.html", f"{base}/docs/%2e%2e/private/z.html",
        f"{base}/docs/.%2E/private/w.html", f"{base}/docs//secret/v.html", f"{base}/docs\\..\\private\\u.html",
        f"{base}/docs/..%2fprivate/t.html", f"{base}/docs/sub/%2E/../secret/s.html",
    ]  # fmt: skip
    hostile.route("/robots.txt", whole(ROBOTS, "text/plain"))
    hostile.route(
        "/docs/index.html", whole(page("Start", *climbing, "guide.html", "sub/../guide.html", "./guide.html"), HTML)
    )
    hostile.route("/docs/guide.html", whole(page("Guide"), HTML))
    for path in ("/private/x.html", "/docs/secret/y.html", "/private/z.html", "/private/w.html", "/docs/secret/v.html"):
        hostile.route(path, whole(page("Secret"), HTML))
    store = crawl(hostile, tmp_path)
    requested = [line.split(" ")[1] for line in hostile.requests]
    assert not [path for path in requested if "private" in path or "secret" in path], requested
    assert requested.count("/docs/guide.html") == 1  # three spellings, one URL, one request
    assert {stored.url for stored in store.pages(LIB)} == {f"{base}/docs/index.html", f"{base}/docs/guide.html"}
    rows = store._all("SELECT url, state FROM urls WHERE library_id = ?", (LIB,))  # noqa: SLF001 - the test reads the file
    assert all(".." not in url and "\\" not in url and "//" not in url.split("://", 1)[1] for url, _ in rows)
    assert ("/docs/secret/y.html" in {url.removeprefix(base) for url, _ in rows}) and all(
        state != PAGE for url, state in rows if "secret" in url or "private" in url
    )


def test_a_url_an_older_crawl_queued_in_its_raw_spelling_is_crawled_in_normal_form(
    hostile: HostileSite, tmp_path: Path
) -> None:
    # A crawl interrupted before URLs were normalised left this in the store; resuming it must not fetch it as spelled.
    hostile.route("/robots.txt", whole(ROBOTS, "text/plain"))
    hostile.route("/docs/index.html", whole(page("Start"), HTML))
    hostile.route("/docs/guide.html", whole(page("Guide"), HTML))
    store = CrawlStore(tmp_path / "sites.sqlite")
    store.begin(LIB, hostile.url("/docs/index.html"), hostile.url("/docs/"), ROBOTS.decode())
    store.enqueue(
        LIB,
        [hostile.url("/docs/index.html"), hostile.url("/docs/../private/x.html"), hostile.url("/docs/a/../guide.html")],
        50,
    )
    store.close()
    store = crawl(hostile, tmp_path)
    requested = [line.split(" ")[1] for line in hostile.requests]
    assert "/private/x.html" not in requested and requested.count("/docs/guide.html") == 1
    assert {stored.url for stored in store.pages(LIB)} == {
        hostile.url("/docs/index.html"),
        hostile.url("/docs/guide.html"),
    }


def test_a_robots_txt_over_the_size_limit_stops_the_crawl_and_says_so(hostile: HostileSite, tmp_path: Path) -> None:
    hostile.route("/robots.txt", lying_length(6 * 2**20, b"User-agent: *\nDisallow: /private/\n"))
    hostile.route("/docs/index.html", whole(page("Start"), HTML))
    with pytest.raises(CrawlError) as refused:
        crawl(hostile, tmp_path)
    assert refused.value.message == (
        f"The site's robots.txt ({hostile.url('/robots.txt')}) is larger than 5 MiB, the most docs-mcp reads of it; docs-mcp does not "
        "crawl a site whose rules it cannot read whole."
    )
    assert "trim their robots.txt" in refused.value.hint and hostile.hits("/docs/index.html") == 0


def test_a_robots_txt_redirected_to_a_private_address_stops_the_crawl_and_says_why(
    hostile: HostileSite, tmp_path: Path
) -> None:
    # 10.0.0.1 is on the allowlist here, so the private-address check is what refuses it (before any connection).
    hostile.route("/robots.txt", redirect("http://10.0.0.1/robots.txt"))
    hostile.route("/docs/index.html", whole(page("Start"), HTML))
    with pytest.raises(CrawlError) as refused:
        crawl(hostile, tmp_path, also=frozenset({"10.0.0.1"}))
    message = refused.value.message
    assert message.startswith(
        f"The site's robots.txt ({hostile.url('/robots.txt')}) redirects to http://10.0.0.1/robots.txt, which docs-mcp refuses ("
    )
    assert "private" in message and message.endswith("without its rules the site is not crawled.")
    assert "public addresses" in refused.value.hint and hostile.hits("/docs/index.html") == 0


def test_a_redirect_to_a_page_robots_txt_disallows_is_not_followed(hostile: HostileSite, tmp_path: Path) -> None:
    # The redirect's target was requested as the server wrote it; robots.txt was asked only about the page that redirected.
    hostile.route("/robots.txt", whole(ROBOTS, "text/plain"))
    hostile.route("/docs/index.html", whole(page("Start", "moved.html", "spelled.html", "fine.html"), HTML))
    hostile.route("/docs/moved.html", redirect("/private/x.html"))
    hostile.route("/docs/spelled.html", redirect(hostile.url("/docs/%2e%2e/docs/secret/y.html")))
    hostile.route("/docs/fine.html", redirect("guide.html"))
    hostile.route("/docs/guide.html", whole(page("Guide"), HTML))
    for path in ("/private/x.html", "/docs/secret/y.html", "/docs/%2e%2e/docs/secret/y.html"):
        hostile.route(path, whole(page("Secret"), HTML))
    store = crawl(hostile, tmp_path)
    requested = [line.split(" ")[1] for line in hostile.requests]
    assert not [path for path in requested if "private" in path or "secret" in path], requested
    notes = dict(store._all("SELECT url, note FROM urls WHERE library_id = ?", (LIB,)))  # noqa: SLF001 - the test reads the file
    assert (
        notes[hostile.url("/docs/moved.html")]
        == f"redirects to {hostile.url('/private/x.html')}, which robots.txt disallows"
    )
    assert (
        hostile.url("/docs/fine.html") in {stored.url for stored in store.pages(LIB)}
        and "/docs/guide.html" in requested
    )  # allowed: followed
