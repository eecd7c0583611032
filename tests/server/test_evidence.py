"""Evidence before abstention and identifiers first, over a real index of a small SDK corpus and through a real server.

The corpus is ours, shaped like the contract's example: an identifier that only the TypeScript docs write, a
Python page about the same thing in other words, a reference page that defines a name a tutorial imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_files import write_corpus
from mcp_session import McpSession, serve_over_stdio

from docs_mcp.indexer import build_index
from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.search.evidence_finder import EvidenceFinder

SDK_CORPUS = {
    "metadata.json": json.dumps(
        {
            "corpus_description": "Widget API guides and SDK references",
            "taxonomy": {
                "language": {"description": "SDK language.", "vector_collapse": True},
                "scope": {"description": "Guide or SDK."},
            },
        }
    ),  # fmt: skip
    ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "guides/errors.md": "# Errors\n\n## Status codes\n\nA 429 status means the client sent too many requests; wait and retry.\n",
    **{
        f"sdks/{language}/.docs-mcp.json": json.dumps(
            {"version": "1", "metadata": {"scope": "sdk-specific", "language": language}}
        )
        for language in ("python", "typescript")
    },
    "sdks/typescript/auth.md": (
        "# TypeScript client\n\nThe TypeScript package exports WidgetClientV2 for signing in.\n\n"
        "## WidgetClientV2 setup\n\nConstruct a `WidgetClientV2` with an API key, and optionally a base URL.\n"
    ),
    "sdks/python/auth.md": (
        "# Python client\n\nThe Python package has one client class.\n\n"
        "## Client setup\n\nConstruct the Python client with an API key and a request timeout.\n"
    ),
    "tutorial/dependencies.md": (
        "# Dependencies\n\nShare logic between handlers.\n\n"
        "## Import `Provide`\n\nImport `Provide` from the widget package, then declare a parameter with it.\n\n"
        "## Declare the dependency\n\nA handler parameter wrapped in `Provide(get_db)` receives what `get_db` returns.\n\n"
        "## Sub-dependencies\n\nA dependency can depend on others; `Provide` resolves them in order.\n"
    ),
    "reference/dependencies.md": "# Dependencies - `Provide()`\n\n## `Provide()`\n\nThe special function `Provide()` takes a callable and declares a dependency.\n",
}


@pytest.fixture(scope="module")
def sdk_index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sdk")
    build_index(write_corpus(root / "docs", SDK_CORPUS), root / "index")
    return root / "index"


@pytest.fixture(scope="module")
def sdk_server(sdk_index: Path, tmp_path_factory) -> Iterator[McpSession]:
    with serve_over_stdio(sdk_index, tmp_path_factory.mktemp("logs") / "sdk.log") as session:
        yield session


@pytest.mark.contract("SD-HINT")
def test_an_identifier_that_only_other_filters_hold_gets_zero_hits_and_names_them(sdk_server):
    result = sdk_server.search(query="WidgetClientV2", language="python", scope="sdk-specific")
    assert result["hits"] == [] and result["next_cursor"] is None
    assert result["hint"]["suggested_filters"] == {"language": ["typescript"]}
    assert "retry with one of them" in result["hint"]["message"]


def test_the_same_identifier_within_its_filters_is_answered_by_the_section_that_names_it(sdk_server):
    result = sdk_server.search(query="WidgetClientV2", language="typescript")
    assert result["hits"][0]["heading"] == "WidgetClientV2 setup"


def test_a_bare_name_ranks_the_section_that_defines_it_first(sdk_server):
    hits = sdk_server.search(query="Provide")["hits"]
    assert hits[0]["chunk_id"].startswith("reference/dependencies.md#") and hits[0]["heading"] == "Provide()"
    assert any(hit["heading"] == "Import Provide" for hit in hits[:3])


def test_the_zero_result_hint_names_the_words_the_docs_do_not_hold(sdk_server):
    result = sdk_server.search(query="zqxjv wvkplm")
    assert result["hint"]["message"].startswith(
        "0 results found for 'zqxjv wvkplm'. The documentation contains none of its words"
    )
    result = sdk_server.search(query="knitting a scarf with WidgetClientV2")
    if not result["hits"]:  # held back: the hint says which words are missing, not that nothing matches
        assert "does not contain 'knitting', 'scarf'" in result["hint"]["message"]


def test_scores_are_probabilities_that_read_in_list_order_on_every_page(sdk_index):
    engine = open_engine(sdk_index)
    try:
        assert engine.ranker is not None  # the shipped record: calibrated scores
        first = engine.search("dependency declared with Provide", limit=3)
        second = engine.search("dependency declared with Provide", limit=3, offset=3)
        scores = [hit.score for hit in first.hits + second.hits]
        assert all(0.0 <= s <= 1.0 for s in scores) and scores == sorted(scores, reverse=True)
        again = engine.search("dependency declared with Provide", limit=6)
        assert [hit.score for hit in again.hits] == scores
        # A real match reads higher than the least bad candidate of a question the docs do not answer.
        unanswered = engine.search("a cake recipe for the client with sugar", limit=1, abstain=False)
        assert first.hits[0].score > 0.5 > unanswered.hits[0].score
    finally:
        engine.close()


def test_a_section_named_by_the_query_is_found_again_without_reading_its_candidates_again(sdk_index):
    # The headings of a query's best chunks are read and stemmed once: the same chunks come back query after query.
    engine = open_engine(sdk_index)
    read: list[int] = []

    def reading(rows):
        read.extend(rows)
        return engine.arrays.records.read(rows)

    try:
        finder = EvidenceFinder(engine._lexical, reading, engine._chunk_headings, engine.size)

        def evidence(query: str):
            scores = engine._lexical.score(engine._lexical.query_terms(query))
            return finder.find(query, scores, None)

        first = evidence("declare the dependency")
        assert first.heading and read  # "Declare the dependency" names a section, read from the page records
        read.clear()
        assert evidence("declare the dependency") == first and read == []
    finally:
        engine.close()


def test_a_name_the_docs_never_write_takes_away_an_identifiers_evidence(sdk_index):
    # "PostgreSQL VACUUM and table bloat" asked of Fastify's docs, whose plugin list writes PostgreSQL: a question
    # about a thing the docs never name (VACUUM, Django) is not answered because they write one of its identifiers.
    engine = open_engine(sdk_index)
    try:
        assert engine.search("WidgetClientV2 VACUUM and table bloat", limit=3).hits == ()
        assert engine.search("Django ORM migrations with WidgetClientV2", limit=3).hits == ()
        # Names the docs write, and capitalised words of a sentence, are no such thing.
        assert engine.search("WidgetClientV2 for TypeScript", limit=3).hits
        assert engine.search("Construct the client with an API key", limit=3).hits
    finally:
        engine.close()
