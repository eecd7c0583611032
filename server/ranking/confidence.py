"""How sure get_docs is that a chunk answers a topic, where hybrid search gives no calibrated score.

Hybrid hits carry a calibrated probability (server/ranking/calibration.py), which get_docs reports as
its confidence. An index without one (another embedding model, full text only) or a bm25 search has
only the fused, relative score, so confidence rests on two absolute signals instead:

- ``coverage``: the share of the topic's content words (BM25 terms, stopwords left out)
  that occur in the chunk, read from the index's own term statistics (the index store);
- ``similarity``: the chunk's best-window cosine similarity to the topic.

They are combined by a logistic curve fitted by ``docs-mcp train-ranking`` on the graded queries of five
corpora, and checked leaving one corpus out (the record's ``training.fallback_confidence``; see
corpus/guide/ranking.md). Below 0.5 means "look further".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docs_mcp.indexer.index_store import IndexStore
from docs_mcp.indexer.search_text import tokenize


@dataclass(frozen=True)
class Calibration:
    """Logistic weights: confidence = sigmoid(bias + w_similarity * similarity + w_coverage * coverage)."""

    bias: float
    w_similarity: float
    w_coverage: float


# Fitted on the first 20 fusion candidates of 587 graded queries over FastAPI, the bundled guide, OpenTelemetry,
# Dub and PowerShell 7.5 (label: graded relevant), as indexer/rankers.json records them (fallback_confidence).
HYBRID = Calibration(bias=-6.60, w_similarity=5.13, w_coverage=2.66)
# A full-text-only index has no similarity: coverage alone, fitted the same way.
LEXICAL = Calibration(bias=-5.19, w_similarity=0.0, w_coverage=3.83)


def confidence(similarity: float | None, coverage: float) -> float:
    """The 0-1 confidence for one chunk from its two signals (``similarity`` None without vectors)."""
    model = LEXICAL if similarity is None else HYBRID
    z = model.bias + model.w_similarity * (similarity or 0.0) + model.w_coverage * coverage
    return round(1.0 / (1.0 + math.exp(-z)), 3)


def term_coverage(store: IndexStore, topic: str, chunk_rows: Sequence[int]) -> Mapping[int, float]:
    """For each chunk row, the share of ``topic``'s content words it contains (1.0 when the topic has none).

    Raises:
        IndexFormatError: the index's full-text tables cannot be read.
    """
    terms = sorted({word.term for word in store.query_terms(tokenize(topic)) if not word.stopword})
    if not terms:
        return {row: 1.0 for row in chunk_rows}
    present: dict[int, set[str]] = {}
    for chunk, term in store.term_chunks(terms, chunk_rows):
        present.setdefault(chunk, set()).add(term)
    return {row: len(present.get(row, ())) / len(terms) for row in chunk_rows}
