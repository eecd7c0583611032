"""The site crawler's rules: robots.txt, sitemaps, URL normal form and scope, links and canonical URLs of a real page."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from docs_mcp.indexer.sources.web.paths import MAX_NAME_BYTES
from docs_mcp.indexer.sources.web.robots import MAX_CRAWL_DELAY, Robots
from docs_mcp.indexer.sources.web.site_links import in_scope, normal_url, page_links, page_path, scope_of, section_names
from docs_mcp.indexer.sources.web.sitemap import MAX_SITEMAP_BYTES, parse_sitemap

PYTHON_PAGE = Path(__file__).parents[1] / "indexer" / "fixtures" / "formats" / "html" / "library" / "bisect.html"
URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://docs.example.com/guide/</loc><lastmod>2026-01-02</lastmod></url>
  <url><loc> https://docs.example.com/api/ </loc></url>
  <url><lastmod>2026-01-03</lastmod></url>
</urlset>"""


def test_robots_rules_for_docs_mcp() -> None:
    robots = Robots("User-agent: *\nDisallow: /private/\n\nUser-agent: docs-mcp\nDisallow: /search\nCrawl-delay: 2\n"
                    "Sitemap: https://docs.example.com/sitemap.xml\n")  # fmt: skip
    assert robots.allows("https://docs.example.com/private/x")  # docs-mcp's own group applies, not *
    assert not robots.allows("https://docs.example.com/search?q=x")
    assert robots.crawl_delay == 2.0 and robots.sitemaps == ("https://docs.example.com/sitemap.xml",)
    assert Robots().allows("https://docs.example.com/anything") and Robots().crawl_delay == 0.0
    assert Robots("User-agent: *\nCrawl-delay: 3600\n").crawl_delay == MAX_CRAWL_DELAY
    assert Robots("User-agent: *\nRequest-rate: 1/5\n").crawl_delay == 5.0


def test_a_urlset_and_a_sitemap_index_plain_or_gzipped() -> None:
    sitemap = parse_sitemap(URLSET)
    assert [(p.url, p.lastmod) for p in sitemap.pages] == [
        ("https://docs.example.com/guide/", "2026-01-02"),
        ("https://docs.example.com/api/", ""),
    ]
    index = parse_sitemap(gzip.compress(b"<sitemapindex><sitemap><loc>https://x/a.xml</loc></sitemap></sitemapindex>"))
    assert index.sitemaps == ("https://x/a.xml",) and not index.pages


@pytest.mark.parametrize("body", [b"<html><body>not a sitemap</body></html>", b"<urlset><url>", b"\x1f\x8bbroken", b""])
def test_what_is_no_sitemap_gives_nothing(body: bytes) -> None:
    assert parse_sitemap(body).pages == () and parse_sitemap(body).sitemaps == ()


def test_a_decompression_bomb_gives_nothing() -> None:
    assert parse_sitemap(gzip.compress(b"<urlset>" + b" " * (MAX_SITEMAP_BYTES + 10) + b"</urlset>")).pages == ()


def test_entity_expansion_is_refused() -> None:
    entities = '<!ENTITY e0 "lol">' + "".join(
        f'<!ENTITY e{n} "{("&e" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    )
    bomb = f'<?xml version="1.0"?><!DOCTYPE urlset [{entities}]><urlset><url><loc>&e9;</loc></url></urlset>'.encode()
    assert parse_sitemap(bomb).pages == ()  # 10**9 "lol"s: expat's amplification limit refuses the document


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("HTTPS://Docs.Example.COM:443/Guide/?utm_source=x&page=2#top", "https://docs.example.com/Guide/?page=2"),
        ("http://docs.example.com", "http://docs.example.com/"),
        ("http://docs.example.com:8080/a", "http://docs.example.com:8080/a"),
        ("mailto:team@example.com", ""),
        ("javascript:void(0)", ""),
        ("http://[::1]:9/x", "http://[::1]:9/x"),
        ("http://h/docs/../private/x.html", "http://h/private/x.html"),
        ("http://h/docs/%2e%2E/private/./x.html", "http://h/private/x.html"),
        ("http://h/docs\\sub\\..\\y.html", "http://h/docs/y.html"),
        ("http://h/docs//sub///..//y.html", "http://h/docs/y.html"),
        ("http://h/docs/..%2Fprivate/x.html", "http://h/private/x.html"),
        ("http://h/a/../../../", "http://h/"),
        ("http://h/docs/sub/..", "http://h/docs/"),
        ("http://h/%7euser/caf%c3%a9 x/100%", "http://h/~user/caf%C3%A9%20x/100%25"),
    ],
)
def test_the_normal_form_of_urls(url: str, normal: str) -> None:
    assert normal_url(url) == normal


def test_a_crawl_stays_under_the_start_urls_folder() -> None:
    scope = scope_of("https://docs.example.com/3/library/index.html")
    assert scope == "https://docs.example.com/3/library/"
    assert in_scope("https://docs.example.com/3/library/os.html", scope)
    assert not in_scope("https://docs.example.com/3/tutorial/index.html", scope)
    assert not in_scope("https://docs.example.com/3/library/logo.png", scope)
    assert not in_scope("http://docs.example.com/3/library/os.html", scope)  # another scheme is another site


def test_links_of_a_real_sphinx_page() -> None:
    found = page_links(PYTHON_PAGE.read_text(encoding="utf-8"), "http://127.0.0.1:8000/library/bisect.html")
    assert (
        "http://127.0.0.1:8000/library/array.html" in found.links
        and "http://127.0.0.1:8000/genindex.html" in found.links
    )
    assert all("#" not in link for link in found.links) and len(found.links) == len(set(found.links))
    assert found.canonical == "" and not found.noindex and not found.nofollow


def test_canonical_and_robots_meta() -> None:
    html = ('<html><head><link rel="canonical" href="/en/latest/guide/"><meta name="robots" content="noindex, follow"></head>'
            '<body><a href="a.html" rel="nofollow">a</a><a href="b.html">b</a></body></html>')  # fmt: skip
    found = page_links(html, "https://docs.example.com/en/stable/guide/index.html")
    assert found.canonical == "https://docs.example.com/en/latest/guide/"
    assert found.noindex and not found.nofollow and found.links == ("https://docs.example.com/en/stable/guide/b.html",)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("http://h/3/", "index.html"),
        ("http://h/3/library/os.html", "library/os.html"),
        ("http://h/3/guide/install", "guide/install.html"),
        ("http://h/3/search.html?q=x", "search__q=x.html"),
        ("http://h/3/a%20b/c%23d.html", "a b/c_d.html"),
    ],
)
def test_page_paths_are_html_file_names_below_the_scope(url: str, path: str) -> None:
    assert page_path(url, "http://h/3/") == path


def test_long_queries_and_names_make_file_names_a_file_system_takes(tmp_path: Path) -> None:
    # A name takes at most 255 bytes: a long query folded into one (or a long name of accented letters, two bytes
    # each) failed the write of the whole site. Two long names stay two, each keeps its start and its suffix.
    urls = [f"http://h/3/search.html?q={'é' * 150}{n}" for n in range(2)] + [f"http://h/3/{'x' * 300}/page"]
    paths = [page_path(url, "http://h/3/") for url in urls]
    assert len(set(paths)) == 3 and all(path.endswith(".html") for path in paths)
    assert all(len(name.encode()) <= MAX_NAME_BYTES for path in paths for name in path.split("/"))
    assert paths[0].startswith("search__q=é") and paths[2].endswith("/page.html")
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("<p>page</p>", encoding="utf-8")


def test_sections_are_named_by_the_start_pages_navigation() -> None:
    html = '<a href="tutorial/index.html">The Tutorial</a> <a href="tutorial/x.html">Other</a> <a href="library/">Library</a> <a href="/up.html">Up</a>'
    assert section_names(html, "http://h/3/index.html", "http://h/3/") == (
        ("tutorial/**", "The Tutorial"),
        ("library/**", "Library"),
    )
