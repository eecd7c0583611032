"""write_index(): write a scanned corpus as new index generations beside the live one, swapping each in.

A build with embeddings is progressive: the full-text generation (chunks, BM25 index)
goes live as soon as it is written, then a copy of it gains the vectors (reused from an
earlier generation by window hash, the rest embedded) and goes live in its place. A build
without embeddings, or one with nothing to embed (every window's vector is reused, e.g.
an unchanged corpus), writes one generation. Each generation is written aside, checkpointed
and fsynced, then made live by replacing CURRENT atomically: a crash at any step leaves the
last live generation untouched, and the half-written folder is deleted by the next build.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson

from docs_mcp.indexer.corpus.taxonomy import build_metadata
from docs_mcp.indexer.disk_space import disk_full_error, is_disk_full
from docs_mcp.indexer.errors import IndexChangedError, IndexerError, IndexFormatError
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.index_file import (
    GENERATION_NAME,
    connect,
    ensure_index_identity,
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
from docs_mcp.indexer.models.loading import Embedder, load_embedder
from docs_mcp.indexer.ranker import check_rankers, ranker_for
from docs_mcp.indexer.records import Chunk, CorpusScan, IndexReport, ModelIdentity
from docs_mcp.indexer.schema import (
    CHUNKS_TABLE,
    CURRENT_FILE,
    DB_FILE,
    FINISHED_MARK,
    FORMAT_VERSION,
    FTS_FIELDS,
    FTS_IGNORE,
    FTS_STEMMER,
    FTS_STOPWORDS,
    FULL_TEXT,
    HYBRID,
    META_TABLE,
    METADATA_FILE,
    ddl,
    vectors_ddl,
)
from docs_mcp.indexer.search_text import search_fields
from docs_mcp.indexer.serving.writer import write_serving_arrays
from docs_mcp.indexer.staging import load_rows
from docs_mcp.indexer.stopwords import stopwords_for
from docs_mcp.indexer.vectors import SESSION_THREADS, VectorPlan, VectorStats, plan_vectors, write_vectors


@dataclass(frozen=True)
class Progress:
    """One step of a build.

    ``stage`` is scan, pages (``done`` of ``total`` pages read, as the scan goes), files, chunks, full-text (writing chunks and the BM25 index), embed
    (``done`` of ``total`` windows, and ``work`` of ``work_total`` characters: windows are
    embedded shortest first, so their count runs ahead of the time spent), publish (a
    generation is about to go live) or live (it is); for publish and live, ``label`` says which
    generation: FULL_TEXT or HYBRID.
    """

    stage: str
    done: int
    total: int
    label: str = ""
    work: int = 0
    work_total: int = 0


ProgressFn = Callable[[Progress], None]
Annotate = Callable[[dict[str, Any]], dict[str, Any]]
# Wraps the loaded model for the build's document embedding (the Dask fan-out: indexer/fleet/dask_embedding.py).
EmbedVia = Callable[[Embedder], Embedder]


@dataclass(frozen=True)
class _Build:
    """What every step of one write_index call shares."""

    out_dir: Path
    scan: CorpusScan
    chunks: tuple[Chunk, ...]  # in chunks.id order
    indexed_at: str
    annotate: Annotate | None
    notify: ProgressFn
    started: float
    embed_via: EmbedVia | None = None

    def metadata(self, identity: ModelIdentity | None) -> dict[str, Any]:
        """The metadata.json content of a generation whose vectors ``identity`` made (None: no vectors)."""
        metadata = build_metadata(self.scan, indexed_at=self.indexed_at, embedding=identity)
        metadata["ranker"] = ranker_for(identity, self.out_dir)
        return self.annotate(metadata) if self.annotate else metadata

    def go_live(self, generation: str, label: str, keep: set[str], live_after: dict[str, float]) -> None:
        """Publish ``generation``, note when in ``live_after``, delete the generations not in ``keep``."""
        self.notify(Progress("publish", 0, 1, label))
        try:
            publish(self.out_dir, generation)
        except BaseException:
            if (
                previous_generation(self.out_dir) != generation
            ):  # not live: nothing will ever read it (a full disk wants it gone)
                shutil.rmtree(self.out_dir / generation, ignore_errors=True)
            raise
        finally:
            # publish holds Ctrl-C until CURRENT is replaced: say it went live even when interrupted right after.
            if previous_generation(self.out_dir) == generation:
                live_after[label] = time.perf_counter() - self.started
                self.notify(Progress("live", 1, 1, label))
        prune(self.out_dir, keep={generation, *keep})


# write_index(planned_on=...) default: write whatever generation is live.
ANY_GENERATION = object()


def write_index(
    scan: CorpusScan,
    out_dir: Path,
    *,
    embeddings: str = "default",
    annotate: Annotate | None = None,
    progress: ProgressFn | None = None,
    started: float | None = None,
    planned_on: str | None | object = ANY_GENERATION,
    embed_via: EmbedVia | None = None,
    vector_sources: Sequence[Path] = (),
) -> IndexReport:
    """Write ``scan`` as the index at ``out_dir``: full text live first, then hybrid when vectors are ready.

    ``annotate`` may add entries to the metadata.json content before it is written.
    ``planned_on`` is the live generation ``scan`` was planned from (None: no index yet);
    when given, the write is refused if another writer swapped a generation in since,
    because the scan would drop what that writer added. ``embed_via`` wraps the loaded model
    for embedding the documents (the queries' model stays the local one). ``vector_sources``: more databases
    to reuse window vectors from, after the index's own generations (the library cache's entries).

    Raises:
        ModelLoadError: the embedding model cannot be loaded.
        IndexLockedError: another build is writing ``out_dir``.
        IndexChangedError: the live generation is no longer ``planned_on``.
        IndexFormatError: ``out_dir`` holds something that is not an index, or a broken rankers.json.
    """
    started = time.perf_counter() if started is None else started
    notify = progress or (lambda _step: None)
    notify(Progress("files", len(scan.files), len(scan.files)))
    notify(Progress("chunks", len(scan.chunks), len(scan.chunks)))
    out_dir = Path(out_dir)
    _check_out_dir(out_dir)
    check_rankers(out_dir)
    model = _load_in_background(embeddings)
    created = not out_dir.exists()
    prepare_out_dir(out_dir)
    chunks = tuple(sorted(scan.chunks, key=lambda chunk: (chunk.library, chunk.filepath, chunk.chunk_index)))
    build = _Build(out_dir, scan, chunks, _now(), annotate, notify, started, embed_via)
    live_after: dict[str, float] = {}
    with _no_empty_index_left(out_dir, created), write_lock(out_dir), _disk_full_said(out_dir):
        previous = previous_generation(out_dir)
        if planned_on is not ANY_GENERATION and previous != planned_on:
            raise IndexChangedError(
                f"The index at {out_dir} changed (now generation {previous}) while this build was planned.",
                "Plan the build again from the live generation.",
            )
        prune(
            out_dir, keep=_named(previous, *_reusable_generation(out_dir, previous))
        )  # what killed builds left behind
        ensure_index_identity(out_dir)
        first = new_generation_name()
        with _discarded_on_failure(out_dir / first):
            sources = [*_vector_sources(out_dir, previous), *vector_sources]
            embedder, plan, stats = _write_first(build, first, model, sources)
        hybrid_now = plan is not None and not plan.todo
        # The generations of this index that vectors are copied from stay until the hybrid one is live.
        source = {db.parent.name for db, _ in plan.sources if db.parent.parent == out_dir} if plan else set()
        build.go_live(first, HYBRID if hybrid_now else FULL_TEXT, _named(previous, *source), live_after)
        last = first
        if embedder is not None and plan is not None and not hybrid_now:
            last = new_generation_name()
            with _discarded_on_failure(out_dir / last):
                stats = _write_hybrid(build, first, last, embedder, plan)
            build.go_live(last, HYBRID, {first}, live_after)
    return IndexReport(
        index_dir=str(out_dir),
        files=len(scan.files),
        chunks=len(scan.chunks),
        taxonomy_keys=tuple(key.name for key in scan.taxonomy),
        embedded=stats.embedded,
        reused_embeddings=stats.reused,
        seconds=time.perf_counter() - started,
        index_bytes=folder_bytes(out_dir / last),
        problems=scan.problems,
        skipped=scan.skipped,
        model=embedder.identity if embedder else None,
        embed_seconds=stats.embed_seconds,
        live_after=live_after,
        ranker=ranker_for(embedder.identity, out_dir) if embedder else None,
        skipped_files=scan.skipped_files,
        other_files=scan.other_files,
    )


def _write_first(
    build: _Build, generation: str, model: Future[Embedder] | None, sources: Sequence[Path]
) -> tuple[Embedder | None, VectorPlan | None, VectorStats]:
    """The first generation: full text, and the vectors too when none needs embedding."""
    folder = build.out_dir / generation
    folder.mkdir()
    build.notify(Progress("full-text", 0, 1))
    identity = None
    stats = VectorStats(0, 0, 0.0)
    with _connection(folder / DB_FILE) as conn:
        for statement in ddl(None):
            conn.execute(statement)
        load_rows(conn, CHUNKS_TABLE, folder, (_chunk_row(i, chunk) for i, chunk in enumerate(build.chunks)))
        fault_point("fts")
        with stopwords_for(conn, (value for key in build.scan.taxonomy for value in key.values)) as stopwords:
            conn.execute(fts_sql(stopwords))
        # The model has been loading meanwhile; planning needs its checksum (the windows' keys).
        embedder = model.result() if model else None
        if embedder is not None and build.embed_via is not None:
            embedder = build.embed_via(embedder)
        plan = plan_vectors(conn, folder, build.chunks, embedder.identity.checksum, sources) if embedder else None
        if embedder is not None and plan is not None and not plan.todo:
            identity = embedder.identity
            conn.execute(vectors_ddl(identity.dimensions))
            stats = write_vectors(conn, folder, plan, embedder, _embed_progress(build))
        _finish(conn, folder, generation, identity, build.metadata(identity))
    return embedder, plan, stats


def _write_hybrid(build: _Build, full_text: str, generation: str, embedder: Embedder, plan: VectorPlan) -> VectorStats:
    """A copy of the full-text generation ``full_text`` with the vectors ``plan`` asks for."""
    folder = build.out_dir / generation
    shutil.copytree(build.out_dir / full_text, folder, ignore=shutil.ignore_patterns(FINISHED_MARK))
    with _connection(folder / DB_FILE) as conn:
        conn.execute(vectors_ddl(embedder.identity.dimensions))
        stats = write_vectors(conn, folder, plan, embedder, _embed_progress(build))
        _finish(conn, folder, generation, embedder.identity, build.metadata(embedder.identity))
    return stats


def _finish(
    conn: duckdb.DuckDBPyConnection,
    folder: Path,
    generation: str,
    identity: ModelIdentity | None,
    metadata: dict[str, Any],
) -> None:
    """Write the serving arrays (serving/arrays.py), record what the generation is (meta table, metadata.json), flush."""
    write_serving_arrays(conn, folder)
    conn.execute(f"DELETE FROM {META_TABLE}")  # a hybrid generation starts as a copy of a full-text one
    conn.executemany(f"INSERT INTO {META_TABLE} VALUES (?, ?)", _meta_rows(generation, identity, metadata))
    conn.execute("CHECKPOINT")
    (folder / METADATA_FILE).write_bytes(orjson.dumps(metadata, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    (folder / FINISHED_MARK).touch()


def _reusable_generation(out_dir: Path, live: str | None) -> set[str]:
    """The newest finished generation with vectors besides the live one (a build killed while publishing
    it), kept for its vectors; every other non-live folder is what killed builds left, deleted first."""
    finished = sorted(
        (p.parent.name for p in out_dir.glob(f"*/{FINISHED_MARK}") if GENERATION_NAME.fullmatch(p.parent.name)),
        reverse=True,
    )
    for name in finished:
        if name != live and _has_vectors(out_dir / name):
            return {name}
    return set()


def _has_vectors(folder: Path) -> bool:
    try:
        return orjson.loads((folder / METADATA_FILE).read_bytes()).get("embedding") is not None
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return False


def _load_in_background(embeddings: str) -> Future[Embedder] | None:
    """Start loading the model (seconds of imports and session set-up) while the full text is written."""
    if embeddings == "none":
        return None
    pool = ThreadPoolExecutor(1, thread_name_prefix="load-model")
    try:
        return pool.submit(load_embedder, embeddings, threads=SESSION_THREADS)
    finally:
        pool.shutdown(wait=False)


def _embed_progress(build: _Build) -> Callable[[int, int, int, int], None]:
    return lambda done, total, work, work_total: build.notify(
        Progress("embed", done, total, work=work, work_total=work_total)
    )


def _vector_sources(out_dir: Path, live: str | None) -> list[Path]:
    """Databases to reuse vectors from, best first: the live generation's, then the others, newest first.

    The live generation has no vectors when it is full text only: built with --embeddings
    none, or by a build killed while embedding, whose previous generation is still on disk.
    """
    others = sorted(
        (path.name for path in out_dir.iterdir() if GENERATION_NAME.fullmatch(path.name) and path.name != live),
        reverse=True,
    )
    return [out_dir / name / DB_FILE for name in ([live] if live else []) + others]


@contextmanager
def _discarded_on_failure(folder: Path) -> Iterator[None]:
    """Delete the generation being written if its writing fails or is interrupted (after a SIGKILL, the next build does)."""
    try:
        yield
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@contextmanager
def _disk_full_said(out_dir: Path) -> Iterator[None]:
    """Turn a full disk, whichever step met it and however it said so, into one IndexWriteError (see disk_space.py).

    Inside the generations' own clean-up, so the half-written one is already deleted when this says what to free.
    """
    before = previous_generation(out_dir)
    try:
        yield
    except (OSError, shutil.Error, IndexerError) as error:
        if not is_disk_full(error):
            raise
        live = previous_generation(out_dir)
        raise disk_full_error(out_dir, live, went_live=live != before) from error


@contextmanager
def _no_empty_index_left(out_dir: Path, created: bool) -> Iterator[None]:
    """Remove the index folder this build created if it fails before anything went live (e.g. the model does not load)."""
    try:
        yield
    except BaseException:
        if created and not (out_dir / CURRENT_FILE).exists():
            shutil.rmtree(out_dir, ignore_errors=True)
        raise


@contextmanager
def _connection(db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection whose DuckDB errors become ours."""
    conn = connect(db_path, read_only=False)
    try:
        yield conn
    except (duckdb.Error, RuntimeError) as error:
        if interrupted(error):  # Ctrl-C inside a DuckDB query: the user's interrupt, not a broken index
            raise KeyboardInterrupt from None
        if not isinstance(error, duckdb.Error):
            raise
        raise translate(error, db_path) from error
    finally:
        conn.close()


def fts_sql(stopwords: str = FTS_STOPWORDS) -> str:
    """The PRAGMA that builds the BM25 index over the three search fields (tables in schema FTS_SCHEMA).

    ``stopwords``: 'english', or the table stopwords.stopwords_for made.
    """
    fields = ", ".join(f"'{name}'" for name in FTS_FIELDS)
    return (
        f"PRAGMA create_fts_index('{CHUNKS_TABLE}', 'id', {fields}, stemmer='{FTS_STEMMER}', "
        f"stopwords='{stopwords}', ignore='{FTS_IGNORE}', strip_accents=1, lower=1, overwrite=1)"
    )


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
        raise IndexFormatError(
            f"--out {out_dir} is a file, not a folder.", "Pass a folder for the index (default .docs-mcp)."
        )
    # Never overwrite a metadata.json that is not ours (e.g. --out pointing at the docs folder).
    if (out_dir / METADATA_FILE).exists() and not (out_dir / CURRENT_FILE).exists():
        raise IndexFormatError(
            f"{out_dir} holds a metadata.json but no index; docs-mcp will not overwrite it.",
            "Pass a new or empty folder with --out.",
        )


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _named(*generations: str | None) -> set[str]:
    """The generations named (None: there is none)."""
    return {generation for generation in generations if generation is not None}
