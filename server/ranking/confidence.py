"""How sure get_docs is that a chunk answers a topic: a 0-1 estimate from two absolute signals.

The fused search score is relative (the best hit of any query scores about 1), so it
cannot say "nothing here really matches".  Two signals can:

- ``coverage``: the share of the topic's content words (BM25 terms, stopwords left out)
  that occur in the chunk, read from the index's own term statistics (the index store);
- ``similarity``: the chunk's best-window cosine similarity to the topic.

They are combined by a logistic curve fitted on graded golden queries (the label: the
chunk is relevant to its query); see corpus/guide/libraries.md for the fit and how
confidence relates to correctness.  Below 0.5 means "look further".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from docs_mcp.indexer.index_store import IndexStore
from docs_mcp.server.search.lexical import tokenize


@dataclass(frozen=True)
class Calibration:
    """Logistic weights: confidence = sigmoid(bias + w_similarity * similarity + w_coverage * coverage)."""

    bias: float
    w_similarity: float
    w_coverage: float


# Logistic regression on ../shared/golden/fastapi.jsonl: 40 queries x their top-10 hybrid hits, label "graded
# relevant"; held out, eval/golden/corpus.jsonl scores a Brier of 0.12 over its candidates (see the guide page).
HYBRID = Calibration(bias=-4.79, w_similarity=5.31, w_coverage=1.87)
# A full-text-only index has no similarity: coverage alone, fitted the same way.
LEXICAL = Calibration(bias=-2.85, w_similarity=0.0, w_coverage=3.04)


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
