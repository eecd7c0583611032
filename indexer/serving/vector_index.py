"""The approximate vector index (IVF) of a large generation: k-means lists, probed per query.

Below ``ANN_MIN_WINDOWS`` windows a query compares itself with every vector (exact, and
cheap: ~1 ms per 10k windows on one core).  Above it the build clusters the windows into
about sqrt(W) lists with k-means (trained on a sample) and stores the vectors list by
list; a query scores the centroids, then only the windows of the lists it probes.

Which lists: of the ``probes`` nearest centroids, those whose similarity to the query is
within ``margin`` of the nearest one (and the next nearest while they hold fewer than
MIN_PROBED_WINDOWS windows).  A query near one cluster probes few lists, a query between
clusters more, up to ``probes``: on the synthetic million (43 folders of very different
sizes) the median query scans 15k vectors instead of 100k at the same recall.  More lists do
not scan fewer: with 2 and 4 x sqrt(W) lists the median query still scanned 15.5k vectors, the
build took 55 and 104 s instead of 25, and the recall@50 fell from 0.998 to 0.997 and 0.990.
Both are chosen at build time from calibration queries (a window's vector plus as much
random noise: cosine 0.7, like a question about it): ``probes`` the fewest nearest lists,
then ``margin`` the smallest, whose recall@50 against exact search reaches
``CALIBRATION_RECALL``.  A chunk counts as found when the list of its best window is
probed (a lower bound of the recall: another of its windows may still rank it), so both
come from sorted per-chunk figures, without running a search per candidate setting.
Those queries are easier than real questions, hence a stricter target than the 0.98
meant for real ones, and a margin widened by MARGIN_SAFETY: on FastAPI's golden queries
(model embeddings), probes calibrated to 0.98 reached a recall@50 of 0.945, probes
calibrated to 0.997 reached 0.990, and so did they with the widened margin.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from docs_mcp.environment import variable
from docs_mcp.errors import UsageError

# The similarity of a chunk no probed list holds (and of a chunk without vectors): no cosine is below it.
UNSCORED = -1.0
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
# The calibrated margin is widened by half, as the calibration queries are easier than real ones: on FastAPI's
# golden queries (forced IVF, 45 lists) the calibrated margin (0.45) reached a recall@50 of 0.982, 1.5x of it the
# 0.990 of probing all ``probes`` lists; on the synthetic million it scans the same median (15k vectors).
MARGIN_SAFETY = 1.5
# A query whose nearest list is a small outlying cluster would see only that list through the margin.
MIN_PROBED_WINDOWS = 20 * RECALL_AT
_BLOCK = 65_536


def ann_min_windows() -> int:
    """The number of windows from which a build makes the approximate index.

    Raises:
        UsageError: DOCS_MCP_ANN_MIN_WINDOWS is set to something other than a count.
    """
    value = variable(ANN_MIN_WINDOWS_VARIABLE).strip()
    if not value:
        return ANN_MIN_WINDOWS
    if not value.isdigit():
        raise UsageError(
            f"{ANN_MIN_WINDOWS_VARIABLE}={value!r} is not a number of windows.",
            f"Unset it, or set a whole number such as {ANN_MIN_WINDOWS}.",
        )
    return int(value)


@dataclass(frozen=True)
class VectorIndex:
    """Windows grouped by list: list l holds rows ``starts[l]:starts[l+1]`` of ``vectors``/``chunks``."""

    centroids: np.ndarray  # (L, D) float32, unit length
    starts: np.ndarray  # (L+1,) int64
    vectors: np.ndarray  # (W, D) float32, in list order
    chunks: np.ndarray  # (W,) int64, chunk row of each window, in list order
    probes: int  # a query probes at most this many lists, its nearest ...
    recall: float  # recall@RECALL_AT against exact search, on the calibration queries (a lower bound)
    build_seconds: float
    margin: float = (
        2.0  # ... those within this cosine of its nearest list (2: all of them; indexes written before margins)
    )
    # The row of ``vectors`` holding each window (windows in chunk order, as in arrays.Vectors), so the
    # exact cosine of a few chunks reads the lists' copy, which probing keeps in memory anyway (None: older index).
    window_rows: np.ndarray | None = None  # (W,) int32


class WindowRows:
    """The window vectors in chunk order, read through an index's list-ordered copy.

    A generation with an approximate index stores its vectors once, in list order (ivf_vectors.npy);
    the exact cosines of a few chunks and the collapse read single windows through ``window_rows``.
    Indexing with an int, a slice or an array of window numbers gives what the chunk-ordered array would.
    """

    def __init__(self, index: VectorIndex) -> None:
        if index.window_rows is None:
            raise ValueError("the approximate index records no window rows")
        self._vectors, self._rows = index.vectors, index.window_rows
        self.shape = (len(self._rows), index.vectors.shape[1])

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, windows) -> np.ndarray:
        return self._vectors[self._rows[windows]]


def build_vector_index(vectors: np.ndarray, starts: np.ndarray, chunks: np.ndarray, seed: int = 0) -> VectorIndex:
    """Cluster ``vectors`` (unit rows grouped by chunk: group g starts at ``starts[g]``, is chunk ``chunks[g]``)."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    window_chunks = np.repeat(chunks, np.diff(np.append(starts, len(vectors))))
    lists = max(1, int(np.sqrt(len(vectors))))
    centroids = _kmeans(vectors, lists, rng)
    assignment = np.concatenate(
        [np.argmax(vectors[i : i + _BLOCK] @ centroids.T, axis=1) for i in range(0, len(vectors), _BLOCK)]
    )
    order = np.argsort(assignment, kind="stable")
    list_starts = np.searchsorted(assignment[order], np.arange(lists + 1)).astype(np.int64)
    probes, margin, recall = _calibrate(centroids, assignment, vectors, starts, rng)
    window_rows = np.empty(len(order), dtype=np.int32)
    window_rows[order] = np.arange(len(order), dtype=np.int32)
    return VectorIndex(
        centroids, list_starts, np.ascontiguousarray(vectors[order]), window_chunks[order].astype(np.int64), probes, recall,
        time.perf_counter() - started, margin, window_rows,
    )  # fmt: skip


def probed_lists(index: VectorIndex, query: np.ndarray) -> np.ndarray:
    """The lists ``query`` probes, ascending: of its ``probes`` nearest, those within ``margin`` of the nearest,
    and more of them, nearest first, until they hold MIN_PROBED_WINDOWS windows."""
    closeness = np.dot(index.centroids, query)
    probes = min(index.probes, len(closeness))
    near = np.argpartition(-closeness, probes - 1)[:probes]
    near = near[np.argsort(-closeness[near], kind="stable")]
    sizes = index.starts[near + 1] - index.starts[near]
    wanted = (closeness[near] >= closeness[near[0]] - index.margin) | (np.cumsum(sizes) - sizes < MIN_PROBED_WINDOWS)
    return np.sort(near[wanted])


def ann_similarities(index: VectorIndex, query: np.ndarray, num_chunks: int) -> np.ndarray:
    """Best-window cosine similarity of the chunks in the query's probed lists; -1 for every other chunk."""
    near = probed_lists(index, query)
    lows, highs = index.starts[near], index.starts[near + 1]
    at = np.concatenate([[0], np.cumsum(highs - lows)])
    similarity = np.empty(int(at[-1]), dtype=np.float32)
    for lo, hi, start in zip(lows.tolist(), highs.tolist(), at.tolist()):
        # np.dot, not @: matmul keeps the GIL on a product this small (one list), so concurrent searches
        # queued behind each other; each list's rows are contiguous, so nothing is gathered.
        np.dot(index.vectors[lo:hi], query, out=similarity[start : start + hi - lo])
    dense = np.full(num_chunks, UNSCORED, dtype=np.float32)
    np.maximum.at(
        dense, np.concatenate([index.chunks[lo:hi] for lo, hi in zip(lows.tolist(), highs.tolist())]), similarity
    )
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
    centroids: np.ndarray, assignment: np.ndarray, vectors: np.ndarray, starts: np.ndarray, rng: np.random.Generator
) -> tuple[int, float, float]:
    """The fewest probes, then the smallest margin (times MARGIN_SAFETY), whose recall@RECALL_AT reaches CALIBRATION_RECALL, and that recall.

    ``assignment`` is each window's list.  Each (query, true neighbour) pair weighs 1/(queries x neighbours) and
    is found when the list of the neighbour's best window is probed: among the query's ``probes`` nearest
    lists, and within ``margin`` of the nearest.
    """
    picked = rng.choice(len(vectors), min(len(vectors), CALIBRATION_QUERIES), replace=False)
    noise = rng.standard_normal((len(picked), vectors.shape[1]), dtype=np.float32)
    queries = vectors[picked] + noise / np.linalg.norm(noise, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    closeness = queries @ centroids.T  # (queries, lists)
    rank = np.empty(closeness.shape, dtype=np.int64)  # 1-based rank of each list by closeness, per query
    np.put_along_axis(rank, np.argsort(-closeness, axis=1), np.arange(1, len(centroids) + 1)[None, :], axis=1)
    ranks, gaps, weights = [], [], []
    for q, windows in enumerate(_nearest_best_windows(vectors, starts, queries)):
        lists = assignment[windows]
        ranks.append(rank[q, lists])
        gaps.append(closeness[q].max() - closeness[q, lists])
        weights.append(np.full(len(windows), 1.0 / (len(queries) * len(windows))))
    rank_of, gap_of, weight_of = np.concatenate(ranks), np.concatenate(gaps), np.concatenate(weights)
    probes = int(_smallest_reaching(rank_of, weight_of))
    probed = rank_of <= probes
    margin = min(MARGIN_SAFETY * float(_smallest_reaching(gap_of[probed], weight_of[probed])), 2.0)
    recall = float(weight_of[probed & (gap_of <= margin)].sum())
    return probes, margin, min(recall, 1.0)


def _smallest_reaching(values: np.ndarray, weights: np.ndarray) -> float:
    """The smallest v such that the weights of the values <= v add up to CALIBRATION_RECALL (of a total of 1)."""
    order = np.argsort(values, kind="stable")
    reached = np.cumsum(weights[order])
    at = min(int(np.searchsorted(reached, CALIBRATION_RECALL - 1e-9)), len(order) - 1)
    return values[order][at]


def _nearest_best_windows(vectors: np.ndarray, starts: np.ndarray, queries: np.ndarray) -> list[np.ndarray]:
    """Per query, the best window of each of its RECALL_AT nearest chunks by exact best-window similarity."""
    blocks = _blocks(starts, len(vectors))
    best = np.concatenate(  # (chunks with vectors, queries): exact best-window similarity, block by block
        [
            np.maximum.reduceat(vectors[lo:hi] @ queries.T, starts[(starts >= lo) & (starts < hi)] - lo, axis=0)
            for lo, hi in blocks
        ]
    )
    ends = np.append(starts[1:], len(vectors))
    found = []
    for q, column in enumerate(best.T):
        groups = np.argpartition(-column, min(RECALL_AT, len(column)) - 1)[:RECALL_AT]
        found.append(
            np.array(
                [starts[g] + int(np.argmax(vectors[starts[g] : ends[g]] @ queries[q])) for g in groups], dtype=np.int64
            )
        )
    return found


def _blocks(starts: np.ndarray, windows: int) -> list[tuple[int, int]]:
    """Ranges of about _BLOCK windows that never split a chunk's windows."""
    blocks, lo = [], 0
    while lo < windows:
        following = int(np.searchsorted(starts, lo + _BLOCK))
        hi = int(starts[following]) if following < len(starts) else windows
        blocks.append((lo, hi))
        lo = hi
    return blocks
