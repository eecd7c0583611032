"""Page records: what a search hit shows of its chunk, in one file the server memory-maps.

A hit carries its chunk's id, heading, breadcrumb, path, metadata and a snippet of its
text.  Reading those from DuckDB took one point query per hit, 4-8 ms a page at 100k
chunks, and serialised concurrent searches on DuckDB; the build writes them beside the
serving arrays instead, each chunk's fields as one JSON array, so a hit costs a slice of
the mapped file and one ``orjson.loads``, and a page touches only its hits' pages of it.
The text is stored with its whitespace runs folded, as snippets are cut from it: folding
was a regex pass over every hit's text per search (its words do not change).

Files (N chunks), in the generation's ``serving/`` folder:

    records.bin            UTF-8 JSON arrays [chunk_id, heading, breadcrumb, filepath, metadata, flat text], concatenated
    record_offsets.npy     (N+1,) int64: chunk row r is records.bin[offsets[r]:offsets[r+1]]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import duckdb
import numpy as np
import orjson

from docs_mcp.indexer.schema import CHUNKS_TABLE

RECORDS_FILE = "records.bin"
OFFSETS_FILE = "record_offsets.npy"
# Chunks are read from DuckDB this many rows at a time, so a build holds one batch of texts.
BATCH = 16_384
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class PageRecord:
    """The stored fields of one chunk that a search hit shows."""

    chunk_id: str
    heading: str
    breadcrumb: str
    filepath: str
    metadata: Mapping[str, str]
    flat_text: str  # the chunk's text, whitespace runs folded to one space (fold_spaces)


@dataclass(frozen=True)
class PageRecords:
    """Every chunk's page record, by chunk row, over a mapped blob."""

    blob: np.ndarray  # (bytes,) uint8
    offsets: np.ndarray  # (N+1,) int64

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def get(self, row: int) -> PageRecord:
        """The record of chunk row ``row``."""
        chunk_id, heading, breadcrumb, filepath, metadata, flat_text = orjson.loads(memoryview(self.blob[self.offsets[row] : self.offsets[row + 1]]))
        return PageRecord(chunk_id, heading, breadcrumb, filepath, metadata, flat_text)


def fold_spaces(text: str) -> str:
    """``text`` with each run of whitespace one space, and none at either end."""
    return _SPACE.sub(" ", text).strip()


def write_page_records(conn: duckdb.DuckDBPyConnection, out: Path, num_chunks: int) -> PageRecords:
    """Write the page records of the chunks table in ``conn`` into the folder ``out``, and map them.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
        OSError: the files cannot be written.
    """
    offsets = np.zeros(num_chunks + 1, dtype=np.int64)
    written = 0
    with open(out / RECORDS_FILE, "wb") as blob:
        for low in range(0, num_chunks, BATCH):
            rows = conn.execute(
                f"SELECT id, chunk_id, heading, breadcrumb, filepath, metadata, text FROM {CHUNKS_TABLE} WHERE id >= ? AND id < ? ORDER BY id",
                [low, low + BATCH],
            ).fetchall()
            for row, chunk_id, heading, breadcrumb, filepath, metadata, text in rows:
                record = orjson.dumps([chunk_id, heading, breadcrumb, filepath, orjson.Fragment(metadata), fold_spaces(text)])
                blob.write(record)
                written += len(record)
                offsets[row + 1] = written
    np.save(out / OFFSETS_FILE, offsets)
    return PageRecords(_map_blob(out / RECORDS_FILE, written), offsets)


def open_page_records(source: Path, manifest: Mapping[str, Any]) -> PageRecords:
    """Map the page records in the folder ``source`` (sizes checked against its ``manifest``).

    Raises:
        OSError: a file is missing or unreadable.
        ValueError: the files do not agree with the manifest.
    """
    offsets = np.load(source / OFFSETS_FILE, mmap_mode="r").view(np.ndarray)
    size = int(manifest["record_bytes"])
    if len(offsets) != int(manifest["chunks"]) + 1 or int(offsets[-1]) != size or (source / RECORDS_FILE).stat().st_size != size:
        raise ValueError("page records do not match the manifest")
    return PageRecords(_map_blob(source / RECORDS_FILE, size), offsets)


def _map_blob(path: Path, size: int) -> np.ndarray:
    # An empty file cannot be mapped (an index without chunks has no records).
    return np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray) if size else np.zeros(0, dtype=np.uint8)
