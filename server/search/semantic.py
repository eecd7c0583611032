"""Cosine similarity between a query vector and every chunk, over the memory-mapped vectors.

Long chunks are stored as several windows; a chunk's similarity is that of its
best window, so text past the model's input length still counts.
"""

from __future__ import annotations

import numpy as np

from docs_mcp.indexer.serving.arrays import Vectors
from docs_mcp.indexer.serving.vector_index import UNSCORED, VectorIndex, ann_similarities


def similarities(
    vectors: Vectors, query_vector: np.ndarray, num_chunks: int, index: VectorIndex | None = None
) -> np.ndarray:
    """A dense (chunks,) array of best-window cosine similarity; -1 for chunks without vectors.

    With an approximate ``index`` (large generations), only the chunks in the query's
    nearest lists are scored; the others count as having no vector.
    """
    if index is not None:
        return ann_similarities(index, np.asarray(query_vector, dtype=np.float32), num_chunks)
    # Without an approximate index the windows are one array in chunk order (WindowRows read an index's copy).
    assert isinstance(vectors.vectors, np.ndarray)
    per_window = np.dot(
        vectors.vectors, np.asarray(query_vector, dtype=np.float32)
    )  # releases the GIL (indexer/serving/vector_index.py)
    best = np.maximum.reduceat(per_window, vectors.starts)
    dense = np.full(num_chunks, UNSCORED, dtype=np.float32)
    dense[vectors.chunks] = best
    return dense


def chunk_similarities(
    vectors: Vectors, query_vector: np.ndarray, rows: np.ndarray, index: VectorIndex | None = None
) -> np.ndarray:
    """The exact best-window cosine of each chunk of ``rows`` (-1 for a chunk without vectors): for a few chunks.

    With an approximate ``index`` that maps windows to its rows, the vectors are read from its copy.
    """
    result = np.full(len(rows), UNSCORED, dtype=np.float32)
    groups = len(vectors.chunks)
    positions = np.minimum(np.searchsorted(vectors.chunks, rows), max(groups - 1, 0))
    have = np.flatnonzero(vectors.chunks[positions] == rows) if groups else positions[:0]
    if not len(have):
        return result
    positions = positions[have]
    lows = vectors.starts[positions]
    following = np.minimum(positions + 1, groups - 1)
    highs = np.where(positions + 1 < groups, vectors.starts[following], len(vectors.vectors))
    counts = highs - lows
    firsts = np.cumsum(counts) - counts  # where each chunk's windows begin among the gathered ones
    windows = np.repeat(lows - firsts, counts) + np.arange(int(counts.sum()))
    stored = (
        vectors.vectors[windows]
        if index is None or index.window_rows is None
        else index.vectors[index.window_rows[windows]]
    )
    per_window = np.dot(stored, np.asarray(query_vector, dtype=np.float32))
    result[have] = np.maximum.reduceat(per_window, firsts)
    return result


def first_window(vectors: Vectors, chunk: int) -> np.ndarray | None:
    """The vector of the chunk's first window, or None when it has none."""
    position = int(np.searchsorted(vectors.chunks, chunk))
    if position < len(vectors.chunks) and vectors.chunks[position] == chunk:
        return vectors.vectors[int(vectors.starts[position])]
    return None
