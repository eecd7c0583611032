"""Cosine similarity between a query vector and every chunk, held in numpy.

Long chunks are stored as several windows; a chunk's similarity is that of its
best window, so text past the model's input length still counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docs_mcp.indexer.schema import VECTORS_TABLE


@dataclass(frozen=True)
class VectorMatrix:
    """All window vectors, ordered by chunk; ``starts`` marks each chunk's first window."""

    vectors: np.ndarray  # (windows, dim) float32, L2-normalised
    starts: np.ndarray  # (chunks with vectors,) first window row per chunk
    chunks: np.ndarray  # (chunks with vectors,) chunks.id of each group
    num_chunks: int


def load_vectors(conn, num_chunks: int) -> VectorMatrix | None:
    """Read the vectors table, or None for a full-text-only index."""
    tables = {row[0] for row in conn.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()}
    if VECTORS_TABLE not in tables:
        return None
    rows = conn.execute(f"SELECT chunk, vec FROM {VECTORS_TABLE} ORDER BY chunk, \"window\"").fetchnumpy()
    chunk = rows["chunk"].astype(np.int64)
    if len(chunk) == 0:
        return None
    vectors = np.asarray(np.stack(rows["vec"]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    first = np.ones(len(chunk), dtype=bool)
    first[1:] = chunk[1:] != chunk[:-1]
    starts = np.flatnonzero(first)
    return VectorMatrix(vectors, starts, chunk[starts], num_chunks)


def similarities(matrix: VectorMatrix, query_vector: np.ndarray) -> np.ndarray:
    """A dense (chunks,) array of best-window cosine similarity; -1 for chunks without vectors."""
    per_window = matrix.vectors @ np.asarray(query_vector, dtype=np.float32)
    best = np.maximum.reduceat(per_window, matrix.starts)
    dense = np.full(matrix.num_chunks, -1.0, dtype=np.float32)
    dense[matrix.chunks] = best
    return dense
