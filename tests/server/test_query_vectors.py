"""Query embeddings run beside the rest of a search, once per query, and a failure is not remembered."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer import build_index
from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models.loading import load_embedder
from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.search.query_vectors import QueryVectors

WAIT = 60  # seconds: a generous bound for a thread that should answer at once


class CountingEmbedder:
    """Embeds by hashing the text; counts calls and can hold them until released."""

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.calls: list[str] = []
        self.hold = hold
        self.entered = threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        self.entered.set()
        if self.hold is not None:
            assert self.hold.wait(WAIT)
        vector = np.random.default_rng(abs(hash(text)) % 2**32).standard_normal(8).astype(np.float32)
        return vector / np.linalg.norm(vector)


def test_a_query_embeds_once_and_is_remembered() -> None:
    embedder = CountingEmbedder()
    vectors = QueryVectors(lambda: embedder)
    first = vectors.get("retry with backoff")
    vectors.begin("retry with backoff")
    assert np.array_equal(vectors.get("retry with backoff"), first)
    assert embedder.calls == ["retry with backoff"]


def test_searches_asking_for_a_query_in_flight_wait_for_that_embedding() -> None:
    hold = threading.Event()
    embedder = CountingEmbedder(hold)
    vectors = QueryVectors(lambda: embedder)
    vectors.begin("pagination")
    assert embedder.entered.wait(WAIT)
    results: list[np.ndarray] = []
    askers = [threading.Thread(target=lambda: results.append(vectors.get("pagination"))) for _ in range(4)]
    for asker in askers:
        asker.start()
    hold.set()
    for asker in askers:
        asker.join(WAIT)
    assert len(results) == 4 and all(np.array_equal(r, results[0]) for r in results)
    assert embedder.calls == ["pagination"]


def test_a_failed_embedding_is_reported_and_tried_again() -> None:
    attempts = []

    def broken():
        attempts.append(1)
        raise ModelLoadError("Cannot load the embedding model: gone", "Reinstall it.")

    vectors = QueryVectors(broken)
    for _ in range(2):
        with pytest.raises(ModelLoadError, match="gone"):
            vectors.get("webhooks")
    assert len(attempts) == 2


def test_a_hybrid_search_begins_embedding_the_query_before_it_scores_the_words(tmp_path: Path, monkeypatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(
        "# Guide\n\n## Retries\n\nRetry with exponential backoff.\n\n## Pages\n\nPaginate with cursors.\n"
    )
    build_index(docs, tmp_path / "index")
    embedding = threading.Event()

    class Announces:
        def embed_query(self, text: str) -> np.ndarray:
            embedding.set()
            return load_embedder().embed_query(text)

    engine = open_engine(tmp_path / "index", embedder=Announces())
    score = engine._lexical.score

    def score_once_the_query_embeds(terms, **options):
        # A search that embedded only after scoring the words would leave this waiting, and fail.
        assert embedding.wait(WAIT), "the query was not embedding while the words were scored"
        return score(terms, **options)

    monkeypatch.setattr(engine._lexical, "score", score_once_the_query_embeds)
    try:
        hits = engine.search("retry backoff", mode="hybrid").hits
    finally:
        engine.close()
    assert hits and hits[0].heading == "Retries"
