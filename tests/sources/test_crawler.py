"""The site crawler against a real HTTP server on loopback serving real Python documentation pages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from site_server import serve_site

from docs_mcp.indexer.sources.errors import CrawlError, UrlNotAllowedError
from docs_mcp.indexer.sources.web.crawl_store import DUPLICATE, FAILED, PAGE, SKIPPED, CrawlStore
from docs_mcp.indexer.sources.web.crawler import CrawlLimits, CrawlStep, SiteCrawler
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy

PAGES = Path(__file__).parents[1] / "indexer" / "fixtures" / "formats" / "html"
LIB = "python/docs"
LINKS = ("tutorial/appetite.html", "tutorial/copy.html", "tutorial/old.html", "tutorial/venv.html#top", "library/private/secret.html",
         "logo.png", "https://elsewhere.example/page.html")  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(PAGES, root)
    shutil.copy(root / "tutorial" / "appetite.html", root / "tutorial" / "copy.html")  # the same page under two URLs
    (root / "library" / "private").mkdir()
    (root / "library" / "private" / "secret.html").write_text(
        "<html><body><h1>Secret</h1><p>Not for crawlers.</p></body></html>"
    )
    (root / "tutorial" / "old.html").write_text(
        '<html><head><link rel="canonical" href="venv.html"></head><body><h1>Old</h1></body></html>'
    )
    items = "".join(f'<li><a href="{href}">{href}</a></li>' for href in LINKS)
    (root / "index.html").write_text(f"<html><body><h1>Docs</h1><ul>{items}</ul></body></html>")
    return root


def robots_and_sitemap(base: str) -> dict[str, tuple[int, str, bytes]]:
    robots = f"User-agent: *\nDisallow: /library/private/\nSitemap: {base}/maps/sitemap.xml\n".encode()
    sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}/library/bisect.html</loc></url></urlset>'
    return {"/robots.txt": (200, "text/plain", robots), "/maps/sitemap.xml": (200, "application/xml", sitemap.encode())}


def crawler(
    store: CrawlStore, *, loopback: bool = True, steps: list[CrawlStep] | None = None, **limits: int
) -> SiteCrawler:
    policy = FetchPolicy(allowed_domains=frozenset({"127.0.0.1"}), allow_loopback=loopback)
    return SiteCrawler(
        Fetcher(policy, delays=()),
        store,
        CrawlLimits(rate=1000.0, **limits),
        progress=steps.append if steps is not None else None,
    )


def states(store: CrawlStore, base: str) -> dict[str, tuple[str, str]]:
    rows = store._all("SELECT url, state, note FROM urls WHERE library_id = ?", (LIB,))  # noqa: SLF001 - the test reads the file
    return {url.removeprefix(base): (state, note) for url, state, note in rows}


def test_a_crawl_follows_the_sitemap_and_links_honours_robots_and_collapses_duplicates(
    site: Path, tmp_path: Path
) -> None:
    store = CrawlStore(tmp_path / "sites.sqlite")
    with serve_site(site, robots_and_sitemap) as (base, log):
        report = crawler(store, max_pages=60).crawl(LIB, base + "/index.html")
    found = states(store, base)
    assert report.scope == base + "/" and report.from_sitemaps == 1 and not report.resumed
    assert found["/library/bisect.html"][0] == PAGE  # listed by the sitemap only
    assert found["/tutorial/venv.html"][0] == PAGE and "/tutorial/venv.html#top" not in found
    assert found["/library/private/secret.html"] == (SKIPPED, "disallowed by robots.txt")
    assert found["/tutorial/old.html"] == (DUPLICATE, f"canonical URL is {base}/tutorial/venv.html")
    duplicated = {found["/tutorial/appetite.html"][0], found["/tutorial/copy.html"][0]}
    assert duplicated == {PAGE, DUPLICATE}  # one body, indexed once
    assert "/logo.png" not in found and not any("elsewhere" in url for url in found)
    assert found["/library/array.html"][0] == FAILED  # bisect.html links to pages this site does not have
    assert "/library/private/secret.html" not in log.paths()  # never requested
    assert report.pages == sum(state == PAGE for state, _ in found.values()) >= 4


def test_a_second_crawl_of_an_unchanged_site_downloads_no_page(site: Path, tmp_path: Path) -> None:
    store = CrawlStore(tmp_path / "sites.sqlite")
    with serve_site(site, robots_and_sitemap) as (base, log):
        first = crawler(store, max_pages=60).crawl(LIB, base + "/index.html")
        requests_before = len(log.requests)
        second = crawler(store, max_pages=60).crawl(LIB, base + "/index.html")
        again = log.requests[requests_before:]
    assert first.fetched >= first.pages and second.pages == first.pages
    assert second.fetched == 0 and second.not_modified == first.fetched  # every body downloaded once now answers 304
    assert {status for path, status in again if path.endswith(".html") and "array" not in path} <= {304, 404}


def test_an_interrupted_crawl_resumes_where_it_stopped(site: Path, tmp_path: Path) -> None:
    store = CrawlStore(tmp_path / "sites.sqlite")

    def stop_after_three(step: CrawlStep) -> None:
        if step.done == 3:
            raise KeyboardInterrupt

    with serve_site(site, robots_and_sitemap) as (base, log):
        interrupted = SiteCrawler(Fetcher(FetchPolicy(frozenset({"127.0.0.1"}), allow_loopback=True), delays=()), store,
                                  CrawlLimits(rate=1000.0, concurrency=1, max_pages=60), progress=stop_after_three)  # fmt: skip
        with pytest.raises(KeyboardInterrupt):
            interrupted.crawl(LIB, base + "/index.html")
        done_before = {url for url, (state, _) in states(store, base).items() if state != "queued"}
        resumed = crawler(store, max_pages=60).crawl(LIB, base + "/index.html")
        fetched_pages = [path for path, status in log.requests if status == 200 and path.endswith(".html")]
    assert resumed.resumed and resumed.pages >= 4
    assert len(fetched_pages) == len(set(fetched_pages))  # nothing fetched twice
    assert done_before and all(states(store, base)[url][0] != "queued" for url in done_before)


def test_the_page_cap_bounds_what_a_crawl_knows(site: Path, tmp_path: Path) -> None:
    store = CrawlStore(tmp_path / "sites.sqlite")
    with serve_site(site, robots_and_sitemap) as (base, _):
        report = crawler(store, max_pages=3).crawl(LIB, base + "/index.html")
    assert sum(store.counts(LIB).values()) == 3 and report.pages <= 3


def test_private_addresses_are_refused_without_the_test_switch(site: Path, tmp_path: Path) -> None:
    with serve_site(site, robots_and_sitemap) as (base, log):
        with pytest.raises(UrlNotAllowedError):
            crawler(CrawlStore(tmp_path / "sites.sqlite"), loopback=False).crawl(LIB, base + "/index.html")
    assert log.requests == []


def test_a_start_url_robots_txt_forbids_is_refused(site: Path, tmp_path: Path) -> None:
    def forbidding(base: str) -> dict[str, tuple[int, str, bytes]]:
        return {"/robots.txt": (200, "text/plain", b"User-agent: *\nDisallow: /\n")}

    with serve_site(site, forbidding) as (base, log):
        with pytest.raises(CrawlError, match="disallowed for docs-mcp by the site's robots.txt"):
            crawler(CrawlStore(tmp_path / "sites.sqlite")).crawl(LIB, base + "/index.html")
    assert log.paths() == ["/robots.txt"]


def test_an_unreadable_robots_txt_stops_the_crawl(site: Path, tmp_path: Path) -> None:
    def failing(base: str) -> dict[str, tuple[int, str, bytes]]:
        return {"/robots.txt": (503, "text/plain", b"down")}

    with serve_site(site, failing) as (base, _):
        with pytest.raises(CrawlError, match="robots.txt cannot be read"):
            crawler(CrawlStore(tmp_path / "sites.sqlite")).crawl(LIB, base + "/index.html")
