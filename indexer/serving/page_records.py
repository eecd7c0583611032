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

Beside them, each chunk's markdown as stored (what get_doc returns): a search_docs hit's structured
content gives its best passage and its size in tokens, both cut from it. Reading it from DuckDB took
one query per search, 1.3 ms idle and over 10 ms on a loaded two-core machine (DuckDB's threads
wait for a core); a ``pread`` per hit takes microseconds. Generations built before this file have
none: the server reads DuckDB for them (``PageRecords.markdown`` returns None).

Files (N chunks), in the generation's ``serving/`` folder:

    records.bin            UTF-8 JSON arrays [chunk_id, heading, breadcrumb, filepath, metadata, flat text], concatenated
    record_offsets.npy     (N+1,) int64: chunk row r is records.bin[offsets[r]:offsets[r+1]]
    contents.bin           UTF-8 markdown of every chunk, concatenated
    content_offsets.npy    (N+1,) int64: chunk row r is contents.bin[offsets[r]:offsets[r+1]]
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson

from docs_mcp.indexer.schema import CHUNKS_TABLE

RECORDS_FILE = "records.bin"
OFFSETS_FILE = "record_offsets.npy"
CONTENTS_FILE = "contents.bin"
CONTENT_OFFSETS_FILE = "content_offsets.npy"
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


class _Slices:
    """Byte slices of one file by chunk row (``offsets``: N+1 ascending), read with ``pread``; the file stays open."""

    def __init__(self, path: Path, offsets: np.ndarray) -> None:
        self.offsets = offsets
        self._fd = os.open(path, os.O_RDONLY)
        self._close = weakref.finalize(self, os.close, self._fd)

    def get(self, row: int) -> bytes:
        return os.pread(self._fd, int(self.offsets[row + 1] - self.offsets[row]), int(self.offsets[row]))

    def close(self) -> None:
        self._close()


class PageRecords:
    """Every chunk's page record (and markdown, where stored), by chunk row, read from the files on demand.

    The files stay open while the generation is served (closed by ``close`` or with the last
    reference), so a build pruning the generation's folder meanwhile does not fail a search.
    """

    def __init__(self, path: Path, offsets: np.ndarray, contents: tuple[Path, np.ndarray] | None = None) -> None:
        self._records = _Slices(path, offsets)
        self._contents = _Slices(*contents) if contents is not None else None

    @property
    def offsets(self) -> np.ndarray:
        """(N+1,) int64: chunk row r's record is records.bin[offsets[r]:offsets[r+1]]."""
        return self._records.offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def content_bytes(self) -> int | None:
        """Size of the markdown file; None for a generation built without one."""
        return int(self._contents.offsets[-1]) if self._contents is not None else None

    def get(self, row: int) -> PageRecord:
        """The record of chunk row ``row``."""
        return _record(self._records.get(row))

    def read(self, rows: Sequence[int]) -> list[PageRecord]:
        """The records of ``rows``, in that order."""
        return [self.get(row) for row in rows]

    def markdown(self, rows: Sequence[int]) -> list[str] | None:
        """The markdown of chunk rows ``rows``, in that order; None if this generation does not store it here."""
        if self._contents is None:
            return None
        return [self._contents.get(row).decode("utf-8") for row in rows]

    def close(self) -> None:
        """Close the files (once); reading afterwards fails."""
        self._records.close()
        if self._contents is not None:
            self._contents.close()


def _record(data: bytes) -> PageRecord:
    chunk_id, heading, breadcrumb, filepath, metadata, flat_text = orjson.loads(data)
    return PageRecord(chunk_id, heading, breadcrumb, filepath, metadata, flat_text)


def fold_spaces(text: str) -> str:
    """``text`` with each run of whitespace one space, and none at either end."""
    return _SPACE.sub(" ", text).strip()


def write_page_records(conn: duckdb.DuckDBPyConnection, out: Path, num_chunks: int) -> PageRecords:
    """Write the page records and the markdown of the chunks table in ``conn`` into the folder ``out``, and open them.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
        OSError: the files cannot be written.
    """
    offsets = np.zeros(num_chunks + 1, dtype=np.int64)
    content_offsets = np.zeros(num_chunks + 1, dtype=np.int64)
    written = content_written = 0
    with open(out / RECORDS_FILE, "wb") as blob, open(out / CONTENTS_FILE, "wb") as contents:
        for low in range(0, num_chunks, BATCH):
            rows = conn.execute(
                f"SELECT id, chunk_id, heading, breadcrumb, filepath, metadata, text, content FROM {CHUNKS_TABLE} "
                "WHERE id >= ? AND id < ? ORDER BY id",
                [low, low + BATCH],
            ).fetchall()
            for row, chunk_id, heading, breadcrumb, filepath, metadata, text, content in rows:
                record = orjson.dumps(
                    [chunk_id, heading, breadcrumb, filepath, orjson.Fragment(metadata), fold_spaces(text)]
                )
                blob.write(record)
                written += len(record)
                offsets[row + 1] = written
                markdown = content.encode("utf-8")
                contents.write(markdown)
                content_written += len(markdown)
                content_offsets[row + 1] = content_written
    np.save(out / OFFSETS_FILE, offsets)
    np.save(out / CONTENT_OFFSETS_FILE, content_offsets)
    return PageRecords(out / RECORDS_FILE, offsets, (out / CONTENTS_FILE, content_offsets))


def open_page_records(source: Path, manifest: Mapping[str, Any]) -> PageRecords:
    """The page records in the folder ``source`` (sizes checked against its ``manifest``), with the markdown if it has it.

    Raises:
        OSError: a file is missing or unreadable.
        ValueError: the files do not agree with the manifest.
    """
    offsets = _offsets(source, OFFSETS_FILE, RECORDS_FILE, int(manifest["chunks"]), int(manifest["record_bytes"]))
    contents = None
    if manifest.get("content_bytes") is not None:
        content_offsets = _offsets(
            source, CONTENT_OFFSETS_FILE, CONTENTS_FILE, int(manifest["chunks"]), int(manifest["content_bytes"])
        )
        contents = (source / CONTENTS_FILE, content_offsets)
    return PageRecords(source / RECORDS_FILE, offsets, contents)


def _offsets(source: Path, offsets_file: str, data_file: str, chunks: int, size: int) -> np.ndarray:
    offsets = np.load(source / offsets_file, mmap_mode="r").view(np.ndarray)
    if len(offsets) != chunks + 1 or int(offsets[-1]) != size or (source / data_file).stat().st_size != size:
        raise ValueError(f"{data_file} does not match the manifest")
    return offsets
