"""The approximate vector index (IVF) of a large generation: k-means lists, probed per query.

Below ``ANN_MIN_WINDOWS`` windows a query compares itself with every vector (exact, and
cheap: ~1 ms per 10k windows on one core).  Above it the build clusters the windows into
about sqrt(W) lists with k-means (trained on a sample) and stores the vectors list by
list; a query scores the centroids, then only the windows of its ``probes`` nearest lists.
``probes`` is chosen at build time as the fewest lists whose recall@50 against exact
search reaches ``CALIBRATION_RECALL`` on calibration queries (a window's vector plus as
much random noise: cosine 0.7, like a question about it), and is stored with that recall.
Those queries are easier than real questions, hence a stricter target than the 0.98 meant
for real ones: on FastAPI's golden queries (model embeddings), probes calibrated to 0.98
reached a recall@50 of 0.945, probes calibrated to 0.997 reached 0.984.
It is found by bisection, not just doubling: each probe scans ~1/L of the vectors, the
bulk of a query's cost.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from docs_mcp.errors import UsageError

ANN_MIN_WINDOWS = 50_000
# Benchmarks set this to build the approximate index below ANN_MIN_WINDOWS (0: always), to measure
# its effect on a corpus with relevance judgements (corpus/guide/benchmarks.md).
ANN_MIN_WINDOWS_VARIABLE = "DOCS_MCP_ANN_MIN_WINDOWS"
TARGET_RECALL = 0.98  # recall@50 meant for real questions
CALIBRATION_RECALL = 0.997  # what the (easier) calibration queries must reach for that
RECALL_AT = 50
CALIBRATION_QUERIES = 200
KMEANS_ITERATIONS = 8
SAMPLE_PER_LIST = 40
_BLOCK = 65_536


def ann_min_windows() -> int:
    """The number of windows from which a build makes the approximate index.

    Raises:
        UsageError: DOCS_MCP_ANN_MIN_WINDOWS is set to something other than a count.
    """
    value = os.environ.get(ANN_MIN_WINDOWS_VARIABLE, "").strip()
    if not value:
        return ANN_MIN_WINDOWS
    if not value.isdigit():
        raise UsageError(f"{ANN_MIN_WINDOWS_VARIABLE}={value!r} is not a number of windows.", f"Unset it, or set a whole number such as {ANN_MIN_WINDOWS}.")
    return int(value)


@dataclass(frozen=True)
class VectorIndex:
    """Windows grouped by list: list l holds rows ``starts[l]:starts[l+1]`` of ``vectors``/``chunks``."""

    centroids: np.ndarray  # (L, D) float32, unit length
    starts: np.ndarray  # (L+1,) int64
    vectors: np.ndarray  # (W, D) float32, in list order
    chunks: np.ndarray  # (W,) int64, chunk row of each window, in list order
    probes: int
    recall: float  # recall@RECALL_AT against exact search, on the calibration queries
    build_seconds: float


def build_vector_index(vectors: np.ndarray, starts: np.ndarray, chunks: np.ndarray, num_chunks: int, seed: int = 0) -> VectorIndex:
    """Cluster ``vectors`` (unit rows grouped by chunk: group g starts at ``starts[g]``, is chunk ``chunks[g]``)."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    window_chunks = np.repeat(chunks, np.diff(np.append(starts, len(vectors))))
    lists = max(1, int(np.sqrt(len(vectors))))
    centroids = _kmeans(vectors, lists, rng)
    assignment = np.concatenate([np.argmax(vectors[i : i + _BLOCK] @ centroids.T, axis=1) for i in range(0, len(vectors), _BLOCK)])
    order = np.argsort(assignment, kind="stable")
    list_starts = np.searchsorted(assignment[order], np.arange(lists + 1)).astype(np.int64)
    index = VectorIndex(centroids, list_starts, np.ascontiguousarray(vectors[order]), window_chunks[order].astype(np.int64), lists, 1.0, 0.0)
    probes, recall = _calibrate(index, vectors, starts, chunks, num_chunks, rng)
    return VectorIndex(index.centroids, list_starts, index.vectors, index.chunks, probes, recall, time.perf_counter() - started)


def ann_similarities(index: VectorIndex, query: np.ndarray, num_chunks: int, probes: int | None = None) -> np.ndarray:
    """Best-window cosine similarity of the chunks in the query's nearest lists; -1 for every other chunk."""
    probes = min(probes or index.probes, len(index.centroids))
    near = np.sort(np.argpartition(-np.dot(index.centroids, query), probes - 1)[:probes])
    lows, highs = index.starts[near], index.starts[near + 1]
    at = np.concatenate([[0], np.cumsum(highs - lows)])
    similarity = np.empty(int(at[-1]), dtype=np.float32)
    for lo, hi, start in zip(lows.tolist(), highs.tolist(), at.tolist()):
        # np.dot, not @: matmul keeps the GIL on a product this small (one list), so concurrent searches
        # queued behind each other; each list's rows are contiguous, so nothing is gathered.
        np.dot(index.vectors[lo:hi], query, out=similarity[start : start + hi - lo])
    dense = np.full(num_chunks, -1.0, dtype=np.float32)
    np.maximum.at(dense, np.concatenate([index.chunks[lo:hi] for lo, hi in zip(lows.tolist(), highs.tolist())]), similarity)
    return dense


def _kmeans(vectors: np.ndarray, lists: int, rng: np.random.Generator) -> np.ndarray:
    """Spherical k-means on a sample: centroids are unit vectors, similarity is the dot product."""
    sample = vectors[np.sort(rng.choice(len(vectors), min(len(vectors), lists * SAMPLE_PER_LIST), replace=False))]
    centroids = sample[rng.choice(len(sample), lists, replace=False)].copy()
    for _ in range(KMEANS_ITERATIONS):
        assignment = np.argmax(sample @ centroids.T, axis=1)
        order = np.argsort(assignment, kind="stable")
        present = np.unique(assignment)
        sums = np.add.reduceat(sample[order], np.searchsorted(assignment[order], present), axis=0)
        centroids[present] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centroids


def _calibrate(
    index: VectorIndex, vectors: np.ndarray, starts: np.ndarray, chunks: np.ndarray, num_chunks: int, rng: np.random.Generator
) -> tuple[int, float]:
    """The fewest probes whose mean recall@RECALL_AT reaches CALIBRATION_RECALL, and that recall."""
    picked = rng.choice(len(vectors), min(len(vectors), CALIBRATION_QUERIES), replace=False)
    noise = rng.standard_normal((len(picked), vectors.shape[1]), dtype=np.float32)
    queries = vectors[picked] + noise / np.linalg.norm(noise, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    best = np.concatenate(  # (chunks with vectors, queries): exact best-window similarity, block by block
        [np.maximum.reduceat(vectors[lo:hi] @ queries.T, starts[(starts >= lo) & (starts < hi)] - lo, axis=0) for lo, hi in _blocks(starts, len(vectors))]
    )
    truth = [set(chunks[np.argpartition(-column, min(RECALL_AT, len(column)) - 1)[:RECALL_AT]].tolist()) for column in best.T]

    def recall(probes: int) -> float:
        return float(np.mean([len(_top(ann_similarities(index, q, num_chunks, probes)) & t) / len(t) for q, t in zip(queries, truth)]))

    # Recall grows with probes (more lists scored, exactly): double until the target is reached, then bisect.
    short, enough = 0, 1
    reached = recall(enough)
    while reached < CALIBRATION_RECALL and enough < len(index.centroids):
        short, enough = enough, min(enough * 2, len(index.centroids))
        reached = recall(enough)
    if reached < CALIBRATION_RECALL:
        return enough, reached
    while enough - short > 1:
        middle = (short + enough) // 2
        found = recall(middle)
        if found >= CALIBRATION_RECALL:
            enough, reached = middle, found
        else:
            short = middle
    return enough, reached


def _blocks(starts: np.ndarray, windows: int) -> list[tuple[int, int]]:
    """Ranges of about _BLOCK windows that never split a chunk's windows."""
    blocks, lo = [], 0
    while lo < windows:
        following = int(np.searchsorted(starts, lo + _BLOCK))
        hi = int(starts[following]) if following < len(starts) else windows
        blocks.append((lo, hi))
        lo = hi
    return blocks


def _top(similarities: np.ndarray) -> set[int]:
    k = min(RECALL_AT, len(similarities))
    return set(np.argpartition(-similarities, k - 1)[:k].tolist())
