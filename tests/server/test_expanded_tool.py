"""search_docs_expanded through a real stdio session; the instructions at initialize; sizes in structured content."""

from __future__ import annotations

import json

import pytest

from docs_mcp.server.search.tokens import count_tokens
from docs_mcp.server.tools.search_docs_expanded import DESCRIPTION
from docs_mcp.server.tools.search_docs_expanded import NAME as SEARCH_DOCS_EXPANDED

PAIRS = [
    {"query": "RateLimitError"},
    {"query": "how do I page through results", "limit": 3},
    {"query": "retries", "language": "python"},
    {"query": "completely unrelated gardening"},
]
EXPANSIONS = {
    "keywords": "RateLimitError 429 rate limit",
    "question": "What happens when the rate limit is exceeded?",
    "hypothetical_answer": "A 429 status means the rate limit was exceeded; catch RateLimitError and wait before retrying.",
}


def test_initialize_returns_instructions_that_say_when_to_search(tiny_server):
    instructions = tiny_server.client.instructions
    assert instructions.startswith(
        "This server holds the Acme API guides and client SDK docs. Search it before writing"
    )
    lead = instructions[:500]
    assert (
        "whenever unsure of an API" in lead
        and "First call search_docs_expanded" in lead
        and "get_doc(chunk_id)" in lead
    )


def test_the_tool_is_listed_with_search_docs_arguments_and_its_parts(tiny_server):
    tools = {tool.name: tool for tool in tiny_server.list_tools()}
    listed = tools[SEARCH_DOCS_EXPANDED]
    assert listed.description == DESCRIPTION and listed.description.startswith(
        "Use it first when you ask in your own words"
    )
    schema, base = listed.input_schema, tools["search_docs"].input_schema
    assert schema["additionalProperties"] is False and schema["required"] == ["query"]
    assert list(schema["properties"]) == [*base["properties"], "keywords", "question", "hypothetical_answer"]
    assert schema["properties"]["language"] == base["properties"]["language"]


@pytest.mark.parametrize("arguments", PAIRS)
def test_without_expansions_it_answers_exactly_as_search_docs(tiny_server, arguments):
    assert tiny_server.text(SEARCH_DOCS_EXPANDED, arguments) == tiny_server.text("search_docs", arguments)


def test_expansions_find_a_paraphrase_and_page_with_their_own_cursor(tiny_server):
    query = {"query": "my calls get refused for going too fast"}
    expanded = tiny_server.json(SEARCH_DOCS_EXPANDED, {**query, **EXPANSIONS, "limit": 2})
    assert any("RateLimitError" in hit["snippet"] or "429" in hit["snippet"] for hit in expanded["hits"])
    cursor = expanded["next_cursor"]
    assert cursor
    following = tiny_server.json(SEARCH_DOCS_EXPANDED, {**query, **EXPANSIONS, "limit": 2, "cursor": cursor})
    assert not {h["chunk_id"] for h in following["hits"]} & {h["chunk_id"] for h in expanded["hits"]}
    # The cursor belongs to this expanded search: not to search_docs, nor to other expansions.
    assert "cursor" in tiny_server.error("search_docs", {**query, "limit": 2, "cursor": cursor}).lower()
    other = {**query, **EXPANSIONS, "keywords": "retries", "limit": 2, "cursor": cursor}
    assert "cursor" in tiny_server.error(SEARCH_DOCS_EXPANDED, other).lower()


@pytest.mark.parametrize(("arguments", "message"), [
    ({"query": "x", "keywords": ["a", "b"]}, "Argument 'keywords' must be a string, not array."),
    ({"query": "x", "hypothetical_answer": "word " * 300}, "Argument 'hypothetical_answer' is 1499 characters long; the limit is 1000."),
    ({"query": "x", "answer": "y"}, "Unknown argument 'answer' for search_docs_expanded."),
    ({"keywords": "RateLimitError"}, "Missing required argument 'query'."),
])  # fmt: skip
def test_bad_arguments_are_tool_errors_that_say_what_to_send(tiny_server, arguments, message):
    assert message in tiny_server.error(SEARCH_DOCS_EXPANDED, arguments)


def test_each_hit_carries_its_best_passage_and_the_chunk_tokens_outside_the_text(tiny_server):
    result = tiny_server.call("search_docs", {"query": "RateLimitError"})
    text = json.loads(result.content[0].text)
    assert set(text["hits"][0]) == {"chunk_id", "score", "heading", "breadcrumb", "snippet", "filepath", "metadata"}
    structured = result.structured_content
    assert [h["chunk_id"] for h in structured["hits"]] == [h["chunk_id"] for h in text["hits"]]
    first = structured["hits"][0]
    full = tiny_server.text("get_doc", {"chunk_id": first["chunk_id"]})
    assert "RateLimitError" in first["passage"] and first["passage"] in full
    assert first["tokens"] == count_tokens(full.split("---\n", 1)[1].rstrip("\n"))


def test_get_doc_reports_the_tokens_of_each_chunk_and_of_the_answer(tiny_server):
    target = "guides/pagination.md#pagination/page-topic-3"
    result = tiny_server.call("get_doc", {"chunk_id": target, "context": 1})
    sizes = result.structured_content
    assert sizes["chunk_id"] == target and sizes["tokens"] == count_tokens(result.content[0].text)
    assert [chunk["chunk_id"] for chunk in sizes["chunks"]] == [
        "guides/pagination.md#pagination/page-topic-2",
        target,
        "guides/pagination.md#pagination/page-topic-4",
    ]
    assert all(chunk["tokens"] > 0 for chunk in sizes["chunks"])
