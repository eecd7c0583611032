"""Cosine similarity between a query vector and every chunk, over the memory-mapped vectors.

Long chunks are stored as several windows; a chunk's similarity is that of its
best window, so text past the model's input length still counts.
"""

from __future__ import annotations

import numpy as np

from docs_mcp.indexer.serving_arrays import Vectors
from docs_mcp.indexer.vector_index import VectorIndex, ann_similarities


def similarities(vectors: Vectors, query_vector: np.ndarray, num_chunks: int, index: VectorIndex | None = None) -> np.ndarray:
    """A dense (chunks,) array of best-window cosine similarity; -1 for chunks without vectors.

    With an approximate ``index`` (large generations), only the chunks in the query's
    nearest lists are scored; the others count as having no vector.
    """
    if index is not None:
        return ann_similarities(index, np.asarray(query_vector, dtype=np.float32), num_chunks)
    per_window = np.dot(vectors.vectors, np.asarray(query_vector, dtype=np.float32))  # releases the GIL (vector_index.py)
    best = np.maximum.reduceat(per_window, vectors.starts)
    dense = np.full(num_chunks, -1.0, dtype=np.float32)
    dense[vectors.chunks] = best
    return dense


def first_window(vectors: Vectors, chunk: int) -> np.ndarray | None:
    """The vector of the chunk's first window, or None when it has none."""
    position = int(np.searchsorted(vectors.chunks, chunk))
    if position < len(vectors.chunks) and vectors.chunks[position] == chunk:
        return vectors.vectors[int(vectors.starts[position])]
    return None
