"""Two versions of one package side by side in one real index, through a real `docs-mcp serve`: each answers from
its own documentation, the library's base ID answers from its default version and says so, a version the index does
not hold is refused rather than substituted, and every answer carries its provenance."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_session import McpSession, serve_over_stdio

OLD, NEW, MS = "pypi/tomli/v1.2.3", "pypi/tomli/v2.0.1", "npm/ms/v2.1.3"
TOPIC = "parse_float illegal types"


@pytest.fixture(scope="module")
def server(versions_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    with serve_over_stdio(versions_index, tmp_path_factory.mktemp("logs") / "server.log") as session:
        yield session


def test_two_versions_answer_differently_where_their_docs_differ(server: McpSession) -> None:
    old = server.json("get_docs", {"libraries": [OLD], "topic": TOPIC, "max_tokens": 800})
    new = server.json("get_docs", {"libraries": [NEW], "topic": TOPIC, "max_tokens": 800})
    assert "Parsing floats into an illegal type results in undefined behavior" in old["content"]
    assert "A `ValueError` will be raised if `parse_float` produces illegal types" in new["content"]
    assert "ValueError will be raised" not in old["content"] and "undefined behavior" not in new["content"]
    assert {c["provenance"]["version"] for c in old["chunks"]} == {"1.2.3"}
    assert {c["provenance"]["version"] for c in new["chunks"]} == {"2.0.1"}
    assert f"(Library: {OLD})" in old["content"]  # the delimiter of every packed chunk names the version


def test_the_base_id_answers_from_the_newest_version_and_says_which(server: McpSession) -> None:
    answer = server.json("get_docs", {"libraries": ["pypi/tomli"], "topic": TOPIC, "max_tokens": 800})
    assert answer["libraries"] == [NEW] and answer["resolved_versions"] == {"pypi/tomli": NEW}
    assert "A `ValueError` will be raised" in answer["content"]
    assert server.json("get_docs", {"libraries": ["/pypi/tomli@1.2.3"], "topic": TOPIC, "max_tokens": 800})[
        "libraries"
    ] == [OLD]


def test_a_version_not_indexed_is_refused_with_the_versions_there_are(server: McpSession) -> None:
    for tool, arguments in (
        ("get_docs", {"libraries": ["pypi/tomli/v2.5.0"], "topic": "load"}),
        ("get_library_info", {"library_id": "pypi/tomli/v2.5.0"}),
    ):
        shape = server.error_shape(tool, arguments)
        assert shape["code"] == "VERSION_NOT_FOUND"
        assert "indexed at 2.0.1, 1.2.3, not at version 2.5.0" in shape["message"]
        assert "docs-mcp add pypi:tomli==2.5.0" in shape["suggestion"]


def test_resolve_library_lists_the_versions_and_the_one_it_would_use(server: McpSession) -> None:
    (result,) = [
        r for r in server.json("resolve_library", {"query": "tomli"})["results"] if r.get("base_id") == "pypi/tomli"
    ]
    assert result["library_id"] == NEW and result["default_version"] == "2.0.1"
    assert [v["library_id"] for v in result["versions"]] == [NEW, OLD]


def test_search_docs_filters_by_version_and_otherwise_searches_default_versions(server: McpSession) -> None:
    schema = server.input_schema("search_docs")["properties"]["library"]["enum"]
    assert {"pypi/tomli", OLD, NEW, "npm/ms", MS} <= set(schema)
    old = server.call("search_docs", {"query": "text file objects deprecated", "library": OLD})
    hits = old.structured_content["hits"]
    assert (
        hits
        and {h["provenance"]["library_id"] for h in hits} == {OLD}
        and old.structured_content["searched_libraries"] == [OLD]
    )
    assert all(h["filepath"].startswith(f"{OLD}/") for h in hits)
    anywhere = server.call("search_docs", {"query": "TOML parser illegal types"}).structured_content
    assert anywhere["searched_libraries"] == [MS, NEW]
    assert not any(
        h["filepath"].startswith(f"{OLD}/") for h in anywhere["hits"]
    )  # the older version answers only when named
    base = server.call("search_docs", {"query": "illegal types", "library": "pypi/tomli"}).structured_content
    assert base["searched_libraries"] == [NEW] and all(h["filepath"].startswith(f"{NEW}/") for h in base["hits"])


def test_every_answer_carries_its_provenance_and_the_text_of_search_stays_the_contracts(server: McpSession) -> None:
    result = server.call("search_docs", {"query": "parse_float", "library": NEW})
    text_hits = __import__("json").loads(result.content[0].text)["hits"]
    assert all(
        "provenance" not in hit for hit in text_hits
    )  # search_docs's hit shape (corpus/guide/search-docs.md), unchanged
    provenance = result.structured_content["hits"][0]["provenance"]
    assert result.structured_content["hits"][0]["passage"]  # beside the passage and tokens every hit carries
    expanded = server.call(
        "search_docs_expanded", {"query": "parse_float", "library": NEW, "keywords": "ValueError illegal types"}
    )
    assert expanded.structured_content["hits"][0]["provenance"]["version"] == "2.0.1"
    assert provenance["library_id"] == NEW and provenance["version"] == "2.0.1"
    assert provenance["source_url"].endswith(
        "tomli-2.0.1.tar.gz#PKG-INFO"
    )  # the long description of exactly that release
    assert provenance["revision"] == "sha256:de526c12914f0c550d15924c62d72abc48d6fe7364aa87328337a31007fe8a4f"
    assert provenance["fetched_at"] and provenance["indexed_at"]
    page = server.json("read_page", {"path": f"{NEW}/README.md", "max_lines": 5})
    assert page["version"] == "2.0.1" and page["provenance"] == provenance
    old_page = server.json("read_page", {"path": "README.md", "library_id": "pypi/tomli@1.2.3", "max_lines": 3})
    assert old_page["version"] == "1.2.3" and old_page["provenance"]["source_url"].endswith(
        "tomli-1.2.3.tar.gz#PKG-INFO"
    )
    info = server.json("get_library_info", {"library_id": "pypi/tomli"})
    assert info["library_id"] == NEW and info["stale_pages"] == 0
    assert info["sources"] == [{"kind": "archive", "url": provenance["source_url"].split("#")[0], "revision": provenance["revision"],
                                "fetched_at": provenance["fetched_at"]}]  # fmt: skip
    assert info["package"]["license"] == "MIT" and info["package"]["latest"] == "2.5.0"


def test_the_health_resource_shows_each_librarys_version_sources_and_stale_pages(server: McpSession) -> None:
    import json

    contents = server.run(server.client.read_resource, "docs-mcp://health").contents[0].text
    libraries = {lib["library_id"]: lib for lib in json.loads(contents)["libraries"]}
    assert set(libraries) == {OLD, NEW, MS}
    assert (
        libraries[MS]["version"] == "2.1.3"
        and libraries[MS]["sources"][0]["kind"] == "archive"
        and libraries[MS]["stale_pages"] == 0
    )
