"""The library tools through a real `docs-mcp serve` over stdio: success and error paths of each."""

from __future__ import annotations

import json
import math

import pytest
from library_corpora import ACME, PYDANTIX, QUICKWEB

ERROR_KEYS = {"code", "message", "recoverable", "suggestion"}


# -- listing ----------------------------------------------------------------------------------------


def test_tools_are_listed_with_closed_schemas(libraries_server, snapshot) -> None:
    tools = {tool.name: tool for tool in libraries_server.run(libraries_server.client.list_tools).tools}
    library_tools = ["resolve_library", "get_library_info", "read_page", "get_docs"]
    assert set(library_tools) <= set(tools)
    for name in library_tools:
        assert tools[name].input_schema["additionalProperties"] is False
    assert {name: tools[name].input_schema for name in library_tools} == snapshot


def test_search_docs_gets_a_library_facet_with_every_library(libraries_server) -> None:
    tools = {tool.name: tool for tool in libraries_server.run(libraries_server.client.list_tools).tools}
    assert tools["search_docs"].input_schema["properties"]["library"]["enum"] == [ACME, PYDANTIX, QUICKWEB]
    hits = libraries_server.json("search_docs", {"query": "ValidationError", "library": PYDANTIX})["hits"]
    assert hits and all(
        hit["metadata"]["library"] == PYDANTIX and hit["filepath"].startswith(PYDANTIX + "/") for hit in hits
    )


# -- resolve_library ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("quickweb", QUICKWEB),
        ("QuickWeb", QUICKWEB),
        ("quikweb", QUICKWEB),
        ("qw", QUICKWEB),
        ("pydantx", PYDANTIX),
        ("pydnatix", PYDANTIX),
        ("acme", ACME),
        ("python quickweb", QUICKWEB),
    ],
)
def test_resolve_finds_the_library_despite_typos(libraries_server, query: str, expected: str) -> None:
    results = libraries_server.json("resolve_library", {"query": query})["results"]
    assert results[0]["library_id"] == expected
    assert all(0.0 <= r["relevance"] <= 1.0 for r in results)
    assert [r["relevance"] for r in results] == sorted((r["relevance"] for r in results), reverse=True)


def test_resolve_tells_what_to_do_next(libraries_server) -> None:
    (best, *_) = libraries_server.json("resolve_library", {"query": "quickweb"})["results"]
    assert best["relevance"] == 1.0
    assert best["sections"] == ["Overview", "API Reference", "Tutorial"]  # the template folder holds no document
    assert best["topics"] == {"kind": ["guide", "reference"]}
    assert best["next"]["get_docs"]["libraries"] == [QUICKWEB]
    assert best["next"]["search_docs"]["library"] == QUICKWEB


def test_resolve_filters_by_language(libraries_server) -> None:
    results = libraries_server.json("resolve_library", {"query": "acme", "language": "go"})["results"]
    assert [r["library_id"] for r in results] == [ACME]
    assert libraries_server.json("resolve_library", {"query": "acme", "language": "python"})["results"] == []


def test_resolve_with_no_match_returns_an_empty_list_and_a_hint(libraries_server) -> None:
    answer = libraries_server.json("resolve_library", {"query": "kubernetes"})
    assert answer["results"] == []
    assert QUICKWEB in answer["hint"]


@pytest.mark.parametrize(
    "arguments",
    [{}, {"query": ""}, {"query": "\x00\x01"}, {"query": 3}, {"query": "x", "limit": 2}, {"query": "x" * 501}],
)
def test_resolve_refuses_bad_input(libraries_server, arguments) -> None:
    shape = libraries_server.error_shape("resolve_library", arguments)
    assert set(shape) == ERROR_KEYS
    assert shape["code"] == "INVALID_INPUT" and shape["recoverable"] is True


# -- get_library_info ---------------------------------------------------------------------------------


def test_info_lists_every_document_with_title_description_and_section(libraries_server) -> None:
    info = libraries_server.json("get_library_info", {"library_id": QUICKWEB})
    assert (info["name"], info["version"], info["languages"]) == ("QuickWeb", "2.1", ["python"])
    toc = {entry["path"]: entry for entry in info["toc"]}
    assert set(toc) == {
        f"{QUICKWEB}/{p}"
        for p in (
            "index.md",
            "tutorial/first-steps.md",
            "tutorial/dependencies.md",
            "tutorial/long-page.md",
            "reference/routing.md",
        )
    }
    deps = toc[f"{QUICKWEB}/tutorial/dependencies.md"]
    assert (deps["title"], deps["section"]) == ("Dependencies", "Tutorial")
    assert deps["description"] == "Declare what a route needs with Depends and QuickWeb injects it."
    assert deps["headings"] == ["Depends parameters"]
    assert toc[f"{QUICKWEB}/reference/routing.md"]["section"] == "API Reference"
    assert toc[f"{QUICKWEB}/index.md"]["section"] == "Overview"
    assert info["available_sections"] == ["Overview", "API Reference", "Tutorial"]
    assert "filtered_by_sections" not in info


def test_info_filters_by_section_and_keeps_available_sections(libraries_server) -> None:
    info = libraries_server.json("get_library_info", {"library_id": QUICKWEB, "sections": ["api reference", "Nope"]})
    assert [entry["path"] for entry in info["toc"]] == [f"{QUICKWEB}/reference/routing.md"]
    assert info["filtered_by_sections"] == ["API Reference"]
    assert info["unknown_sections"] == ["Nope"]
    assert info["available_sections"] == ["Overview", "API Reference", "Tutorial"]


@pytest.mark.parametrize("sections", [[], ["", "  "]])
def test_info_with_no_section_named_is_the_whole_table_of_contents(libraries_server, sections) -> None:
    info = libraries_server.json("get_library_info", {"library_id": QUICKWEB, "sections": sections})
    assert len(info["toc"]) == 5 and "filtered_by_sections" not in info


def test_info_for_a_section_that_does_not_exist_lists_the_real_ones(libraries_server) -> None:
    shape = libraries_server.error_shape("get_library_info", {"library_id": QUICKWEB, "sections": ["Cookbook"]})
    assert shape["code"] == "INVALID_INPUT"
    assert "Tutorial" in shape["suggestion"]


def test_info_for_an_unknown_library_suggests_the_closest(libraries_server) -> None:
    shape = libraries_server.error_shape("get_library_info", {"library_id": "quickweb/quikweb"})
    assert shape["code"] == "LIBRARY_NOT_FOUND"
    assert f"Did you mean '{QUICKWEB}'" in shape["suggestion"]
    assert "resolve_library" in shape["suggestion"]


# -- read_page -------------------------------------------------------------------------------------------


def test_read_page_paginates_to_the_end(libraries_server) -> None:
    path = f"{QUICKWEB}/tutorial/long-page.md"
    whole = libraries_server.json("read_page", {"path": path, "max_lines": 5000})
    assert whole["has_more"] is False and whole["lines_returned"] == whole["total_lines"] > 200
    pieces, offset, calls = [], 0, 0
    while True:
        page = libraries_server.json("read_page", {"path": path, "offset": offset, "max_lines": 70})
        assert page["offset"] == offset and page["total_lines"] == whole["total_lines"]
        pieces.append(page["content"])
        calls += 1
        if not page["has_more"]:
            assert page["next_offset"] is None
            break
        assert page["lines_returned"] == 70 and page["next_offset"] == offset + 70
        offset = page["next_offset"]
    assert calls == math.ceil(whole["total_lines"] / 70)
    assert "\n".join(pieces) == whole["content"]
    assert whole["content"].startswith("# A long page\n")


def test_read_page_past_the_end_is_empty(libraries_server) -> None:
    page = libraries_server.json("read_page", {"path": f"{ACME}/install.md", "offset": 999})
    assert (page["content"], page["lines_returned"], page["has_more"]) == ("", 0, False)


def test_read_page_takes_a_library_relative_path_with_library_id(libraries_server) -> None:
    page = libraries_server.json("read_page", {"path": "errors.md", "library_id": PYDANTIX})
    assert (page["path"], page["library_id"], page["title"]) == (f"{PYDANTIX}/errors.md", PYDANTIX, "Errors")
    assert "ValidationError" in page["content"]
    same = libraries_server.json("read_page", {"path": "errors.md"})  # unique among the libraries
    assert same["path"] == page["path"]


@pytest.mark.parametrize(
    "path",
    [
        "../etc/passwd",
        f"{QUICKWEB}/../../etc/passwd",
        "/etc/passwd",
        "file:///etc/passwd",
        "%2e%2e/%2e%2e/etc/passwd",
        "..\\..\\windows\\win.ini",
        f"./{QUICKWEB}/index.md",
        f"{QUICKWEB}//index.md",
        "~/.ssh/id_rsa",
        "C:/Windows/win.ini",
    ],
)
def test_read_page_refuses_path_traversal(libraries_server, path: str) -> None:
    shape = libraries_server.error_shape("read_page", {"path": path})
    assert shape["code"] == "PATH_NOT_ALLOWED"
    assert "get_library_info" in shape["suggestion"]


def test_read_page_of_an_unknown_document_suggests_close_paths(libraries_server) -> None:
    shape = libraries_server.error_shape("read_page", {"path": "tutorial/dependency.md", "library_id": QUICKWEB})
    assert shape["code"] == "PAGE_NOT_FOUND"
    assert f"'{QUICKWEB}/tutorial/dependencies.md'" in shape["suggestion"]
    assert (
        libraries_server.error_shape("read_page", {"path": "x.md", "library_id": "nope/nope"})["code"]
        == "LIBRARY_NOT_FOUND"
    )
    assert libraries_server.error_shape("read_page", {"path": "x.md", "max_lines": 0})["code"] == "INVALID_INPUT"


# -- get_docs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_tokens", [500, 1000, 5000])
def test_get_docs_respects_the_token_budget(libraries_server, max_tokens: int) -> None:
    answer = libraries_server.json(
        "get_docs", {"libraries": [ACME, QUICKWEB], "topic": "deploy command health check", "max_tokens": max_tokens}
    )
    # Tokens are counted as ceil(characters / 4) of the returned content.
    assert answer["tokens"] == math.ceil(len(answer["content"]) / 4) <= max_tokens
    assert answer["max_tokens"] == max_tokens
    assert answer["content"].count("```") % 2 == 0  # never cut inside a code block


def test_get_docs_packs_whole_chunks_attributed_to_their_library(libraries_server) -> None:
    answer = libraries_server.json(
        "get_docs", {"libraries": [QUICKWEB, PYDANTIX], "topic": "Depends dependency injection"}
    )
    assert answer["chunks"][0]["path"] == f"{QUICKWEB}/tutorial/dependencies.md"
    for chunk in answer["chunks"]:
        assert chunk["library_id"] in (QUICKWEB, PYDANTIX) and chunk["path"].startswith(chunk["library_id"] + "/")
        assert not chunk["truncated"]
        stored = libraries_server.call("get_doc", {"chunk_id": chunk["chunk_id"]}).content[0].text.split("\n", 1)[1]
        assert stored.strip() in answer["content"]
    assert 0.5 <= answer["confidence"] <= 1.0 and answer["hint"] is None


def test_get_docs_gives_the_best_passage_of_an_oversized_chunk_and_points_to_the_whole(libraries_server) -> None:
    answer = libraries_server.json(
        "get_docs", {"libraries": [ACME], "topic": "deploy walkthrough steps", "max_tokens": 500}
    )
    chunk = answer["chunks"][0]
    assert chunk["truncated"] is False and chunk["path"] == f"{ACME}/commands/deploy.md"
    assert f"read it whole with get_doc(chunk_id='{chunk['chunk_id']}')" in answer["content"]
    assert answer["content"].count("```") % 2 == 0 and answer["tokens"] <= 500


def test_get_docs_and_read_page_say_what_their_content_costs(libraries_server) -> None:
    from docs_mcp.server.search.tokens import count_tokens

    answer = libraries_server.json(
        "get_docs", {"libraries": [ACME], "topic": "deploy walkthrough steps", "max_tokens": 500}
    )
    chunk = answer["chunks"][0]
    assert chunk["passage"] is True and chunk["chunk_tokens"] > chunk["tokens"]
    page = libraries_server.json("read_page", {"path": chunk["path"], "max_lines": 10})
    assert page["tokens"] == count_tokens(page["content"]) > 0


def test_get_docs_related_pages_can_be_read(libraries_server) -> None:
    answer = libraries_server.json("get_docs", {"libraries": [QUICKWEB], "topic": "route decorator", "max_tokens": 500})
    packed = {chunk["path"] for chunk in answer["chunks"]}
    assert answer["related_pages"]
    for page in answer["related_pages"]:
        assert page["path"] not in packed and page["library_id"] == QUICKWEB and page["title"]
        assert libraries_server.json("read_page", {"path": page["path"]})["path"] == page["path"]


def test_confidence_is_lower_for_a_topic_the_library_does_not_cover(libraries_server) -> None:
    covered = libraries_server.json("get_docs", {"libraries": [PYDANTIX], "topic": "ValidationError errors"})
    uncovered = libraries_server.call("get_docs", {"libraries": [PYDANTIX], "topic": "deploy rollback health check"})
    if uncovered.is_error:
        assert json.loads(uncovered.content[0].text)["code"] == "TOPIC_NOT_FOUND"
    else:
        low = json.loads(uncovered.content[0].text)
        assert low["confidence"] < 0.5 <= covered["confidence"]
        assert "read_page" in low["hint"]


def test_get_docs_errors(libraries_server) -> None:
    missing = libraries_server.error_shape(
        "get_docs", {"libraries": [QUICKWEB, "pydantic/pydantic"], "topic": "models"}
    )
    assert missing["code"] == "LIBRARY_NOT_FOUND" and "pydantic/pydantic" in missing["message"]
    assert f"'{PYDANTIX}'" in missing["suggestion"]
    nothing = libraries_server.error_shape("get_docs", {"libraries": [ACME], "topic": "zzqx flurbix"})
    assert nothing["code"] == "TOPIC_NOT_FOUND" and "get_library_info" in nothing["suggestion"]
    for bad in (
        {"libraries": [], "topic": "x"},
        {"libraries": "acme/cli", "topic": "x"},
        {"libraries": [ACME]},
        {"libraries": [ACME], "topic": "\x00"},
        {"libraries": [ACME], "topic": "x", "max_tokens": 100},
    ):
        assert libraries_server.error_shape("get_docs", bad)["code"] == "INVALID_INPUT"


# -- one error shape ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("resolve_library", {"nope": 1}, "INVALID_INPUT"),
        ("get_library_info", {"library_id": "no/such"}, "LIBRARY_NOT_FOUND"),
        ("read_page", {"path": "../x"}, "PATH_NOT_ALLOWED"),
        ("get_docs", {"libraries": [ACME], "topic": "zzqx flurbix"}, "TOPIC_NOT_FOUND"),
        ("search_docs", {"query": 3}, "INVALID_INPUT"),
        ("get_doc", {"chunk_id": "a b#c d"}, "INVALID_INPUT"),
    ],
)
def test_every_tool_error_carries_the_same_structured_shape(libraries_server, tool: str, arguments, code: str) -> None:
    result = libraries_server.call(tool, arguments)
    assert result.is_error
    assert set(result.structured_content) == ERROR_KEYS and result.structured_content["code"] == code
    assert result.structured_content["message"] and result.structured_content["suggestion"]
