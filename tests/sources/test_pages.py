"""llms.txt parsing, HTML to markdown, content refusal, page paths and the page cache."""

from __future__ import annotations

import hashlib

import pytest

from docs_mcp.indexer.sources.errors import InvalidContentError, LlmsTxtNotFoundError
from docs_mcp.indexer.sources.known_libraries import load_registry
from docs_mcp.indexer.sources.llms_txt_parse import parse_llms_txt
from docs_mcp.indexer.sources.web.convert import to_markdown
from docs_mcp.indexer.sources.web.fetch import Fetched
from docs_mcp.indexer.sources.web.page_cache import CachedPage, PageCache
from docs_mcp.indexer.sources.web.paths import MAX_NAME_BYTES, page_path, page_paths

LLMS = """# Skyhook

> Skyhook is an HTTP client with retries and webhooks.

Some notes that are not links.

- [Quickstart](quickstart.md): Install and make a first request

## Guides

- [Retries](https://docs.skyhook.test/guides/retries.md): Backoff, jitter and idempotency
- [Webhooks](/guides/webhooks.html)

## Optional

* [Changelog](https://changes.skyhook.test/log): Every release
"""

HTML = """<!doctype html><html><head><title>Webhooks - Skyhook</title><script>track()</script></head>
<body><nav><a href="/">Home</a> <a href="/guides">Guides</a></nav>
<main><h1>Webhooks</h1><p>Skyhook signs every <b>webhook</b> with an HMAC header.</p>
<h2>Verify</h2><pre><code>skyhook.verify(body, header)</code></pre><ul><li>Reject old timestamps</li></ul></main>
<footer>Copyright Skyhook</footer></body></html>"""


def fetched(
    body: str | bytes, content_type: str, url: str = "https://docs.skyhook.test/guides/webhooks.html"
) -> Fetched:
    return Fetched(url, 200, body.encode() if isinstance(body, str) else body, content_type, "", "")


def test_llms_txt_gives_title_summary_sections_and_absolute_urls():
    parsed = parse_llms_txt(LLMS, "https://docs.skyhook.test/llms.txt")
    assert (parsed.title, parsed.summary) == ("Skyhook", "Skyhook is an HTTP client with retries and webhooks.")
    assert [e.as_json() for e in parsed.entries] == [
        {
            "section": "Overview",
            "title": "Quickstart",
            "url": "https://docs.skyhook.test/quickstart.md",
            "description": "Install and make a first request",
        },
        {
            "section": "Guides",
            "title": "Retries",
            "url": "https://docs.skyhook.test/guides/retries.md",
            "description": "Backoff, jitter and idempotency",
        },
        {
            "section": "Guides",
            "title": "Webhooks",
            "url": "https://docs.skyhook.test/guides/webhooks.html",
            "description": "",
        },
        {
            "section": "Optional",
            "title": "Changelog",
            "url": "https://changes.skyhook.test/log",
            "description": "Every release",
        },
    ]
    assert parsed.sections == ["Overview", "Guides", "Optional"]


def test_a_page_that_is_not_an_llms_txt_is_refused():
    with pytest.raises(LlmsTxtNotFoundError, match="is not an llms.txt"):
        parse_llms_txt("just some words\nand more", "https://docs.skyhook.test/llms.txt")


def test_html_becomes_markdown_of_its_main_content():
    page = to_markdown(fetched(HTML, "text/html; charset=utf-8"))
    assert page.title == "Webhooks"
    assert page.markdown == (
        "# Webhooks\n\nSkyhook signs every **webhook** with an HMAC header.\n\n## Verify\n\n```\nskyhook.verify(body, header)\n```\n\n- Reject old timestamps\n"
    )


def test_markdown_is_kept_as_written():
    page = to_markdown(fetched("# Retries\r\n\r\nBackoff doubles each time, up to a cap.", "text/markdown"))
    assert (page.title, page.markdown) == ("Retries", "# Retries\n\nBackoff doubles each time, up to a cap.\n")


@pytest.mark.parametrize(
    ("body", "content_type", "words"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "image/png", "binary"),
        (b"%PDF-1.7 some words here and there", "application/pdf", "serves 'application/pdf'"),
        (b'{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}', "application/json", "serves 'application/json'"),
        (b"<html><body><nav>Home</nav></body></html>", "text/html", "no documentation text"),
        (b"\x00\x01\x02 binary with words in it", "text/plain", "binary"),
    ],
)
def test_what_is_not_documentation_is_refused(body, content_type, words):
    with pytest.raises(InvalidContentError, match=words):
        to_markdown(fetched(body, content_type))


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://docs.skyhook.test/llms.txt", "llms.md"),
        ("https://docs.skyhook.test/guides/retries.md", "guides/retries.md"),
        ("https://docs.skyhook.test/guides/webhooks.html", "guides/webhooks.md"),
        ("https://docs.skyhook.test/guides/", "guides/index.md"),
        ("https://docs.skyhook.test/api/Client", "api/Client.md"),
        ("https://changes.skyhook.test/log", "changes.skyhook.test/log.md"),
        ("https://docs.skyhook.test/search?q=a", "search-edf02da0.md"),
        ("https://docs.skyhook.test/a%20b/../c.md", "a-20b/_/c.md"),
    ],
)
def test_page_paths_follow_the_llms_txt_folder(url, path):
    assert page_path(url, "https://docs.skyhook.test/llms.txt") == path


def test_urls_that_read_as_one_path_each_get_their_own():
    llms = "https://docs.skyhook.test/llms.txt"
    urls = [
        "https://docs.skyhook.test/guide.html",
        "https://docs.skyhook.test/guide.md",  # spells guide.md exactly: keeps it
        "https://docs.skyhook.test/Guide",
        "https://docs.skyhook.test/a b.md",
        "https://docs.skyhook.test/a-b.md",
        "https://docs.skyhook.test/llms.md",  # would shadow the llms.txt's own document
        "https://docs.skyhook.test/other.html",
    ]
    paths = page_paths(urls, llms)
    assert paths == {
        llms: "llms.md",
        "https://docs.skyhook.test/guide.md": "guide.md",
        "https://docs.skyhook.test/guide.html": "guide-" + sha8("https://docs.skyhook.test/guide.html") + ".md",
        "https://docs.skyhook.test/Guide": "Guide-" + sha8("https://docs.skyhook.test/Guide") + ".md",
        "https://docs.skyhook.test/a-b.md": "a-b.md",
        "https://docs.skyhook.test/a b.md": "a-b-" + sha8("https://docs.skyhook.test/a b.md") + ".md",
        "https://docs.skyhook.test/llms.md": "llms-" + sha8("https://docs.skyhook.test/llms.md") + ".md",
        "https://docs.skyhook.test/other.html": "other.md",  # no clash: the plain name
    }
    assert page_paths(reversed(urls), llms) == paths  # the order given does not matter


def test_over_long_url_segments_make_file_names_a_file_system_takes(tmp_path):
    # A file name takes at most 255 bytes: one over-long link used to fail the write of the whole library.
    llms = "https://docs.skyhook.test/llms.txt"
    folder, long_a, long_b = "f" * 300, "a" * 250 + "x", "a" * 250 + "y"
    paths = page_paths(
        [f"https://docs.skyhook.test/{folder}/{long_a}.html", f"https://docs.skyhook.test/{folder}/{long_b}.html"], llms
    )
    written = [path for url, path in paths.items() if url != llms]
    assert len(set(written)) == 2 and all(path.endswith(".md") for path in written)
    assert all(len(segment) <= MAX_NAME_BYTES for path in written for segment in path.split("/"))
    assert all(
        path.split("/")[0].startswith("f" * (MAX_NAME_BYTES - 9)) for path in written
    )  # the start stays readable
    for path in written:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("# page\n", encoding="utf-8")
    stem = "b" * MAX_NAME_BYTES
    assert (
        page_path(f"https://docs.skyhook.test/{stem}.md", llms)
        == stem[: MAX_NAME_BYTES - 12] + "-" + sha8(stem + ".md") + ".md"
    )


def test_a_page_where_another_needs_a_folder_gets_a_name_of_its_own(tmp_path):
    # guide -> guide.md and guide.md/install -> guide.md/install.md: a file where a folder must go failed the write.
    llms = "https://docs.skyhook.test/llms.txt"
    urls = [
        "https://docs.skyhook.test/guide",
        "https://docs.skyhook.test/guide.md/install",
        "https://docs.skyhook.test/guide.md/index.md",
    ]
    paths = page_paths(urls, llms)
    assert paths["https://docs.skyhook.test/guide"] == "guide.md"
    assert paths["https://docs.skyhook.test/guide.md/install"] == "guide.md-2/install.md"
    assert (
        paths["https://docs.skyhook.test/guide.md/index.md"] == "guide.md-2/index.md"
    )  # one folder for the pages under it
    for path in paths.values():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("# page\n", encoding="utf-8")
    assert page_paths(reversed(urls), llms) == paths


def sha8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def test_the_cache_keeps_pages_on_disk_behind_a_memory_lru(tmp_path):
    now = [1000.0]
    cache = PageCache(tmp_path / "cache.sqlite", memory_entries=1, clock=lambda: now[0])
    first = cache.put(CachedPage("https://a.test/1.md", "a/b", "One", "# One\n", etag='"1"', fetched_at=now[0]))
    cache.put(CachedPage("https://a.test/2.md", "a/b", "Two", "# Two\n", fetched_at=now[0]))
    assert cache.get(first.url) == first  # evicted from memory, read back from disk
    now[0] = 5000.0
    assert cache.revalidated(first).fetched_at == 5000.0
    assert cache.failed(first, "down").last_error == "down"
    cache.close()
    reopened = PageCache(tmp_path / "cache.sqlite")
    assert [p.title for p in reopened.pages_of("a/b")] == ["One", "Two"] and reopened.get(
        first.url
    ).last_error == "down"


def test_the_registry_merges_the_bundled_list_with_custom_libraries(tmp_path):
    custom = tmp_path / "custom-libraries.json"
    custom.write_text(
        '{"libraries": [{"id": "company/internal-sdk", "names": ["internal-sdk"], "displayName": "Internal SDK",'
        ' "docsUrl": "https://internal.docs.company.com/sdk", "llmsTxtUrl": "https://internal.docs.company.com/sdk/llms.txt", "ttlHours": 12},'
        ' {"id": "/vercel/next.js", "source": "context7", "displayName": "Next.js"}, {"id": "bad id"}, {"id": "x/y"}],'
        ' "allowedDomains": ["*.company.dev"]}'
    )
    registry = load_registry(custom)
    internal = registry.libraries["company/internal-sdk"]
    assert (internal.kind, internal.ttl_hours, internal.aliases) == ("llms-txt", 12.0, ("internal-sdk",))
    assert registry.libraries["vercel/next.js"].kind == "context7"
    assert "pydantic/pydantic" in registry.libraries  # bundled
    assert {"internal.docs.company.com", "*.company.dev", "docs.pydantic.dev"} <= registry.domains()
    assert [p.split(" skipped")[0].split(": ")[1] for p in registry.problems] == ["entry 'bad id'", "entry 'x/y'"]
