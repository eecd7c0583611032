"""Serving arrays: what a search reads per query, as ``.npy`` files the server memory-maps (the format).

``writer`` writes them at build time, ``reader`` maps them for the server; this
module holds what both agree on: the records, the folder and file names, the version.

A build writes them into ``DIR/<generation>/serving/`` after the full-text index, from the
generation's own tables; the server maps them read-only (``numpy.load(mmap_mode='r')``), so
opening or swapping a generation copies no corpus into Python objects, the OS pages in
only what queries touch, and every process serving the same generation shares those pages.
What a hit shows of its chunk (heading, snippet text, metadata) is in the page records
(page_records.py), mapped the same way and read for the hits of a page only.

Files (N chunks, T terms, P postings, F full-text fields, W vector windows of D dims):

    manifest.json          version, sizes, field weights, stopwords, taxonomy keys and values, role names
    terms.npy              (bytes,) uint8: the terms, UTF-8, sorted bytewise, concatenated
    term_offsets.npy       (T+1,) int64: term t is terms[offsets[t]:offsets[t+1]]
    term_df.npy            (T,) int64: documents holding term t
    term_starts.npy        (T+1,) int64: postings of term t are rows starts[t]:starts[t+1]
    posting_docs.npy       (P,) int32: chunk row (chunks.id), ascending within a term
    posting_weights.npy    (P,) float32: the posting's BM25F score at the manifest's field weights
    posting_tf.npy         (P, F) float32: term frequency per field (for other field weights)
    field_lengths.npy      (N, F) float32: tokens per field
    file_codes.npy         (N,) int32: the chunk's file, as a code
    file_order.npy         (N,) int64: chunk rows grouped by file (stable), for per-file maxima
    file_starts.npy        (files,) int64: where each file's group starts in file_order
    heading_codes.npy      (N,) int32: the chunk's case-folded heading, as a code
    roles.npy              (N, R) float32: what each chunk is, one column per manifest role (roles.py)
    taxonomy_codes.npy     (K, N) int32: per metadata key (sorted), each chunk's value code; -1 unset
    vectors.npy            (W, D) float32, L2-normalised, ordered by chunk then window; not written with an
                           approximate index, whose ivf_vectors.npy holds the same rows in list order
    vector_starts.npy      (G,) int64: first window row of each chunk that has vectors
    vector_chunks.npy      (G,) int64: the chunk row of each such group
    ivf_*.npy              from ANN_MIN_WINDOWS windows on (vector_index.py): the approximate vector index
    records.bin, record_offsets.npy   the page records (page_records.py)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from docs_mcp.indexer.serving.page_records import PageRecords
from docs_mcp.indexer.serving.vector_index import VectorIndex, WindowRows

SERVING_DIR = "serving"
SERVING_VERSION = "4"  # 2: page records; 3: chunk roles and stopwords; 4: no vectors.npy beside an approximate index
# Version 3 differs only in keeping vectors.npy beside an approximate index, which this version still reads.
READABLE_VERSIONS = ("3", SERVING_VERSION)
MANIFEST_FILE = "manifest.json"
UNSET = -1
# The file of each Postings array, and the per-chunk arrays of ServingArrays stored under their own names:
# the writer saves and the reader maps exactly these.
POSTING_FILES = {
    "terms": "terms", "term_offsets": "term_offsets", "df": "term_df", "starts": "term_starts",
    "docs": "posting_docs", "weights": "posting_weights", "tf": "posting_tf", "field_lengths": "field_lengths",
}  # fmt: skip
CHUNK_FILES = ("file_codes", "file_order", "file_starts", "heading_codes", "roles", "taxonomy_codes")


@dataclass(frozen=True)
class Postings:
    """BM25F postings: for term t, rows ``starts[t]:starts[t+1]`` of ``docs``, ``weights`` and ``tf``."""

    terms: np.ndarray  # (bytes,) uint8, sorted terms concatenated
    term_offsets: np.ndarray  # (T+1,) int64
    df: np.ndarray  # (T,) int64
    starts: np.ndarray  # (T+1,) int64
    docs: np.ndarray  # (P,) int32
    weights: np.ndarray  # (P,) float32 at ``field_weights``
    tf: np.ndarray  # (P, F) float32
    field_lengths: np.ndarray  # (N, F) float32
    field_weights: tuple[float, ...]
    stopwords: frozenset[str] = frozenset()  # the words the full-text index leaves out

    @property
    def num_docs(self) -> int:
        return len(self.field_lengths)

    def term_id(self, term: str) -> int | None:
        """The id of ``term`` (binary search over the sorted terms), or None when no chunk holds it."""
        key = term.encode()
        lo, hi = 0, len(self.term_offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self._term(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(self.term_offsets) - 1 and self._term(lo) == key else None

    def _term(self, t: int) -> bytes:
        return self.terms[int(self.term_offsets[t]) : int(self.term_offsets[t + 1])].tobytes()


@dataclass(frozen=True)
class Vectors:
    """Window vectors ordered by chunk; ``starts`` marks each chunk's first window."""

    vectors: np.ndarray | WindowRows  # (W, D) float32, L2-normalised
    starts: np.ndarray  # (G,) int64
    chunks: np.ndarray  # (G,) int64


@dataclass(frozen=True)
class ServingArrays:
    """One generation's serving arrays (memory-mapped when opened from disk)."""

    num_chunks: int
    postings: Postings
    file_codes: np.ndarray  # (N,) int32
    file_order: np.ndarray  # (N,) int64
    file_starts: np.ndarray  # (files,) int64
    heading_codes: np.ndarray  # (N,) int32
    roles: np.ndarray  # (N, R) float32, columns named by role_names
    role_names: tuple[str, ...]
    taxonomy_keys: tuple[str, ...]
    taxonomy_values: Mapping[str, tuple[str, ...]]
    taxonomy_codes: np.ndarray  # (K, N) int32
    vectors: Vectors | None
    records: PageRecords
    vector_index: VectorIndex | None = None  # only past vector_index.ANN_MIN_WINDOWS windows
