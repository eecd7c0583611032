"""write_index(): write a scanned corpus as a new index generation beside the live one, swap it in.

Steps: chunks table -> vectors (reused from the live generation by window hash,
the rest embedded) -> full-text index -> HNSW index -> meta + metadata.json -> checkpoint,
fsync -> CURRENT replaced atomically -> old generations pruned. A crash at any step leaves
the live generation untouched; the half-written folder is deleted by the next build.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import duckdb
import orjson

from docs_mcp.indexer.embedding import Embedder, load_embedder
from docs_mcp.indexer.errors import IndexFormatError, PublishedThenInterrupted
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.index_file import (
    connect,
    folder_bytes,
    interrupted,
    new_generation_name,
    prepare_out_dir,
    previous_generation,
    prune,
    publish,
    translate,
    write_lock,
)
from docs_mcp.indexer.records import Chunk, CorpusScan, IndexReport, ModelIdentity
from docs_mcp.indexer.schema import (
    CHUNKS_TABLE,
    CURRENT_FILE,
    DB_FILE,
    FORMAT_VERSION,
    FTS_FIELDS,
    FTS_IGNORE,
    FTS_STEMMER,
    FTS_STOPWORDS,
    META_TABLE,
    METADATA_FILE,
    ddl,
)
from docs_mcp.indexer.search_text import search_fields
from docs_mcp.indexer.staging import load_rows
from docs_mcp.indexer.taxonomy import build_metadata
from docs_mcp.indexer.vectors import write_vectors


@dataclass(frozen=True)
class Progress:
    """One step of a build: ``stage`` is scan, files, chunks, embed, fts, vector-index or publish."""

    stage: str
    done: int
    total: int


ProgressFn = Callable[[Progress], None]


def write_index(
    scan: CorpusScan,
    out_dir: Path,
    *,
    embeddings: str = "default",
    annotate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    progress: ProgressFn | None = None,
    started: float | None = None,
) -> IndexReport:
    """Write ``scan`` as a new generation of the index at ``out_dir`` and make it live.

    ``annotate`` may add entries to the metadata.json content before it is written.

    Raises:
        ModelLoadError: the embedding model cannot be loaded.
        IndexLockedError: another build is writing ``out_dir``.
        IndexFormatError: ``out_dir`` holds something that is not an index.
        IndexWriteError: ``out_dir`` cannot be created or written.
        KeyboardInterrupt: Ctrl-C before the swap (nothing changed), or PublishedThenInterrupted after it.
    """
    started = time.perf_counter() if started is None else started
    notify = progress or (lambda _step: None)
    notify(Progress("files", len(scan.files), len(scan.files)))
    notify(Progress("chunks", len(scan.chunks), len(scan.chunks)))
    out_dir = Path(out_dir)
    _check_out_dir(out_dir)
    embedder = None if embeddings == "none" else load_embedder(embeddings)
    prepare_out_dir(out_dir)
    with write_lock(out_dir):
        previous = previous_generation(out_dir)
        prune(out_dir, keep={previous} - {None})  # what killed builds left behind
        generation = new_generation_name()
        folder = out_dir / generation
        folder.mkdir()
        try:
            embedded, reused = _write_generation(folder, generation, scan, embedder, previous, annotate, notify)
            notify(Progress("publish", 0, 1))
            publish(out_dir, generation)
            prune(out_dir, keep={generation, previous} - {None})
        except BaseException as error:
            if previous_generation(out_dir) != generation:
                # Ctrl-C or an error before the swap: drop the half-written folder (after a SIGKILL, the next build does).
                shutil.rmtree(folder, ignore_errors=True)
                raise
            if isinstance(error, KeyboardInterrupt):
                raise PublishedThenInterrupted(generation) from None
            raise
    return IndexReport(
        index_dir=str(out_dir),
        files=len(scan.files),
        chunks=len(scan.chunks),
        taxonomy_keys=tuple(key.name for key in scan.taxonomy),
        embedded=embedded,
        reused_embeddings=reused,
        seconds=time.perf_counter() - started,
        index_bytes=folder_bytes(folder),
        problems=scan.problems,
        skipped=scan.skipped,
        model=embedder.identity if embedder else None,
    )


def _write_generation(
    folder: Path,
    generation: str,
    scan: CorpusScan,
    embedder: Embedder | None,
    previous: str | None,
    annotate: Callable[[dict[str, Any]], dict[str, Any]] | None,
    notify: ProgressFn,
) -> tuple[int, int]:
    identity = embedder.identity if embedder else None
    metadata = build_metadata(scan, indexed_at=_now(), embedding=identity)
    metadata = annotate(metadata) if annotate else metadata
    db_path = folder / DB_FILE
    chunks = sorted(scan.chunks, key=lambda chunk: (chunk.library, chunk.filepath, chunk.chunk_index))
    conn = connect(db_path, read_only=False)
    try:
        for statement in ddl(identity.dimensions if identity else None):
            conn.execute(statement)
        load_rows(conn, CHUNKS_TABLE, folder, (_chunk_row(i, chunk) for i, chunk in enumerate(chunks)))
        embedded = reused = 0
        if embedder is not None:
            previous_db = folder.parent / previous / DB_FILE if previous else None
            embedded, reused = write_vectors(
                conn, folder, chunks, embedder, previous_db, lambda done, total: notify(Progress("embed", done, total))
            )
        notify(Progress("fts", 0, 1))
        fault_point("fts")
        conn.execute(fts_sql())
        if embedder is not None:
            notify(Progress("vector-index", 0, 1))
            for statement in hnsw_sql():
                conn.execute(statement)
        conn.executemany(f"INSERT INTO {META_TABLE} VALUES (?, ?)", _meta_rows(generation, identity, metadata))
        conn.execute("CHECKPOINT")
    except (duckdb.Error, RuntimeError) as error:
        if interrupted(error):  # Ctrl-C inside a DuckDB query: the user's interrupt, not a broken index
            raise KeyboardInterrupt from None
        if not isinstance(error, duckdb.Error):
            raise
        raise translate(error, db_path) from error
    finally:
        conn.close()
    (folder / METADATA_FILE).write_bytes(orjson.dumps(metadata, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return embedded, reused


def fts_sql() -> str:
    """The PRAGMA that builds the BM25 index over the three search fields (tables in schema FTS_SCHEMA)."""
    fields = ", ".join(f"'{name}'" for name in FTS_FIELDS)
    return (
        f"PRAGMA create_fts_index('{CHUNKS_TABLE}', 'id', {fields}, stemmer='{FTS_STEMMER}', "
        f"stopwords='{FTS_STOPWORDS}', ignore='{FTS_IGNORE}', strip_accents=1, lower=1, overwrite=1)"
    )


def hnsw_sql() -> list[str]:
    """The statements that build the cosine HNSW index over the window vectors."""
    return [
        # vss keeps HNSW indexes in memory unless told to persist them; we checkpoint before closing.
        "SET hnsw_enable_experimental_persistence = true",
        "CREATE INDEX vectors_hnsw ON vectors USING HNSW (vec) WITH (metric = 'cosine')",
    ]


def _chunk_row(row_id: int, chunk: Chunk) -> dict[str, Any]:
    fts_title, fts_heading, fts_body = search_fields(chunk)
    return {
        "id": row_id,
        "chunk_id": chunk.chunk_id,
        "library": chunk.library,
        "filepath": chunk.filepath,
        "heading": chunk.heading,
        "heading_level": chunk.heading_level,
        "breadcrumb": chunk.breadcrumb,
        "chunk_index": chunk.chunk_index,
        "file_chunk_count": chunk.file_chunk_count,
        "title": chunk.title,
        "content": chunk.content,
        "text": chunk.text,
        "metadata": orjson.dumps(dict(chunk.metadata)).decode(),
        "heading_path": orjson.dumps(list(chunk.heading_path)).decode(),
        "headings": orjson.dumps(list(chunk.headings)).decode(),
        "fts_title": fts_title,
        "fts_heading": fts_heading,
        "fts_body": fts_body,
    }


def _meta_rows(generation: str, identity: ModelIdentity | None, metadata: dict[str, Any]) -> Sequence[tuple[str, str]]:
    model = orjson.dumps(None if identity is None else asdict(identity)).decode()
    return [
        ("format_version", FORMAT_VERSION),
        ("generation", generation),
        ("built_at", _now()),
        ("model", model),
        ("metadata", orjson.dumps(metadata).decode()),
    ]


def _check_out_dir(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise IndexFormatError(f"--out {out_dir} is a file, not a folder.", "Pass a folder for the index (default .docs-mcp).")
    # Never overwrite a metadata.json that is not ours (e.g. --out pointing at the docs folder).
    if (out_dir / METADATA_FILE).exists() and not (out_dir / CURRENT_FILE).exists():
        raise IndexFormatError(
            f"{out_dir} holds a metadata.json but no index; docs-mcp will not overwrite it.",
            "Pass a new or empty folder with --out.",
        )


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
