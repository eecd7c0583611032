"""Page records: what a search hit shows of its chunk, in one file the server memory-maps.

A hit carries its chunk's id, heading, breadcrumb, path, metadata and a snippet of its
text.  Reading those from DuckDB took one point query per hit, 4-8 ms a page at 100k
chunks, and serialised concurrent searches on DuckDB; the build writes them beside the
serving arrays instead, each chunk's fields as one JSON array, so a hit costs one ``pread``
(a page-cache hit, without the GIL) and one ``orjson.loads``.  The records are read, not
memory-mapped: the kernel maps a whole page-cache folio (up to 2 MiB) on a fault, so ten
scattered hits a query would add megabytes of resident memory each, where a read adds none.
The text is stored with its whitespace runs folded, as snippets are cut from it: folding
was a regex pass over every hit's text per search (its words do not change).

Files (N chunks), in the generation's ``serving/`` folder:

    records.bin            UTF-8 JSON arrays [chunk_id, heading, breadcrumb, filepath, metadata, flat text], concatenated
    record_offsets.npy     (N+1,) int64: chunk row r is records.bin[offsets[r]:offsets[r+1]]
"""

from __future__ import annotations

import os
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

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


class PageRecords:
    """Every chunk's page record, by chunk row, read from the records file on demand.

    The file stays open while the generation is served (closed by ``close`` or with the last
    reference), so a build pruning the generation's folder meanwhile does not fail a search.
    """

    def __init__(self, path: Path, offsets: np.ndarray) -> None:
        self.offsets = offsets  # (N+1,) int64
        self._fd = os.open(path, os.O_RDONLY)
        self._close = weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def get(self, row: int) -> PageRecord:
        """The record of chunk row ``row``."""
        return _record(os.pread(self._fd, int(self.offsets[row + 1] - self.offsets[row]), int(self.offsets[row])))

    def read(self, rows: Sequence[int]) -> list[PageRecord]:
        """The records of ``rows``, in that order."""
        return [self.get(row) for row in rows]

    def close(self) -> None:
        """Close the file (once); reading afterwards fails."""
        self._close()


def _record(data: bytes) -> PageRecord:
    chunk_id, heading, breadcrumb, filepath, metadata, flat_text = orjson.loads(data)
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
    return PageRecords(out / RECORDS_FILE, offsets)


def open_page_records(source: Path, manifest: Mapping[str, Any]) -> PageRecords:
    """The page records in the folder ``source`` (sizes checked against its ``manifest``).

    Raises:
        OSError: a file is missing or unreadable.
        ValueError: the files do not agree with the manifest.
    """
    offsets = np.load(source / OFFSETS_FILE, mmap_mode="r").view(np.ndarray)
    size = int(manifest["record_bytes"])
    if len(offsets) != int(manifest["chunks"]) + 1 or int(offsets[-1]) != size or (source / RECORDS_FILE).stat().st_size != size:
        raise ValueError("page records do not match the manifest")
    return PageRecords(source / RECORDS_FILE, offsets)
