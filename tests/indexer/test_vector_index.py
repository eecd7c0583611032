"""The approximate vector index: calibrated to recall@50 >= 0.98, and exact when every list is probed."""

from __future__ import annotations

import numpy as np

from docs_mcp.indexer.vector_index import CALIBRATION_RECALL, RECALL_AT, TARGET_RECALL, ann_similarities, build_vector_index


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def clustered(rng: np.random.Generator, chunks: int, dims: int) -> np.ndarray:
    """Folder topic + page topic + noise, like real embeddings (and the benchmark's synthetic ones)."""
    pages = np.arange(chunks) // 8
    folders = rng.integers(0, 12, pages.max() + 1)
    folder_topics = unit(rng.standard_normal((12, dims), dtype=np.float32))
    page_topics = unit(rng.standard_normal((pages.max() + 1, dims), dtype=np.float32))
    return unit(folder_topics[folders[pages]] + page_topics[pages] + unit(rng.standard_normal((chunks, dims), dtype=np.float32)))


def test_probes_are_calibrated_to_the_recall_target_and_hold_on_fresh_queries():
    rng = np.random.default_rng(0)
    vectors = clustered(rng, 4000, 32).astype(np.float32)
    rows = np.arange(len(vectors))
    index = build_vector_index(vectors, rows, rows, len(vectors))
    assert index.recall >= CALIBRATION_RECALL >= TARGET_RECALL and index.probes < len(index.centroids)
    queries = unit(vectors[rng.choice(len(vectors), 50)] + unit(rng.standard_normal((50, 32), dtype=np.float32)))
    found = []
    for query in queries:
        exact = set(np.argsort(-(vectors @ query))[:RECALL_AT].tolist())
        approximate = set(np.argsort(-ann_similarities(index, query, len(vectors)))[:RECALL_AT].tolist())
        found.append(len(exact & approximate) / RECALL_AT)
    assert np.mean(found) >= 0.95


def test_probing_every_list_is_exact_with_windows_grouped_by_chunk():
    rng = np.random.default_rng(1)
    vectors = unit(rng.standard_normal((600, 16), dtype=np.float32)).astype(np.float32)
    starts = np.arange(0, 600, 3)  # three windows per chunk
    chunks = np.arange(200) * 2  # chunk rows with gaps: chunks without vectors exist
    index = build_vector_index(vectors, starts, chunks, 400)
    query = vectors[7]
    best = np.full(400, -1.0, dtype=np.float32)
    best[chunks] = np.maximum.reduceat(vectors @ query, starts)
    assert np.allclose(ann_similarities(index, query, 400, probes=len(index.centroids)), best, atol=1e-6)
