"""The ranking engine on a real index (real DuckDB file, real embedding model) of a corpus written here."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer import build_index, current_generation
from docs_mcp.indexer.errors import IndexerError, IndexFormatError
from docs_mcp.indexer.serving.arrays import SERVING_DIR
from docs_mcp.server.search.engine import open_engine

LANGS = {"python": "get_token()", "go": "GetToken()", "typescript": "getToken()"}


def _corpus(root: Path) -> None:
    files = {
        "metadata.json": json.dumps(
            {
                "corpus_description": "Acme SDK docs",
                "taxonomy": {
                    "language": {
                        "description": "SDK language",
                        "vector_collapse": True,
                        "filter_keeps_unset": True,
                        "filter_keeps": {"scope": "global*"},
                    },
                    "scope": {},
                },
            }
        ),
        ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
        "guides/errors.md": "# Errors\n\n## Rate limits\n\nWhen the server answers 429 the client raises `RateLimitError`; wait and try again.\n\n"
        "## Timeouts\n\nA request that takes longer than the deadline is cancelled.\n",
        "guides/pagination.md": "# Pagination\n\n## Cursors\n\nEach page carries `next_cursor`; pass it back to fetch the following page.\n",
        "guides/gardening.md": "# Gardening\n\n## Tomatoes\n\nWater tomato plants in the morning and stake them as they grow.\n",
    }
    for lang, call in LANGS.items():
        files[f"sdk/{lang}/.docs-mcp.json"] = json.dumps(
            {"version": "1", "metadata": {"language": lang, "scope": "sdk-specific"}}
        )
        files[f"sdk/{lang}/retries.md"] = (
            f"# Retries in {lang}\n\n## Retries\n\nThe client retries failed requests with exponential backoff and jitter, "
            "three attempts by default. Change the number of attempts with the retry settings.\n\n"
            f"## Authentication\n\nCall `{call}` to obtain an access token before the first request.\n"
        )
    for n in range(12):
        files[f"guides/topics/topic-{n:02d}.md"] = (
            f"# Topic {n}\n\n## Widgets {n}\n\nWidgets are configured per project; widget number {n} is blue.\n"
        )
    write_corpus(root, files)


def _built_index(tmp_path_factory, name: str, embeddings: str = "default") -> Path:
    """An index of the test corpus (_corpus) in a folder of its own, built with ``embeddings``."""
    root = tmp_path_factory.mktemp(f"engine-corpus-{name}")
    _corpus(root)
    index = tmp_path_factory.mktemp(f"engine-index-{name}") / "idx"
    build_index(root, index, embeddings=embeddings)
    return index


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return open_engine(_built_index(tmp_path_factory, "main"))


@pytest.fixture(scope="module")
def text_only_engine(tmp_path_factory):
    return open_engine(_built_index(tmp_path_factory, "text", embeddings="none"))


def ids(page):
    return [hit.chunk_id for hit in page.hits]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("RateLimitError", "guides/errors.md#errors/rate-limits"),
        ("next_cursor", "guides/pagination.md#pagination/cursors"),
        ("get_token", "sdk/python/retries.md#retries-in-python/authentication"),
        ("GetToken", "sdk/go/retries.md#retries-in-go/authentication"),
    ],
)
def test_exact_identifiers_rank_first(engine, query, expected):
    assert ids(engine.search(query, {}, limit=3))[0] == expected


def test_a_language_named_go_is_a_search_word_though_english_drops_it(text_only_engine):
    named = text_only_engine.search("retries in Go", {}, mode="bm25", limit=1).hits[0]
    unnamed = text_only_engine.search("retries", {}, mode="bm25", limit=1).hits[0]
    assert named.filepath == "sdk/go/retries.md" and named.score > unnamed.score  # "go" counted: it is a language here


def test_the_index_records_the_learned_ranking_and_hybrid_scores_are_probabilities(engine):
    assert engine.ranker is not None and engine.metadata["ranker"]["score"]["features"]
    learned = engine.search("retry with backoff", {}, limit=5).hits
    fused = engine.search("retry with backoff", {}, mode="fusion", limit=5).hits
    assert learned and all(0.0 < hit.score < 1.0 for hit in learned)
    assert fused and fused[0].score > 1.0  # the fusion's score is not a probability (file boost added)


def test_an_off_topic_question_finds_nothing_under_the_learned_ranking(engine):
    for question in ("what is the capital of France", "how do I bake sourdough bread at home"):
        assert engine.search(question, {}, limit=5).hits == ()


def test_without_abstention_the_gate_holds_nothing_back(engine):
    question = "how long should I wait before I retry baking sourdough bread"  # one word of the corpus
    assert engine.search(question, {}, limit=5).hits == ()
    hits = engine.search(question, {}, limit=5, abstain=False).hits
    assert hits and all(0.0 <= hit.score < 0.5 for hit in hits)  # ranked, and the gate's doubt shows in the score


def test_nonsense_finds_nothing_in_every_mode(engine):
    for mode in ("hybrid", "fusion", "bm25", "vector"):
        page = engine.search("zqxjv wvkplm", {}, mode=mode, limit=10)
        assert page.hits == () and not page.has_more


def test_vector_signal_finds_a_paraphrase_without_shared_words(engine):
    page = engine.search("how should I care for my vegetable garden", {}, mode="vector", limit=3)
    assert page.hits[0].filepath == "guides/gardening.md"
    assert page.hits[0].lexical_rank is None and page.hits[0].vector_rank == 1


def test_unfiltered_language_twins_collapse_to_one(engine):
    hits = engine.search("retries exponential backoff jitter", {}, limit=10).hits
    retries = [h for h in hits if h.heading == "Retries"]
    assert len(retries) == 1


def test_language_filter_applies_inside_the_search_and_keeps_neutral_guides(engine):
    page = engine.search("retries backoff", {"language": "go"}, limit=10)
    languages = {h.metadata.get("language") for h in page.hits}
    assert ids(page)[0] == "sdk/go/retries.md#retries-in-go/retries"
    assert languages <= {"go", None}
    neutral = engine.search("rate limits 429", {"language": "go"}, limit=5)
    assert ids(neutral)[0] == "guides/errors.md#errors/rate-limits"


def test_a_key_without_filter_rules_filters_exactly(tmp_path):
    root = tmp_path / "docs"
    _corpus(root)
    metadata = json.loads((root / "metadata.json").read_text())
    metadata["taxonomy"]["language"] = {"description": "SDK language"}
    (root / "metadata.json").write_text(json.dumps(metadata))
    build_index(root, tmp_path / "idx", embeddings="none")
    page = open_engine(tmp_path / "idx").search("rate limits 429 retries", {"language": "go"}, limit=10)
    assert page.hits and all(h.metadata.get("language") == "go" for h in page.hits)


def test_scope_filter_turns_off_the_language_auto_include(engine):
    page = engine.search("rate limits 429", {"language": "go", "scope": "sdk-specific"}, limit=5)
    assert all(h.metadata == {"language": "go", "scope": "sdk-specific"} for h in page.hits)


def test_pages_are_disjoint_and_concatenate_to_the_long_list(engine):
    full = ids(engine.search("widgets", {}, limit=50))
    assert len(full) == 12
    pages, offset = [], 0
    while True:
        page = engine.search("widgets", {}, limit=5, offset=offset)
        pages.extend(ids(page))
        offset += 5
        if not page.has_more:
            break
    assert pages == full


def test_snippet_shows_the_matched_words(engine):
    hit = engine.search("RateLimitError", {}, limit=1).hits[0]
    assert "RateLimitError" in hit.snippet


def test_full_text_only_index_searches_in_hybrid_mode(text_only_engine):
    assert not text_only_engine.has_vectors
    assert ids(text_only_engine.search("next_cursor", {}, limit=1)) == ["guides/pagination.md#pagination/cursors"]
    assert text_only_engine.search("how should I care for my vegetable garden", {}, mode="vector").hits == ()


def test_concurrent_searches_from_many_threads_equal_sequential_ones(engine):
    queries = [("retries backoff", {}), ("rate limits 429", {"language": "go"}), ("widgets", {}), ("GetToken", {})] * 6
    sequential = [engine.search(q, f, limit=5) for q, f in queries]
    with ThreadPoolExecutor(4) as pool:
        concurrent = list(pool.map(lambda qf: engine.search(qf[0], qf[1], limit=5), queries))
    assert concurrent == sequential


def test_a_hybrid_warm_up_leaves_the_first_search_nothing_to_compute(tmp_path_factory):
    # The model and the corpus' baselines (its probe questions embedded): what the first hybrid search would wait for.
    index = _built_index(tmp_path_factory, "warm")
    engine = open_engine(index)
    engine.warm("hybrid")
    assert engine._embedder is not None and engine._baselines is not None
    warmed = engine.baselines
    engine.search("retries", {}, mode="hybrid")
    assert engine.baselines is warmed
    engine.close()


def test_full_text_search_and_bm25_warm_never_load_the_model(tmp_path_factory):
    index = _built_index(tmp_path_factory, "lazy")
    engine = open_engine(index)
    engine.warm("bm25")
    assert engine.search("retries", {}, mode="bm25").hits
    assert engine._embedder is None and engine._baselines is None
    engine.search("retries", {}, mode="hybrid")
    assert engine._embedder is not None
    engine.close()
    with pytest.raises(IndexerError):  # its cursors are closed: nothing more is read from the store
        engine.store.page_contents("sdk/python/retries.md")


def test_an_index_without_serving_arrays_is_refused_with_the_rebuild_command(tmp_path_factory):
    index = _built_index(tmp_path_factory, "old", embeddings="none")
    shutil.rmtree(index / current_generation(index) / SERVING_DIR)  # as written by an older docs-mcp
    with pytest.raises(IndexFormatError, match="has no serving arrays") as raised:
        open_engine(index)
    assert f"docs-mcp index DOCS_DIR --out {index}" in raised.value.hint
