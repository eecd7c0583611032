"""The library tools over remote sources, through a real `docs-mcp serve` over stdio and a site on loopback.

One server for the module: an index with a local library (acme/cli), a custom-libraries.json
registering Skyhook (an llms.txt library on the site) and Next.js (remote, via a
Context7-compatible stub on the same site), and the loopback test mode on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_files import write_corpus
from docs_site import DocsSite
from mcp_session import McpSession, serve_over_stdio
from skyhook import SKYHOOK, serve_skyhook

from docs_mcp.indexer import build_index
from docs_mcp.indexer.libraries.spec import requested_spec

NEXT = "vercel/next.js"
KEY = "c7-secret-key-0123456789"
C7_ANSWER = "TITLE: Dynamic routes\nDESCRIPTION: Folders in [brackets] become route segments.\n"


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpSession, DocsSite, Path]]:
    root = tmp_path_factory.mktemp("remote")
    site = DocsSite()
    llms = serve_skyhook(site)
    site.serve("/api/v1/vercel/next.js", C7_ANSWER, content_type="text/plain")
    docs = write_corpus(
        root / "acme", {"index.md": "# Acme CLI\n\nAcme deploys builds.\n\n## Deploy\n\nRun acme deploy.\n"}
    )
    index = root / "index"
    build_index(docs, index, library=requested_spec(docs, "acme/cli", name="Acme CLI"))
    custom = root / "custom-libraries.json"
    custom.write_text(json.dumps({"libraries": [
        {"id": SKYHOOK, "displayName": "Skyhook", "names": ["skyhook"], "languages": ["python"], "llmsTxtUrl": llms},
        {"id": f"/{NEXT}", "source": "context7", "displayName": "Next.js", "names": ["nextjs", "next"]},
    ]}))  # fmt: skip
    env = {
        "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1",
        "DOCS_MCP_CUSTOM_LIBRARIES": str(custom),
        "DOCS_MCP_CONTEXT7_URL": site.url("/api"),
        "DOCS_MCP_CONTEXT7_KEY": KEY,
    }
    log = root / "server.log"
    try:
        with serve_over_stdio(index, log, env=env) as session:
            yield session, site, log
    finally:
        site.close()


def test_resolve_library_marks_local_and_remote_libraries_and_names_the_tool(remote):
    session, _, log = remote
    skyhook = session.json("resolve_library", {"query": "skyhook"})["results"][0]
    assert {k: skyhook[k] for k in ("library_id", "source", "tool", "indexed", "origin")} == {
        "library_id": SKYHOOK, "source": "local", "tool": "get_docs", "indexed": False, "origin": "llms-txt",
    }  # fmt: skip
    nextjs = session.json("resolve_library", {"query": "next.js"})["results"][0]
    assert {k: nextjs[k] for k in ("library_id", "source", "tool")} == {
        "library_id": NEXT,
        "source": "remote",
        "tool": "get_context7_docs",
    }
    assert nextjs["next"] == {"get_context7_docs": {"library_id": NEXT, "topic": "..."}}
    assert "DOCS_MCP_ALLOW_PRIVATE_FETCH=1: remote sources may fetch from loopback" in log.read_text()


def test_get_library_info_fetches_the_llms_txt_toc(remote):
    session, site, _ = remote
    info = session.json("get_library_info", {"library_id": SKYHOOK})
    assert (info["indexed"], info["available_sections"]) == (True, ["Guides", "Reference"])
    assert info["toc"][1] == {
        "title": "Webhooks",
        "path": "skyhook/skyhook/guides/webhooks.md",
        "description": "Verify webhook signatures with HMAC",
        "section": "Guides",
        "url": site.url("/docs/guides/webhooks.html"),
    }


def test_get_docs_fetches_pages_for_the_topic_and_search_finds_them_afterwards(remote):
    session, _, _ = remote
    docs = session.json("get_docs", {"libraries": [SKYHOOK], "topic": "verify webhook signatures HMAC"})
    assert docs["chunks"][0]["path"] == "skyhook/skyhook/guides/webhooks.md"
    assert "Skyhook-Signature header" in docs["content"]
    assert docs["stale"] is False and "warnings" not in docs  # just fetched, nothing failed
    result = session.call("search_docs", {"query": "HMAC signature of the raw body", "library": SKYHOOK})
    hits = json.loads(result.content[0].text)
    assert set(hits) == {"hits", "next_cursor", "hint"}  # the contract's shape, untouched
    assert hits["hits"][0]["filepath"] == "skyhook/skyhook/guides/webhooks.md"
    assert result.structured_content["searched_libraries"] == [SKYHOOK]
    everything = session.call("search_docs", {"query": "deploy"}).structured_content["searched_libraries"]
    assert everything == ["acme/cli", SKYHOOK]


def test_get_docs_says_which_pages_about_the_topic_could_not_be_fetched(remote):
    session, site, _ = remote
    site.routes["/docs/guides/retries.md"].failures = 99
    try:
        docs = session.json("get_docs", {"libraries": [SKYHOOK], "topic": "retries idempotency keys"})
    finally:
        site.routes["/docs/guides/retries.md"].failures = 0
    url = site.url("/docs/guides/retries.md")
    assert docs["warnings"] == [
        f"1 page(s) of '{SKYHOOK}' about this topic could not be fetched ({url}: {url} could not be fetched after 3 attempts: HTTP 503.); "
        "the answer is built without them."
    ]


def test_read_page_by_url_is_fetched_then_cached(remote):
    session, site, _ = remote
    url = site.url("/docs/reference/client.md")
    first = session.json("read_page", {"url": url, "max_lines": 2})
    assert {k: first[k] for k in ("library_id", "path", "title", "cached", "stale", "has_more", "next_offset")} == {
        "library_id": SKYHOOK, "path": "skyhook/skyhook/reference/client.md", "title": "Client",
        "cached": False, "stale": False, "has_more": True, "next_offset": 2,
    }  # fmt: skip
    again = session.json("read_page", {"url": url, "offset": 2})
    assert again["cached"] is True and again["content"].startswith("`Client(base_url")
    assert len(site.hits("/docs/reference/client.md")) == 1
    by_path = session.json(
        "read_page", {"path": "skyhook/skyhook/guides/retries.md"}
    )  # a TOC path not indexed yet: read by its URL
    assert by_path["url"] == site.url("/docs/guides/retries.md") and by_path["title"] == "Retries"


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://169.254.169.254/latest/meta-data/", "not on the allowlist"),
        ("file:///etc/passwd", "Only http and https"),
        ("https://evil.example.org/x.md", "not on the allowlist"),
    ],
)
def test_read_page_refuses_urls_off_the_allowlist(remote, url, words):
    shape = remote[0].error_shape("read_page", {"url": url})
    assert shape["code"] == "URL_NOT_ALLOWED" and words in shape["message"]


def test_get_context7_docs_passes_the_topic_through_with_the_key_in_a_header_only(remote):
    session, site, log = remote
    answer = session.json("get_context7_docs", {"library_id": NEXT, "topic": "dynamic routes", "tokens": 800})
    assert answer == {
        "library_id": NEXT,
        "topic": "dynamic routes",
        "tokens": 800,
        "source": "remote",
        "content": C7_ANSWER.strip(),
    }
    request = site.hits("/api/v1/vercel/next.js?tokens=800&type=txt&topic=dynamic+routes")[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in log.read_text()


def test_each_tool_refuses_the_other_kind_of_library_naming_the_right_tool(remote):
    session = remote[0]
    for tool, arguments in (
        ("get_docs", {"libraries": [NEXT], "topic": "routing"}),
        ("get_library_info", {"library_id": NEXT}),
    ):
        shape = session.error_shape(tool, arguments)
        assert (shape["code"], shape["message"]) == (
            "WRONG_TOOL",
            f"'{NEXT}' is not locally indexed. Use 'get_context7_docs' instead.",
        )
    shape = session.error_shape("get_context7_docs", {"library_id": "acme/cli", "topic": "deploy"})
    assert (shape["code"], shape["message"]) == (
        "WRONG_TOOL",
        "'acme/cli' is a local library. Use 'get_docs' for enhanced features.",
    )
