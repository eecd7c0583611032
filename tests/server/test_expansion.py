"""Agent-written expansions in the engine: each part reaches its signal, and without them nothing changes."""

from __future__ import annotations

import pytest

from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.search.expansion import EXTRA_WEIGHT, Expansions, QueryLegs

QUERIES = ["RateLimitError", "how do I page through results", "snake_case_helper", "429", "completely unrelated gardening"]


@pytest.fixture(scope="module")
def engine(tiny_index):
    engine = open_engine(tiny_index)
    yield engine
    engine.close()


def test_the_legs_route_each_part_to_its_signal():
    legs = QueryLegs.of("slow down errors", Expansions("RateLimitError 429", "What error means too many requests?", "A 429 raises RateLimitError."))
    assert legs.lexical == "slow down errors RateLimitError 429"
    assert legs.lexical_extra == "What error means too many requests? A 429 raises RateLimitError."
    assert legs.vector == ("slow down errors", "What error means too many requests?", "A 429 raises RateLimitError.")
    assert legs.gate == "slow down errors RateLimitError 429 What error means too many requests? A 429 raises RateLimitError."
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
