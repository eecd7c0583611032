"""Fuzzy library-name matching: edit distance, trigram overlap and the 0-1 score."""

from __future__ import annotations

import pytest

from docs_mcp.indexer.libraries.library import Library
from docs_mcp.server.libraries.fuzzy import MAX_EDITS, best_score, compact, levenshtein, name_score
from docs_mcp.server.libraries.served_libraries import LibraryCatalog


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("abc", "", 3),
        ("kitten", "sitting", 3),
        ("fastpi", "fastapi", 1),
        ("pydnatic", "pydantic", 1),
        ("skd", "sdk", 1),
        ("ca", "abc", 3),
        ("same", "same", 0),
    ],
)
def test_levenshtein_matches_hand_computed_distances(a: str, b: str, distance: int) -> None:
    assert levenshtein(a, b) == distance
    assert levenshtein(b, a) == distance


def test_levenshtein_stops_early_past_the_limit() -> None:
    assert levenshtein("abcdefgh", "zyxwvuts", limit=MAX_EDITS) == MAX_EDITS + 1
    assert levenshtein("a", "abcdefgh", limit=2) == 3


def test_compact_ignores_case_spaces_and_punctuation() -> None:
    assert compact("Fast API") == compact("fast-api") == compact("FASTAPI") == "fastapi"


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("fastpi", "fastapi"),
        ("langchan", "langchain"),
        ("pydnatic", "pydantic"),
        ("quikweb", "quickweb"),
        ("skd", "sdk"),
    ],
)
def test_typos_within_three_edits_still_score_well(query: str, name: str) -> None:
    assert name_score(query, name) >= 0.6  # well above what unrelated names score (see below)


def test_exact_beats_prefix_beats_typo_beats_unrelated() -> None:
    exact, prefix, typo, other = (name_score(q, "fastapi") for q in ("FastAPI", "fast", "fastpi", "react"))
    assert exact == 1.0
    assert 1.0 > prefix > other
    assert 1.0 > typo > other
    assert other < 0.3


def test_scores_stay_within_zero_and_one() -> None:
    names = ["fastapi", "pydantic", "acme/cli", "x"]
    for query in ["", "f", "fastapi", "completely unrelated words", "x"]:
        for name in names:
            assert 0.0 <= name_score(query, name) <= 1.0


def test_best_score_takes_the_best_name() -> None:
    assert best_score("pydantic", ["acme", "pydantic"]) == 1.0
    assert best_score("anything", []) == 0.0


def _library(library_id: str, name: str, aliases: tuple[str, ...] = ()) -> Library:
    return Library(library_id, name, "", (), "", aliases, "", (), 0, "")


def test_an_id_with_a_typo_beats_a_library_named_like_a_word_of_its_org() -> None:
    libraries = (
        _library("docs-mcp/sdk", "SDK"),
        _library("modelcontextprotocol/docs", "Model Context Protocol", ("mcp",)),
    )
    catalog = LibraryCatalog({library.library_id: library for library in libraries})
    assert catalog.resolve("docs-mcp/skd")[0].library.library_id == "docs-mcp/sdk"
    assert (
        catalog.resolve("mcp docs")[0].library.library_id == "modelcontextprotocol/docs"
    )  # words still name libraries
