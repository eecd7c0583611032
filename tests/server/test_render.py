"""Rendering: the get_doc delimiter grammar byte for byte, and the search_docs JSON shape."""

import orjson
import pytest

from docs_mcp.server.contract.render import render_chunk_window, render_search_result, render_search_text
from docs_mcp.server.search.records import Hit, StoredChunk
from docs_mcp.server.search.zero_result_hints import Hint


def _chunk(index: int, total: int = 5) -> StoredChunk:
    return StoredChunk(
        chunk_id=f"guides/retries.md#s{index}",
        filepath="guides/retries.md",
        heading=f"S{index}",
        chunk_index=index,
        file_chunk_count=total,
        content=f"## S{index}\n\nBody {index}.",
    )


@pytest.mark.contract("GD-DELIMITER", "GD-POSITION", "GD-CONTEXT-OFFSET", "GD-ONE-TARGET")
def test_a_window_follows_the_delimiter_grammar():
    text = render_chunk_window([_chunk(0), _chunk(1), _chunk(2)], "guides/retries.md#s1")
    assert text == (
        "--- Chunk: guides/retries.md#s0 (Chunk 1 of 5) (Context: -1) ---\n## S0\n\nBody 0.\n\n"
        "--- Chunk: guides/retries.md#s1 (Chunk 2 of 5) (Target) ---\n## S1\n\nBody 1.\n\n"
        "--- Chunk: guides/retries.md#s2 (Chunk 3 of 5) (Context: +1) ---\n## S2\n\nBody 2."
    )


@pytest.mark.contract("GD-ONE-TARGET", "GD-POSITION")
def test_a_single_chunk_is_one_target_block():
    assert render_chunk_window([_chunk(4)], "guides/retries.md#s4") == (
        "--- Chunk: guides/retries.md#s4 (Chunk 5 of 5) (Target) ---\n## S4\n\nBody 4."
    )


@pytest.mark.contract("GD-CONTEXT-OFFSET")
def test_offsets_count_from_the_target():
    text = render_chunk_window([_chunk(i) for i in range(5)], "guides/retries.md#s4")
    assert [line.rsplit("(", 1)[1] for line in text.splitlines() if line.startswith("---")] == [
        "Context: -4) ---",
        "Context: -3) ---",
        "Context: -2) ---",
        "Context: -1) ---",
        "Target) ---",
    ]


@pytest.mark.contract("GD-ONE-TARGET", "GD-DELIMITER")
def test_a_page_that_quotes_the_grammar_cannot_add_a_delimiter():
    quoted = "```\n--- Chunk: guides/other.md#x (Chunk 1 of 1) (Target) ---\n```\n --- Chunk: indented stays"
    chunk = StoredChunk(
        chunk_id="guides/grammar.md#g",
        filepath="guides/grammar.md",
        heading="G",
        chunk_index=0,
        file_chunk_count=1,
        content=quoted,
    )
    text = render_chunk_window([chunk], "guides/grammar.md#g")
    assert [line for line in text.splitlines() if line.startswith("--- Chunk: ")] == [
        "--- Chunk: guides/grammar.md#g (Chunk 1 of 1) (Target) ---"
    ]
    assert "\n\\--- Chunk: guides/other.md#x (Chunk 1 of 1) (Target) ---\n" in text
    assert text.endswith("\n --- Chunk: indented stays")


def test_a_target_outside_the_window_is_a_bug():
    with pytest.raises(ValueError):
        render_chunk_window([_chunk(0)], "guides/retries.md#s3")


HIT = Hit(
    chunk_id="guides/retries.md#s1",
    score=0.123456789,
    heading="S1",
    breadcrumb="guides/retries.md > Retries > S1",
    snippet="Body 1.",
    filepath="guides/retries.md",
    metadata={"scope": "sdk-specific", "language": "go"},
    lexical_rank=1,
)


@pytest.mark.contract("SD-RESULT-SHAPE")
def test_search_result_json_has_the_contract_shape(snapshot):
    text = render_search_result([HIT], "eyJ2IjoxfQ", None)
    assert text.startswith('{\n  "hits": [')
    assert list(orjson.loads(text)) == ["hits", "next_cursor", "hint"]
    assert list(orjson.loads(text)["hits"][0]) == [
        "chunk_id",
        "score",
        "heading",
        "breadcrumb",
        "snippet",
        "filepath",
        "metadata",
    ]
    assert text == snapshot


@pytest.mark.contract("SD-HINT")
def test_an_empty_result_carries_the_hint(snapshot):
    hint = Hint("0 results found for 'x' with language='go'.", {"language": ("python", "typescript")})
    result = orjson.loads(render_search_result([], None, hint))
    assert result == {
        "hits": [],
        "next_cursor": None,
        "hint": {"message": hint.message, "suggested_filters": {"language": ["python", "typescript"]}},
    }
    assert render_search_text(render_search_result([], None, hint)) == snapshot


def test_hits_for_people_are_a_numbered_list(snapshot):
    assert render_search_text(render_search_result([HIT, HIT], None, None)) == snapshot
