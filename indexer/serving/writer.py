"""Writing a generation's serving arrays (arrays.py) from its DuckDB tables, at build time.

Postings come from the full-text index's tables, scored once with BM25F (bm25f.py); vectors from
the vectors table, grouped by chunk and, past ANN_MIN_WINDOWS windows, indexed approximately
(vector_index.py); per-chunk codes (files, headings, taxonomy, roles) and the page records
(page_records.py) from the chunks table. The manifest is written last.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson

from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.schema import CHUNKS_TABLE, FTS_FIELDS, FTS_SCHEMA, VECTORS_TABLE
from docs_mcp.indexer.serving import vector_index
from docs_mcp.indexer.serving.arrays import (
    CHUNK_FILES,
    MANIFEST_FILE,
    POSTING_FILES,
    SERVING_DIR,
    SERVING_VERSION,
    UNSET,
    Postings,
    ServingArrays,
    Vectors,
)
from docs_mcp.indexer.serving.bm25f import DEFAULT_FIELD_WEIGHTS, bm25f_weights
from docs_mcp.indexer.serving.page_records import write_page_records
from docs_mcp.indexer.serving.roles import ROLES, read_roles
from docs_mcp.indexer.serving.vector_index import VectorIndex

# Postings are read from DuckDB for terms holding about this many at a time: reading all of a million chunks'
# (62M postings) at once took ~190 bytes each at the peak, 12 GB of the build's 14.
POSTINGS_BATCH = 4_000_000
# Vectors are read from DuckDB this many rows at a time, so a build holds one batch of Python objects.
VECTOR_BATCH = 65_536


def read_postings(
    conn: duckdb.DuckDBPyConnection, num_chunks: int, field_weights: Sequence[float] = DEFAULT_FIELD_WEIGHTS
) -> Postings:
    """The postings of the full-text index in ``conn`` (tables of PRAGMA create_fts_index on chunks).

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    fields = len(field_weights)
    dictionary = conn.execute(f"SELECT termid, term, df FROM {FTS_SCHEMA}.dict").fetchnumpy()
    # Terms sorted bytewise, so a lookup is a binary search over the mapped blob.
    encoded = [str(term).encode() for term in dictionary["term"]]
    order = sorted(range(len(encoded)), key=encoded.__getitem__)
    new_id = np.empty(int(dictionary["termid"].max()) + 1 if len(order) else 0, dtype=np.int64)
    new_id[dictionary["termid"].astype(np.int64)[order]] = np.arange(len(order))
    lengths = np.fromiter((len(encoded[i]) for i in order), dtype=np.int64, count=len(order))
    term_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    terms = np.frombuffer(b"".join(encoded[i] for i in order), dtype=np.uint8)
    df = dictionary["df"].astype(np.int64)[order]
    field_lengths = np.zeros((num_chunks, fields), dtype=np.float32)
    parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = (
        [np.zeros(0, dtype=np.int64)],
        [np.zeros(0, dtype=np.int32)],
        [np.zeros((0, fields), dtype=np.float32)],
    )
    for low, high in _termid_ranges(dictionary["termid"], dictionary["df"]):
        for part, array in zip(parts, _posting_batch(conn, new_id, field_lengths, low, high)):
            part.append(array)
    by_term = np.argsort(np.concatenate(parts[0]), kind="stable")  # a term's postings are in one batch, by chunk
    posting_term, posting_doc, tf = (_gathered(part, by_term) for part in parts)
    weights = bm25f_weights(tf, posting_doc, df[posting_term].astype(np.float64), field_lengths, field_weights)
    starts = np.searchsorted(posting_term, np.arange(len(df) + 1)).astype(np.int64)
    stopwords = frozenset(str(row[0]) for row in conn.execute(f"SELECT sw FROM {FTS_SCHEMA}.stopwords").fetchall())
    return Postings(
        terms, term_offsets, df, starts, posting_doc, weights, tf, field_lengths, tuple(field_weights), stopwords
    )


def _gathered(part: list[np.ndarray], order: np.ndarray) -> np.ndarray:
    """The concatenation of ``part`` in ``order``; ``part`` is emptied, so one array's batches are held at a time."""
    whole = np.concatenate(part)
    part.clear()
    return whole[order]


def _termid_ranges(termids: np.ndarray, df: np.ndarray) -> list[tuple[int, int]]:
    """Ranges of DuckDB term ids holding about POSTINGS_BATCH postings each (a term's df is its postings)."""
    if not len(termids):
        return []
    order = np.argsort(termids, kind="stable")
    ids, reached = termids[order].astype(np.int64), np.cumsum(df[order])
    cuts = np.searchsorted(reached, np.arange(POSTINGS_BATCH, int(reached[-1]), POSTINGS_BATCH))
    bounds = [int(ids[0]), *(int(ids[c]) + 1 for c in cuts), int(ids[-1]) + 1]
    return [(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]


def _posting_batch(
    conn: duckdb.DuckDBPyConnection, new_id: np.ndarray, field_lengths: np.ndarray, low: int, high: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The postings of the terms with DuckDB ids in [low, high): (sorted term id, chunk row, per-field tf), by term then chunk.

    Adds their token counts to ``field_lengths`` (whole numbers: exact in any order).
    """
    rows = conn.execute(
        f"""SELECT t.termid, d.name AS doc, t.fieldid, count(*) AS tf
            FROM {FTS_SCHEMA}.terms t JOIN {FTS_SCHEMA}.docs d USING (docid)
            WHERE t.termid >= ? AND t.termid < ?
            GROUP BY ALL""",
        [low, high],
    ).fetchnumpy()
    term = new_id[rows["termid"].astype(np.int64)]
    doc = rows["doc"].astype(np.int64)
    field = rows["fieldid"].astype(np.int64)
    count = rows["tf"].astype(np.float32)
    del rows
    by_posting = np.lexsort((field, doc, term))
    term, doc, field, count = term[by_posting], doc[by_posting], field[by_posting], count[by_posting]
    # One posting per (term, doc); per-field counts side by side.
    new_posting = np.ones(len(term), dtype=bool)
    new_posting[1:] = (term[1:] != term[:-1]) | (doc[1:] != doc[:-1])
    tf = np.zeros((int(new_posting.sum()), field_lengths.shape[1]), dtype=np.float32)
    tf[np.cumsum(new_posting) - 1, field] = count
    np.add.at(field_lengths, (doc, field), count)
    return term[new_posting], doc[new_posting].astype(np.int32), tf


def read_vectors(conn: duckdb.DuckDBPyConnection) -> Vectors | None:
    """The generation's window vectors, L2-normalised, or None for a full-text-only index.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    tables = {
        row[0] for row in conn.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()
    }
    if VECTORS_TABLE not in tables:
        return None
    count = _aggregate(conn, f"SELECT count(*) FROM {VECTORS_TABLE}")
    if not count:
        return None
    last = _aggregate(conn, f"SELECT max(chunk) FROM {VECTORS_TABLE}")
    chunks, batches = [], []
    for low in range(0, int(last) + 1, VECTOR_BATCH):  # by chunk range: one batch of Python objects at a time
        rows = conn.execute(
            f'SELECT chunk, vec FROM {VECTORS_TABLE} WHERE chunk >= ? AND chunk < ? ORDER BY chunk, "window"',
            [low, low + VECTOR_BATCH],
        ).fetchnumpy()
        if len(rows["chunk"]):
            chunks.append(rows["chunk"].astype(np.int64))
            batches.append(np.asarray(np.stack(list(rows["vec"])), dtype=np.float32))
    return normalised_vectors(np.concatenate(batches), np.concatenate(chunks))


def _aggregate(conn: duckdb.DuckDBPyConnection, sql: str) -> Any:
    """The value of a query of one aggregate (count, max), which always returns one row."""
    row = conn.execute(sql).fetchone()
    assert row is not None
    (value,) = row
    return value


def normalised_vectors(vectors: np.ndarray, chunk_of_row: np.ndarray) -> Vectors:
    """Group window vectors (ordered by chunk) by chunk, L2-normalising them in place."""
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    first = np.ones(len(chunk_of_row), dtype=bool)
    first[1:] = chunk_of_row[1:] != chunk_of_row[:-1]
    starts = np.flatnonzero(first)
    return Vectors(vectors, starts.astype(np.int64), chunk_of_row[starts].astype(np.int64))


def write_serving_arrays(
    conn: duckdb.DuckDBPyConnection, folder: Path, vectors: Vectors | None = None
) -> ServingArrays:
    """Write the serving arrays of the generation in ``folder`` from its tables (full-text index built).

    ``vectors`` default to the generation's vectors table.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
        OSError: the files cannot be written.
    """
    rows = conn.execute(f"SELECT filepath, heading, metadata FROM {CHUNKS_TABLE} ORDER BY id").fetchnumpy()
    num_chunks = len(rows["filepath"])
    out = Path(folder) / SERVING_DIR
    out.mkdir(exist_ok=True)
    keys, values, taxonomy_codes = encode_taxonomy([orjson.loads(m) for m in rows["metadata"]])
    file_codes = _codes(list(rows["filepath"]))
    file_order = np.argsort(file_codes, kind="stable").astype(np.int64)
    arrays = ServingArrays(
        num_chunks=num_chunks,
        postings=read_postings(conn, num_chunks),
        file_codes=file_codes,
        file_order=file_order,
        file_starts=np.flatnonzero(np.diff(file_codes[file_order], prepend=-1)).astype(np.int64),
        heading_codes=_codes([str(heading).casefold() for heading in rows["heading"]]),
        roles=read_roles(conn),
        role_names=ROLES,
        taxonomy_keys=keys,
        taxonomy_values=values,
        taxonomy_codes=taxonomy_codes,
        vectors=vectors if vectors is not None else read_vectors(conn),
        records=write_page_records(conn, out, num_chunks),
    )
    arrays = replace(arrays, vector_index=_ann(arrays.vectors))
    _save(arrays, out)
    return arrays


def write_vector_arrays(folder: Path, vectors: Vectors) -> None:
    """Replace the vector files of the generation in ``folder`` (the rest of its serving arrays stays)."""
    out = Path(folder) / SERVING_DIR
    manifest = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
    ann = _ann(vectors)
    files = _vector_files(vectors, ann)
    for name, array in files.items():
        fault_point("arrays")
        np.save(out / f"{name}.npy", array)
    if "vectors" not in files:
        (out / "vectors.npy").unlink(missing_ok=True)  # an earlier fill's chunk-ordered copy
    manifest.update(_vector_manifest(vectors, ann))
    (out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def _codes(values: Sequence[str]) -> np.ndarray:
    """Each value's position among the sorted distinct values."""
    if not values:
        return np.zeros(0, dtype=np.int32)
    _, inverse = np.unique(np.asarray(values, dtype=object), return_inverse=True)
    return inverse.astype(np.int32)


def encode_taxonomy(
    metadata: Sequence[Mapping[str, str]],
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]], np.ndarray]:
    """Each chunk's metadata as codes: the keys (sorted), each key's sorted distinct values, and a (keys, chunks) int32 matrix of value codes (UNSET where absent)."""
    keys = tuple(sorted({key for row in metadata for key in row}))
    values: dict[str, tuple[str, ...]] = {}
    codes = np.full((len(keys), len(metadata)), UNSET, dtype=np.int32)
    for k, key in enumerate(keys):
        values[key] = tuple(sorted({row[key] for row in metadata if key in row}))
        lookup: dict[str | None, int] = {value: code for code, value in enumerate(values[key])}
        codes[k] = np.fromiter(
            (lookup.get(row.get(key), UNSET) for row in metadata), dtype=np.int32, count=len(metadata)
        )
    return keys, values, codes


def _ann(vectors: Vectors | None) -> VectorIndex | None:
    """The approximate index, for a generation with enough windows to need one."""
    if vectors is None or not len(vectors.vectors) or len(vectors.vectors) < vector_index.ann_min_windows():
        return None
    return vector_index.build_vector_index(_chunk_ordered(vectors), vectors.starts, vectors.chunks)


def _ann_manifest(ann: VectorIndex | None) -> dict[str, Any] | None:
    if ann is None:
        return None
    return {
        "lists": len(ann.centroids), "probes": ann.probes, "margin": ann.margin, "recall_at_50": ann.recall,
        "build_seconds": round(ann.build_seconds, 2), "window_rows": ann.window_rows is not None,
    }  # fmt: skip


def _vector_files(vectors: Vectors, ann: VectorIndex | None) -> dict[str, np.ndarray]:
    """The files of the vectors: with an approximate index, its list-ordered copy is the only one (WindowRows)."""
    files = {"vector_starts": vectors.starts, "vector_chunks": vectors.chunks}
    if ann is None:
        return {"vectors": _chunk_ordered(vectors), **files}
    assert ann.window_rows is not None  # build_vector_index records them
    return {**files, "ivf_centroids": ann.centroids, "ivf_starts": ann.starts, "ivf_vectors": ann.vectors, "ivf_chunks": ann.chunks,
            "ivf_window_rows": ann.window_rows}  # fmt: skip


def _chunk_ordered(vectors: Vectors) -> np.ndarray:
    """The window vectors of a generation being written: one array in chunk order (``WindowRows`` are read only)."""
    assert isinstance(vectors.vectors, np.ndarray)
    return vectors.vectors


def _vector_manifest(vectors: Vectors | None, ann: VectorIndex | None) -> dict[str, Any]:
    return {
        "windows": len(vectors.vectors) if vectors else 0,
        "dimensions": int(vectors.vectors.shape[1]) if vectors else None,
        "ann": _ann_manifest(ann),
        # Where the chunk-ordered windows are read from: vectors.npy, or the approximate index's copy.
        "window_vectors": "ivf" if ann is not None else "vectors",
    }


def _save(arrays: ServingArrays, out: Path) -> None:
    p = arrays.postings
    files = {
        **{file: getattr(p, field) for field, file in POSTING_FILES.items()},
        **{name: getattr(arrays, name) for name in CHUNK_FILES},
        **(_vector_files(arrays.vectors, arrays.vector_index) if arrays.vectors else {}),
    }
    for name, array in files.items():
        fault_point("arrays")
        np.save(out / f"{name}.npy", np.ascontiguousarray(array))
    manifest: dict[str, Any] = {
        "version": SERVING_VERSION,
        "chunks": arrays.num_chunks,
        "terms": len(p.df),
        "postings": len(p.docs),
        "fields": list(FTS_FIELDS),
        "field_weights": list(p.field_weights),
        "stopwords": sorted(p.stopwords),
        "roles": list(arrays.role_names),
        "taxonomy": {key: list(arrays.taxonomy_values[key]) for key in arrays.taxonomy_keys},
        **_vector_manifest(arrays.vectors, arrays.vector_index),
        "record_bytes": int(arrays.records.offsets[-1]),
        "content_bytes": arrays.records.content_bytes,
    }
    # Written last: a folder without a manifest has no serving arrays.
    (out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
