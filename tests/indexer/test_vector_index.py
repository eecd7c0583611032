"""The approximate vector index: calibrated to recall@50 >= 0.98, adaptive per query, and exact when every list is probed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from docs_mcp.indexer.serving.vector_index import (
    CALIBRATION_RECALL,
    MIN_PROBED_WINDOWS,
    RECALL_AT,
    TARGET_RECALL,
    VectorIndex,
    ann_similarities,
    build_vector_index,
    probed_lists,
)


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def clustered(rng: np.random.Generator, chunks: int, dims: int) -> np.ndarray:
    """Folder topic + page topic + noise, like real embeddings (and the benchmark's synthetic ones)."""
    pages = np.arange(chunks) // 8
    folders = rng.integers(0, 12, pages.max() + 1)
    folder_topics = unit(rng.standard_normal((12, dims), dtype=np.float32))
    page_topics = unit(rng.standard_normal((pages.max() + 1, dims), dtype=np.float32))
    return unit(
        folder_topics[folders[pages]] + page_topics[pages] + unit(rng.standard_normal((chunks, dims), dtype=np.float32))
    )


def test_probes_are_calibrated_to_the_recall_target_and_hold_on_fresh_queries():
    rng = np.random.default_rng(0)
    vectors = clustered(rng, 4000, 32).astype(np.float32)
    rows = np.arange(len(vectors))
    index = build_vector_index(vectors, rows, rows)
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
    index = replace(build_vector_index(vectors, starts, chunks), probes=10**6, margin=2.0)
    query = vectors[7]
    best = np.full(400, -1.0, dtype=np.float32)
    best[chunks] = np.maximum.reduceat(vectors @ query, starts)
    assert len(probed_lists(index, query)) == len(index.centroids)
    assert np.allclose(ann_similarities(index, query, 400), best, atol=1e-6)


def test_a_query_probes_the_lists_within_the_margin_of_its_nearest():
    centroids = unit(
        np.array([[1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0]], dtype=np.float32)
    )
    starts = np.arange(4) * MIN_PROBED_WINDOWS
    vectors = np.repeat(centroids, MIN_PROBED_WINDOWS, axis=0)
    index = VectorIndex(
        centroids, starts, vectors, np.arange(len(vectors)), probes=3, recall=1.0, build_seconds=0.0, margin=0.35
    )
    assert probed_lists(index, centroids[0]).tolist() == [0, 1]  # list 1 at cosine 0.71: within 0.35 of list 0
    assert probed_lists(index, centroids[2]).tolist() == [2]  # the others at cosine 0
    assert probed_lists(index, unit(centroids[0] + centroids[2])).tolist() == [0, 1, 2]  # between clusters: all three


def test_clear_clusters_calibrate_a_margin_that_skips_lists_at_the_recall_target():
    rng = np.random.default_rng(2)
    pages = np.arange(20_000) // 8
    folders = rng.integers(0, 40, pages.max() + 1)
    folder_topics, page_topics = (
        unit(rng.standard_normal((40, 64), dtype=np.float32)),
        unit(rng.standard_normal((pages.max() + 1, 64), dtype=np.float32)),
    )
    vectors = unit(
        1.5 * folder_topics[folders[pages]]
        + page_topics[pages]
        + unit(rng.standard_normal((len(pages), 64), dtype=np.float32))
    )
    rows = np.arange(len(vectors))
    index = build_vector_index(vectors, rows, rows)
    assert 0 < index.margin < 2 and index.recall >= CALIBRATION_RECALL
    queries = unit(vectors[rng.choice(len(vectors), 100)] + unit(rng.standard_normal((100, 64), dtype=np.float32)))
    probed, found = [], []
    for query in queries:
        probed.append(len(probed_lists(index, query)))
        exact = set(np.argsort(-(vectors @ query))[:RECALL_AT].tolist())
        found.append(
            len(exact & set(np.argsort(-ann_similarities(index, query, len(vectors)))[:RECALL_AT].tolist())) / RECALL_AT
        )
    assert min(probed) < index.probes and np.mean(found) >= 0.98


def test_chunks_of_several_windows_are_found_at_the_recall_target():
    """Calibration counts a chunk found when its best window's list is probed; the search finds it at least as often."""
    rng = np.random.default_rng(4)
    vectors = clustered(rng, 3000, 24).astype(np.float32)
    starts = np.arange(0, 3000, 2)  # two windows per chunk
    index = build_vector_index(vectors, starts, np.arange(1500))
    queries = unit(vectors[rng.choice(len(vectors), 50)] + unit(rng.standard_normal((50, 24), dtype=np.float32)))
    found = []
    for query in queries:
        truth = set(np.argsort(-np.maximum.reduceat(vectors @ query, starts))[:RECALL_AT].tolist())
        found.append(
            len(truth & set(np.argsort(-ann_similarities(index, query, 1500))[:RECALL_AT].tolist())) / RECALL_AT
        )
    assert index.recall >= CALIBRATION_RECALL and np.mean(found) >= 0.95


def test_a_query_nearest_to_a_small_list_probes_on_until_enough_windows():
    """The margin alone would leave a query near a small outlying list with that list's few chunks."""
    dims = 8
    sizes = [3, MIN_PROBED_WINDOWS, MIN_PROBED_WINDOWS]
    centroids = np.eye(dims, dtype=np.float32)[:3]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    vectors = np.repeat(centroids, sizes, axis=0)
    index = VectorIndex(
        centroids, starts, vectors, np.arange(len(vectors)), probes=3, recall=1.0, build_seconds=0.0, margin=0.01
    )
    query = unit(np.array([1.0, 0.3, 0.1, 0, 0, 0, 0, 0], dtype=np.float32))  # list 0, then 1, then 2
    assert probed_lists(index, query).tolist() == [0, 1]
    assert probed_lists(index, unit(np.array([0, 1.0, 0.1, 0, 0, 0, 0, 0], dtype=np.float32))).tolist() == [1]
