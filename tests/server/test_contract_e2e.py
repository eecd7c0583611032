"""Contract clauses no other test proves end to end (see tests/contract/contract_clauses.py), over the
real `docs-mcp serve` subprocess of tests/server/conftest.py."""

import json
import re

import pytest

from docs_mcp.server.core.facets import SEARCH_ARGUMENTS

TARGET = re.compile(r"^--- Chunk: (\S+) \(Chunk \d+ of \d+\) \(Target\) ---$", re.M)
# Matches chunks of both scopes and of more than one page of the default size.
BROAD_QUERY = "the client pages results retries errors"


@pytest.mark.contract("SD-SINGLE-TEXT", "SD-RESULT-SHAPE")
def test_a_search_result_is_one_text_block_of_json(tiny_server):
    result = tiny_server.call("search_docs", {"query": "RateLimitError", "limit": 2})
    assert result.is_error is False
    assert [block.type for block in result.content] == ["text"]
    parsed = json.loads(result.content[0].text)
    assert list(parsed) == ["hits", "next_cursor", "hint"]
    assert parsed["hits"] and all(isinstance(hit["score"], float) for hit in parsed["hits"])
    assert all(isinstance(value, str) for hit in parsed["hits"] for value in hit["metadata"].values())


@pytest.mark.contract("GD-RAW-MARKDOWN")
def test_a_get_doc_result_is_one_text_block(tiny_server):
    result = tiny_server.call("get_doc", {"chunk_id": "guides/errors.md#errors/status-codes", "context": 1})
    assert result.is_error is False
    assert [block.type for block in result.content] == ["text"]
    assert "## Status codes\n\nA 429 status means the rate limit was exceeded." in result.content[0].text


@pytest.mark.contract("SD-CHUNK-ID-FOR-GET-DOC")
def test_every_hit_is_fetched_by_its_chunk_id(tiny_server):
    hits = tiny_server.search(query=BROAD_QUERY, limit=50)["hits"]
    assert len(hits) > 10
    for hit in hits:
        text = tiny_server.text("get_doc", {"chunk_id": hit["chunk_id"]})
        assert TARGET.findall(text) == [hit["chunk_id"]]
        assert hit["chunk_id"].split("#")[0] == hit["filepath"]


@pytest.mark.contract("SD-LIMIT-DEFAULT")
def test_without_limit_a_page_is_the_first_ten_hits(tiny_server):
    whole = tiny_server.search(query=BROAD_QUERY, limit=50)["hits"]
    assert len(whole) > 10  # else the default could not show
    page = tiny_server.search(query=BROAD_QUERY)
    assert [hit["chunk_id"] for hit in page["hits"]] == [hit["chunk_id"] for hit in whole[:10]]
    assert page["next_cursor"] is not None


@pytest.mark.contract("SD-NO-SENTINEL")
def test_no_sentinel_values_and_an_omitted_filter_filters_nothing(tiny_server):
    schema = tiny_server.input_schema("search_docs")
    filters = {key: prop for key, prop in schema["properties"].items() if key not in SEARCH_ARGUMENTS}
    assert filters and all(key not in schema["required"] for key in filters)
    assert [
        value for prop in filters.values() for value in prop["enum"] if value.upper() in ("ANY", "ALL", "*", "")
    ] == []
    hits = tiny_server.search(query=BROAD_QUERY, limit=50)["hits"]
    assert {hit["metadata"]["scope"] for hit in hits} == {"global-guide", "sdk-specific"}
