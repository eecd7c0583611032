"""Argument checking: every bad input becomes one InvalidArgumentError whose text says what to send."""

import pytest

from docs_mcp.server.errors import InvalidArgumentError, InvalidChunkIdError
from docs_mcp.server.tools.get_doc import parse_get_doc_args
from docs_mcp.server.tools.search_docs import MAX_QUERY_CHARS, parse_search_args

FILTERS = {"language": ("go", "python", "typescript"), "scope": ("global-guide", "sdk-specific")}

BAD_SEARCH = {
    "no-arguments": None,
    "missing-query": {"limit": 3},
    "empty-query": {"query": ""},
    "blank-query": {"query": " \n\t "},
    "query-number": {"query": 42},
    "query-list": {"query": ["a"]},
    "long-query": {"query": "x" * 10_000},
    "limit-string": {"query": "x", "limit": "10"},
    "limit-bool": {"query": "x", "limit": True},
    "limit-fraction": {"query": "x", "limit": 2.5},
    "limit-zero": {"query": "x", "limit": 0},
    "limit-51": {"query": "x", "limit": 51},
    "limit-negative": {"query": "x", "limit": -1},
    "cursor-number": {"query": "x", "cursor": 12},
    "unknown-property": {"query": "x", "page": 2},
    "two-unknown-properties": {"query": "x", "page": 2, "sort": "asc"},
    "filter-not-in-enum": {"query": "x", "language": "rust"},
    "filter-wrong-case": {"query": "x", "language": "Python"},
    "filter-number": {"query": "x", "scope": 1},
}

BAD_GET_DOC = {
    "no-arguments": None,
    "chunk-id-number": {"chunk_id": 7},
    "context-6": {"chunk_id": "a.md", "context": 6},
    "context-negative": {"chunk_id": "a.md", "context": -1},
    "context-string": {"chunk_id": "a.md", "context": "2"},
    "unknown-property": {"chunk_id": "a.md", "contexts": 2},
    "long-chunk-id": {"chunk_id": "a" * 5_000},
}

INVALID_CHUNK_IDS = ["", "a b#c#d", "a.md#", "#heading", " a.md", "a.md ", "a.md#x y", "a\tb.md", "a.md#b#c"]


@pytest.mark.contract("SD-LIMIT-BOUNDS", "SD-NO-EXTRA-ARGS", "SD-TAXONOMY-ENUM")
@pytest.mark.parametrize("arguments", BAD_SEARCH.values(), ids=BAD_SEARCH.keys())
def test_bad_search_arguments_are_refused(arguments):
    with pytest.raises(InvalidArgumentError):
        parse_search_args(arguments, FILTERS)


@pytest.mark.contract("GD-CONTEXT-BOUNDS", "GD-SCHEMA")
@pytest.mark.parametrize("arguments", BAD_GET_DOC.values(), ids=BAD_GET_DOC.keys())
def test_bad_get_doc_arguments_are_refused(arguments):
    with pytest.raises(InvalidArgumentError):
        parse_get_doc_args(arguments)


@pytest.mark.contract("GD-INVALID-FORMAT")
@pytest.mark.parametrize("chunk_id", INVALID_CHUNK_IDS)
def test_ids_outside_the_grammar_have_invalid_format(chunk_id):
    with pytest.raises(InvalidChunkIdError) as caught:
        parse_get_doc_args({"chunk_id": chunk_id})
    shown = chunk_id.replace("\t", "\\u0009").replace("\n", "\\u000a")  # control characters are shown escaped
    assert str(caught.value) == (
        f"Chunk ID '{shown}' has invalid format. Expected {{filepath}} or {{filepath}}#{{heading-path}}. "
        "Use search_docs to discover valid chunk IDs."
    )


@pytest.mark.contract("GD-INVALID-FORMAT")
@pytest.mark.parametrize(
    "chunk_id",
    ["guides/retries.md", "guides/retries.md#_preamble", "a.md#x/y-part-2", "My Docs/Getting Started.md#intro"],
)
def test_ids_in_the_grammar_pass(chunk_id):
    assert parse_get_doc_args({"chunk_id": chunk_id}).chunk_id == chunk_id


@pytest.mark.contract("ERR-ACTIONABLE")
def test_every_error_text_names_the_fix(snapshot):
    texts = {}
    for name, arguments in BAD_SEARCH.items():
        with pytest.raises(InvalidArgumentError) as caught:
            parse_search_args(arguments, FILTERS)
        texts[f"search_docs/{name}"] = str(caught.value)
    for name, arguments in BAD_GET_DOC.items():
        with pytest.raises(InvalidArgumentError) as caught:
            parse_get_doc_args(arguments)
        texts[f"get_doc/{name}"] = str(caught.value)
    assert all(error.hint for error in _errors(BAD_SEARCH, FILTERS))
    assert texts == snapshot


def _errors(cases, filters):
    for arguments in cases.values():
        try:
            parse_search_args(arguments, filters)
        except InvalidArgumentError as error:
            yield error


@pytest.mark.contract("SD-LIMIT-DEFAULT", "GD-CONTEXT-DEFAULT", "SD-NO-SENTINEL")
def test_defaults_apply_and_null_means_left_out():
    args = parse_search_args({"query": "  retries  ", "limit": None, "cursor": None, "language": None}, FILTERS)
    assert (args.query, args.limit, args.cursor, dict(args.filters)) == ("retries", 10, None, {})
    assert parse_get_doc_args({"chunk_id": "a.md", "context": None}).context == 0


def test_an_integral_float_counts_as_an_integer():
    assert parse_search_args({"query": "x", "limit": 5.0}, FILTERS).limit == 5


@pytest.mark.contract("SD-TAXONOMY-ENUM")
def test_filters_are_kept_exactly():
    args = parse_search_args({"query": "x", "language": "python", "scope": "sdk-specific"}, FILTERS)
    assert dict(args.filters) == {"language": "python", "scope": "sdk-specific"}


def test_control_characters_become_spaces_and_the_longest_query_passes():
    assert parse_search_args({"query": "rate\x00limit\x1b"}, FILTERS).query == "rate limit"
    assert len(parse_search_args({"query": "y" * MAX_QUERY_CHARS}, FILTERS).query) == MAX_QUERY_CHARS


def test_unicode_queries_pass_unchanged():
    query = 'Über façade 日本語 🚀 "quoted" (paren) -neg *star'
    assert parse_search_args({"query": query}, FILTERS).query == query
