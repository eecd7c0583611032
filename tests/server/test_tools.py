"""search_docs and get_doc end to end: a real `docs-mcp serve` subprocess over stdio, a real
index of the tiny corpus (tests/server/conftest.py), the MCP SDK's client."""

import json
import re

import pytest

from docs_mcp.indexer import open_index
from docs_mcp.server.app import tool_list

DELIMITER = re.compile(r"^--- Chunk: (\S+) \(Chunk (\d+) of (\d+)\) \((Target|Context: [+-]\d+)\) ---$", re.M)


# -- tool list ---------------------------------------------------------------------------------


@pytest.mark.contract("SD-SCHEMA", "GD-SCHEMA", "SD-DESCRIPTION", "GD-DESCRIPTION")
def test_tools_list_is_the_contract_with_the_index_taxonomy(tiny_server, tiny_index, snapshot):
    listed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tiny_server.list_tools()]
    with open_index(tiny_index) as reader:
        expected = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tool_list(reader.metadata)]
    assert listed == expected
    assert [tool["name"] for tool in listed[:2]] == ["search_docs", "get_doc"]
    assert listed[:2] == snapshot  # the other tools are pinned by their own tests


@pytest.mark.contract("SD-TAXONOMY-ENUM", "SD-TAXONOMY-DESCRIPTION")
def test_filter_enums_are_the_values_in_metadata_json(tiny_server, tiny_index):
    taxonomy = json.loads((tiny_index / "metadata.json").read_text())["taxonomy"]
    properties = tiny_server.input_schema("search_docs")["properties"]
    assert properties["language"]["enum"] == taxonomy["language"]["values"] == ["go", "python", "typescript"]
    assert properties["scope"]["enum"] == taxonomy["scope"]["values"] == ["global-guide", "sdk-specific"]
    assert properties["language"]["description"] == "Client SDK language."


# -- search_docs -------------------------------------------------------------------------------


@pytest.mark.contract("SD-RESULT-SHAPE")
def test_an_exact_identifier_finds_its_chunk(tiny_server):
    hits = tiny_server.search(query="snake_case_helper")["hits"]
    assert hits[0]["chunk_id"] == "sdk/python/helpers.md#helpers/snakecasehelper"
    assert set(hits[0]) == {"chunk_id", "score", "heading", "breadcrumb", "snippet", "filepath", "metadata"}
    assert hits[0]["metadata"] == {"language": "python", "scope": "sdk-specific"}


@pytest.mark.contract("SD-FILTER")
def test_a_filter_keeps_only_matching_chunks(tiny_server):
    hits = tiny_server.search(query="RateLimitError", scope="sdk-specific", limit=50)["hits"]
    assert hits and all(hit["metadata"]["scope"] == "sdk-specific" for hit in hits)


def test_a_language_filter_still_returns_language_neutral_guides(tiny_server):
    hits = tiny_server.search(query="rate limit 429 status RateLimitError", language="go", limit=50)["hits"]
    languages = {hit["metadata"].get("language") for hit in hits}
    assert "go" in languages and None in languages  # the go page and the global errors guide
    assert languages <= {"go", None}


def test_language_twins_collapse_to_one_unless_the_language_is_filtered(tiny_server):
    unfiltered = tiny_server.search(query="retries exponential backoff max_retries", limit=50)["hits"]
    twins = [hit for hit in unfiltered if hit["heading"] == "Retries"]
    assert len(twins) == 1
    for language in ("go", "python", "typescript"):
        filtered = tiny_server.search(query="retries exponential backoff max_retries", language=language, limit=50)[
            "hits"
        ]
        assert [hit["chunk_id"] for hit in filtered if hit["heading"] == "Retries"] == [
            f"sdk/{language}/client.md#{language}-client/retries"
        ]


@pytest.mark.contract("SD-CURSOR-OPAQUE", "SD-CURSOR-END")
@pytest.mark.parametrize(
    ("query", "limit"),
    [("cursor pages paging detail collection", 2), ("retries exponential backoff max_retries client", 1)],
    ids=["plain", "with-collapse"],
)
def test_pages_are_disjoint_and_concatenate_to_the_long_list(tiny_server, query, limit):
    whole = tiny_server.search(query=query, limit=50)
    assert whole["next_cursor"] is None and len(whole["hits"]) >= 3 * limit
    pages, arguments = [], {"query": query, "limit": limit}
    while True:
        page = tiny_server.search(**arguments)
        pages.append(page)
        if page["next_cursor"] is None:
            break
        arguments["cursor"] = page["next_cursor"]
    assert len(pages) == -(-len(whole["hits"]) // limit)
    assert all(len(page["hits"]) == limit for page in pages[:-1])
    assert [hit["chunk_id"] for page in pages for hit in page["hits"]] == [hit["chunk_id"] for hit in whole["hits"]]


@pytest.mark.contract("SD-CURSOR-END", "SD-HINT")
def test_the_last_page_has_no_cursor_and_no_hint(tiny_server):
    result = tiny_server.search(query="snake_case_helper", limit=50)
    assert result["next_cursor"] is None and result["hint"] is None


CURSOR_ERRORS = {
    "malformed": ("not-a-cursor!", "The cursor is malformed"),
    "tampered": (None, "The cursor failed its integrity check"),
    "foreign-query": ("other query", "The cursor belongs to a different search"),
    "foreign-limit": (3, "The cursor belongs to a different search"),
    "foreign-filters": ({"scope": "global-guide"}, "The cursor belongs to a different search"),
}


@pytest.mark.contract("SD-CURSOR-INVALID", "ERR-ACTIONABLE")
@pytest.mark.parametrize("case", CURSOR_ERRORS, ids=CURSOR_ERRORS.keys())
def test_a_bad_cursor_is_an_error_that_says_to_search_again(tiny_server, case):
    query = "cursor pages paging detail collection"
    cursor = tiny_server.search(query=query, limit=2)["next_cursor"]
    change, expected = CURSOR_ERRORS[case]
    arguments = {"query": query, "limit": 2, "cursor": cursor}
    if case == "malformed":
        arguments["cursor"] = change
    elif case == "tampered":
        arguments["cursor"] = cursor[:10] + ("B" if cursor[10] == "A" else "A") + cursor[11:]
    elif case == "foreign-query":
        arguments["query"] = change
    elif case == "foreign-limit":
        arguments["limit"] = change
    else:
        arguments.update(change)
    text = tiny_server.error("search_docs", arguments)
    assert text.startswith(expected)
    assert "search_docs again without a cursor" in text


@pytest.mark.contract("SD-HINT")
def test_zero_hits_with_a_filter_suggest_the_values_that_match(tiny_server):
    result = tiny_server.search(query="snake_case_helper", language="go", scope="sdk-specific")
    assert result["hits"] == [] and result["next_cursor"] is None
    assert result["hint"]["suggested_filters"] == {"language": ["python"]}
    assert result["hint"]["message"].startswith(
        "0 results found for 'snake_case_helper' with language='go', scope='sdk-specific'."
    )


@pytest.mark.contract("SD-HINT")
def test_a_query_that_matches_nothing_gets_the_hint_not_noise(tiny_server):
    result = tiny_server.search(query="zqxjv wvkplm")
    assert result == {
        "hits": [],
        "next_cursor": None,
        "hint": {
            "message": "0 results found for 'zqxjv wvkplm'. The documentation contains none of its words: "
            "try other words (a synonym, fewer words, or an exact identifier).",
            "suggested_filters": {},
        },
    }


# -- get_doc -----------------------------------------------------------------------------------

PAGINATION = "guides/pagination.md"


def _blocks(text: str) -> list[tuple[str, int, int, str]]:
    return [(m[1], int(m[2]), int(m[3]), m[4]) for m in DELIMITER.finditer(text)]


@pytest.mark.contract("GD-SAME-FILE", "GD-ONE-TARGET", "GD-POSITION", "GD-CONTEXT-OFFSET", "GD-DELIMITER")
@pytest.mark.parametrize(
    ("slug", "context", "positions", "roles"),
    [
        ("_preamble", 0, [1], ["Target"]),
        ("_preamble", 2, [1, 2, 3], ["Target", "Context: +1", "Context: +2"]),
        ("pagination/page-topic-4", 1, [4, 5, 6], ["Context: -1", "Target", "Context: +1"]),
        ("pagination/page-topic-4", 5, [1, 2, 3, 4, 5, 6, 7, 8], None),
        ("pagination/page-topic-7", 2, [6, 7, 8], ["Context: -2", "Context: -1", "Target"]),
    ],
    ids=["start", "start-clipped", "middle", "whole-file", "end-clipped"],
)
def test_get_doc_windows_are_clipped_at_the_file_ends(tiny_server, slug, context, positions, roles):
    chunk_id = f"{PAGINATION}#{slug}"
    blocks = _blocks(tiny_server.text("get_doc", {"chunk_id": chunk_id, "context": context}))
    assert [position for _, position, _, _ in blocks] == positions
    assert {total for _, _, total, _ in blocks} == {8}
    assert [role for _, _, _, role in blocks].count("Target") == 1
    assert [cid for cid, _, _, role in blocks if role == "Target"] == [chunk_id]
    if roles:
        assert [role for _, _, _, role in blocks] == roles


@pytest.mark.contract("GD-RAW-MARKDOWN", "GD-DELIMITER")
def test_get_doc_returns_the_raw_markdown_in_the_grammar(tiny_server, snapshot):
    text = tiny_server.text("get_doc", {"chunk_id": "guides/errors.md#errors/error-bodies", "context": 1})
    assert text == snapshot


@pytest.mark.contract("GD-CONTEXT-DEFAULT")
def test_get_doc_default_context_is_zero(tiny_server):
    text = tiny_server.text("get_doc", {"chunk_id": "guides/errors.md#errors/support"})
    assert _blocks(text) == [("guides/errors.md#errors/support", 4, 4, "Target")]


@pytest.mark.contract("GD-NOT-FOUND")
def test_an_unknown_chunk_is_the_contract_error(tiny_server):
    assert tiny_server.error("get_doc", {"chunk_id": "guides/errors.md#does-not-exist"}) == (
        "Chunk ID 'guides/errors.md#does-not-exist' not found. Use search_docs to discover valid chunk IDs."
    )


@pytest.mark.contract("GD-INVALID-FORMAT")
def test_a_malformed_chunk_id_is_an_invalid_format_error(tiny_server):
    assert tiny_server.error("get_doc", {"chunk_id": "a b#c#d"}) == (
        "Chunk ID 'a b#c#d' has invalid format. Expected {filepath} or {filepath}#{heading-path}. "
        "Use search_docs to discover valid chunk IDs."
    )


def test_a_page_path_points_at_the_first_chunk_of_the_page(tiny_server):
    assert tiny_server.error("get_doc", {"chunk_id": "guides/errors.md"}) == (
        "Chunk ID 'guides/errors.md' not found. That page has 4 chunks, each with its own ID: "
        "start with 'guides/errors.md#_preamble' and raise context to read its neighbours."
    )


@pytest.mark.parametrize(
    "chunk_id",
    [
        "guides/errors.md#errors\x00",
        "guides/errors.md\x07",
        "x.md#a\n--- Chunk: guides/errors.md#errors (Chunk 1 of 4) (Target) ---",
    ],
)
def test_a_control_character_makes_a_chunk_id_invalid_and_is_shown_escaped(tiny_server, chunk_id):
    text = tiny_server.error("get_doc", {"chunk_id": chunk_id})
    assert "has invalid format" in text and "\\u00" in text
    assert not re.search(r"[\x00-\x1f]", text)


# -- errors and robustness ---------------------------------------------------------------------

BAD_CALLS = {
    "missing-query": ("search_docs", {}),
    "empty-query": ("search_docs", {"query": "   "}),
    "query-type": ("search_docs", {"query": {"text": "x"}}),
    "long-query": ("search_docs", {"query": "word " * 2_000}),
    "limit-range": ("search_docs", {"query": "x", "limit": 500}),
    "limit-type": ("search_docs", {"query": "x", "limit": "ten"}),
    "unknown-property": ("search_docs", {"query": "x", "sort": "date"}),
    "bad-enum": ("search_docs", {"query": "x", "language": "cobol"}),
    "context-range": ("get_doc", {"chunk_id": "guides/errors.md", "context": 9}),
    "context-type": ("get_doc", {"chunk_id": "guides/errors.md", "context": [1]}),
    "chunk-id-type": ("get_doc", {"chunk_id": None}),
}


@pytest.mark.contract("ERR-ACTIONABLE", "SD-LIMIT-BOUNDS", "SD-NO-EXTRA-ARGS", "GD-CONTEXT-BOUNDS")
@pytest.mark.parametrize("case", BAD_CALLS, ids=BAD_CALLS.keys())
def test_bad_arguments_are_error_results_that_say_what_to_do(tiny_server, case):
    tool, arguments = BAD_CALLS[case]
    text = tiny_server.error(tool, arguments)
    assert "Traceback" not in text and ("Pass" in text or "Use only" in text or "Pick" in text or "Search with" in text)


ODD_QUERIES = [
    '"unterminated quote',
    "*",
    "-",
    "retries -backoff",
    "(paren) AND (OR",
    "'; DROP TABLE chunks; --",
    "!!!",
    "日本語のドキュメント",
    "emoji 🚀 ratelimit",
    "ﬁle Ünïcödé ΣΊΣΥΦΟΣ",
    "\u202eright-to-left",
    "a\x00b",
    "x" * 1_999,
    "max_retries:3 AND language:go",
]


@pytest.mark.contract("SD-HINT")
@pytest.mark.parametrize("query", ODD_QUERIES)
def test_odd_queries_never_break_the_server(tiny_server, query):
    result = tiny_server.search(query=query)
    assert set(result) == {"hits", "next_cursor", "hint"}
    assert (result["hint"] is None) == bool(result["hits"])
    assert tiny_server.alive()


def test_an_unknown_tool_is_a_protocol_error(tiny_server):
    from mcp import MCPError

    with pytest.raises(MCPError, match="Unknown tool 'search'. Call one of the available tools: search_docs, get_doc."):
        tiny_server.call("search", {"query": "x"})
