"""Agent-written expansions in the engine: each part reaches its signal, and without them nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.search.expansion import EXTRA_WEIGHT, Expansions, QueryLegs

GOLDEN = Path(__file__).resolve().parents[2] / "eval" / "golden" / "corpus.jsonl"
QUERIES = [
    "RateLimitError",
    "how do I page through results",
    "snake_case_helper",
    "429",
    "completely unrelated gardening",
]


@pytest.fixture(scope="module")
def engine(tiny_index):
    engine = open_engine(tiny_index)
    yield engine
    engine.close()


def test_the_legs_route_each_part_to_its_signal():
    legs = QueryLegs.of(
        "slow down errors",
        Expansions("RateLimitError 429", "What error means too many requests?", "A 429 raises RateLimitError."),
    )
    assert legs.lexical == "slow down errors RateLimitError 429"
    assert legs.lexical_extra == "What error means too many requests? A 429 raises RateLimitError."
    assert legs.vector == ("slow down errors", "What error means too many requests?", "A 429 raises RateLimitError.")
    assert (
        legs.gate
        == "slow down errors RateLimitError 429 What error means too many requests? A 429 raises RateLimitError."
    )
    assert legs.asked == "slow down errors"  # whether the search is a lookup is the query alone
    assert QueryLegs.of("q", Expansions(keywords="  ")) == QueryLegs.of("q", None) == QueryLegs.plain("q")


@pytest.mark.parametrize("mode", ["hybrid", "fusion", "bm25", "vector"])
@pytest.mark.parametrize("query", QUERIES)
def test_a_query_without_expansions_is_answered_exactly_as_before(engine, query, mode):
    before = engine.search(query, mode=mode, limit=10)
    assert engine.search(query, mode=mode, limit=10, expansions=None) == before
    assert engine.search(query, mode=mode, limit=10, expansions=Expansions()) == before


def test_keywords_reach_the_full_text_side(engine):
    assert not engine.search("gardening tips", mode="bm25").hits
    found = engine.search("gardening tips", mode="bm25", expansions=Expansions(keywords="snake_case_helper")).hits
    assert found[0].chunk_id.startswith("sdk/python/helpers.md")
    assert "snake_case_helper" in found[0].snippet


def test_the_answer_counts_on_the_full_text_side_at_a_lower_weight(engine):
    as_keyword = engine.search("xyzzy", mode="bm25", expansions=Expansions(keywords="support")).hits
    as_answer = engine.search("xyzzy", mode="bm25", expansions=Expansions(hypothetical_answer="support")).hits
    assert [h.chunk_id for h in as_answer] == [h.chunk_id for h in as_keyword]
    assert as_answer[0].score == pytest.approx(EXTRA_WEIGHT * as_keyword[0].score, rel=1e-5)


def test_the_question_and_answer_move_the_vector_side(engine):
    plain = engine.search("my calls get refused for going too fast", mode="vector", limit=3).hits
    expanded = engine.search(
        "my calls get refused for going too fast", mode="vector", limit=3,
        expansions=Expansions(question="What happens when the rate limit is exceeded?",
                              hypothetical_answer="A 429 status means the rate limit was exceeded; catch RateLimitError and wait."),
    ).hits  # fmt: skip
    assert [h.chunk_id for h in plain] != [h.chunk_id for h in expanded]
    assert any("rate" in h.snippet.lower() for h in expanded[:2])


@pytest.mark.parametrize("golden_id", ["corpus-001", "corpus-016"])  # RateLimitError, suggested_filters
def test_a_lookup_stays_a_lookup_with_the_agents_expansions(corpus_index, golden_id):
    """Keywords appended to a bare identifier made it a sentence of words, and the section its heading names lost
    the top to one that merely uses it (Dub's keyword queries 0.856 -> 0.785 with typed expansions)."""
    line = next(
        entry for entry in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines()) if entry["id"] == golden_id
    )
    engine = open_engine(corpus_index)
    try:
        alone = engine.search(line["query"], mode="hybrid", limit=3).hits
        expanded = engine.search(
            line["query"], mode="hybrid", limit=3, expansions=Expansions(**line["expansions"])
        ).hits
    finally:
        engine.close()
    assert expanded[0].chunk_id == alone[0].chunk_id
