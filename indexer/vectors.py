"""The vectors table of a new generation: reuse vectors from an earlier generation, embed the rest.

Each window's key is sha256(model checksum, window text), so a vector is reused exactly
when the same model would see the same text again: re-indexing an unchanged corpus
embeds nothing, and a changed page costs only its own windows.

A build first plans (which windows, which of them an earlier generation has), so it can
tell before embedding whether there is embedding work at all; then writes.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from docs_mcp.indexer.errors import StorageError
from docs_mcp.indexer.models.loading import Embedder
from docs_mcp.indexer.records import Chunk
from docs_mcp.indexer.schema import CHUNKS_TABLE, META_TABLE, VECTORS_TABLE
from docs_mcp.indexer.search_text import embedding_windows
from docs_mcp.indexer.staging import load_rows

# One single-threaded onnxruntime session run by one thread per core (run() releases the GIL).
# On 300 FastAPI windows (2 shared cores), with batches sorted by token count: 52-56 ms of CPU per
# window instead of 105-110 for one session with onnxruntime's own thread pool (which spins while
# it waits), 2.3-5.7x the windows/s, +35 MB peak RSS.
SESSION_THREADS = 1
WORKERS = os.cpu_count() or 1
# Windows embedded between two staged inserts (progress is reported after every batch).
EMBED_GROUP = 256
_STAGED = "staged_vectors"
_PENDING = "pending_windows"
_SOURCE = "source"


@dataclass(frozen=True)
class Window:
    """One text the model embeds: window ``window`` of chunk row ``chunk``."""

    chunk: int
    window: int
    key: str
    text: str


@dataclass(frozen=True)
class VectorPlan:
    """The windows of a generation, and which of them must be embedded (the others are reused)."""

    windows: tuple[Window, ...]
    todo: Mapping[str, str]  # key -> text of every distinct window to embed, shortest first
    # The databases the other windows' vectors are copied from, each with the keys taken from it.
    sources: tuple[tuple[Path, frozenset[str]], ...] = ()

    @property
    def reused(self) -> int:
        """Windows whose vector comes from one of ``sources``."""
        return sum(window.key not in self.todo for window in self.windows)


@dataclass(frozen=True)
class VectorStats:
    """What :func:`write_vectors` did."""

    embedded: int  # distinct texts embedded
    reused: int  # windows copied from the source
    embed_seconds: float  # time spent in the model


def window_key(checksum: str, text: str) -> str:
    """The reuse key of a window: which model, which text."""
    return hashlib.sha256(f"{checksum}\0{text}".encode()).hexdigest()


def plan_windows(chunks: Sequence[Chunk], checksum: str) -> list[Window]:
    """Every window of every chunk; ``chunks[i]`` is chunk row ``i``."""
    return [
        Window(row, number, window_key(checksum, text), text)
        for row, chunk in enumerate(chunks)
        for number, text in enumerate(embedding_windows(chunk))
    ]


def plan_vectors(
    conn: duckdb.DuckDBPyConnection, folder: Path, chunks: Sequence[Chunk], checksum: str, sources: Sequence[Path]
) -> VectorPlan:
    """Plan the vectors of ``chunks``, reusing what the finished hybrid generations of ``sources`` hold, best first:
    each window still missing is taken from the first source that has it (the live generation, then the
    library cache's entries, indexer/libraries/build_cache.py), and only the rest is embedded.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    windows = tuple(plan_windows(chunks, checksum))
    missing = {window.key for window in windows}
    taken: list[tuple[Path, frozenset[str]]] = []
    for db in sources:
        if not missing:
            break
        _load_pending(conn, folder, [window for window in windows if window.key in missing])
        try:
            keys = _known_keys(conn, db)
        finally:
            conn.execute(f"DROP TABLE {_PENDING}")
        if keys:
            taken.append((db, frozenset(keys)))
            missing -= keys
    todo = {window.key: window.text for window in windows if window.key in missing}
    # Embedding in length order keeps batches evenly padded (2.5x faster than corpus order).
    return VectorPlan(windows, dict(sorted(todo.items(), key=lambda item: len(item[1]))), tuple(taken))


def write_vectors(
    conn: duckdb.DuckDBPyConnection,
    folder: Path,
    plan: VectorPlan,
    embedder: Embedder,
    progress: Callable[[int, int, int, int], None],
) -> VectorStats:
    """Fill the (existing, empty) vectors table as ``plan`` says; ``progress`` gets windows done and in all, and
    characters done and in all (the work: windows go shortest first, so a count of them says little of the time left).

    Raises:
        ModelLoadError: the model failed while embedding.
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    conn.execute(f"CREATE TEMP TABLE {_STAGED} AS SELECT * FROM {VECTORS_TABLE} LIMIT 0")
    for source, reused in plan.sources:
        _copy_reused(conn, folder, plan, source, reused)
    places: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for window in plan.windows:
        if window.key in plan.todo:
            places[window.key].append((window.chunk, window.window))
    order = list(plan.todo)
    work_total = sum(len(text) for text in plan.todo.values())
    progress(0, len(order), 0, work_total)
    seconds, work = 0.0, 0
    for start in range(0, len(order), EMBED_GROUP):
        keys = order[start : start + EMBED_GROUP]
        # The embedder runs a group's texts shortest first: its n first done are about the n shortest.
        done_work = list(itertools.accumulate(sorted(len(plan.todo[key]) for key in keys), initial=work))
        began = time.perf_counter()

        def on_batch(done: int, at: int = start, cumulative: list[int] = done_work) -> None:
            progress(at + done, len(order), cumulative[done], work_total)

        vectors = embedder.embed_documents([plan.todo[key] for key in keys], workers=WORKERS, on_batch=on_batch)
        work = done_work[-1]
        seconds += time.perf_counter() - began
        rows = (
            {"chunk": chunk, "window": number, "key": key, "vec": vector}
            for key, vector in zip(keys, vectors)
            for chunk, number in places[key]
        )
        load_rows(conn, _STAGED, folder, rows)
    conn.execute(f'INSERT INTO {VECTORS_TABLE} SELECT * FROM {_STAGED} ORDER BY chunk, "window"')
    conn.execute(f"DROP TABLE {_STAGED}")
    return VectorStats(len(order), plan.reused, seconds)


def _load_pending(conn: duckdb.DuckDBPyConnection, folder: Path, windows: Sequence[Window]) -> None:
    conn.execute(f'CREATE TEMP TABLE {_PENDING} (chunk INTEGER, "window" INTEGER, key VARCHAR)')
    load_rows(conn, _PENDING, folder, ({"chunk": w.chunk, "window": w.window, "key": w.key} for w in windows))


def _known_keys(conn: duckdb.DuckDBPyConnection, db: Path) -> set[str] | None:
    """The pending keys that ``db`` has vectors for; None when it is no finished hybrid generation."""
    try:
        _attach(conn, db)
    except duckdb.Error:
        return None  # missing or unreadable: the build still succeeds, it embeds more
    try:
        # A generation's model is recorded once its vectors are complete: a full-text generation,
        # or one whose build was killed while embedding, says null.
        (model,) = conn.execute(f"SELECT value FROM {_SOURCE}.{META_TABLE} WHERE key = 'model'").fetchone() or ("null",)
        if model == "null":
            return None
        rows = conn.execute(
            f"SELECT DISTINCT p.key FROM {_PENDING} p JOIN (SELECT DISTINCT key FROM {_SOURCE}.{VECTORS_TABLE}) s USING (key)"
        ).fetchall()
    except duckdb.Error:
        return None  # no meta or vectors there, or of another shape: nothing to reuse
    finally:
        conn.execute(f"DETACH {_SOURCE}")
    return {key for (key,) in rows}


def _copy_reused(
    conn: duckdb.DuckDBPyConnection, folder: Path, plan: VectorPlan, source: Path, keys: frozenset[str]
) -> None:
    """Copy the vectors of the windows taken from ``source`` (those whose key is in ``keys``) into the staging table."""
    _load_pending(conn, folder, [window for window in plan.windows if window.key in keys])
    _attach(conn, source)
    try:
        conn.execute(
            f"""INSERT INTO {_STAGED}
                SELECT p.chunk, p."window", p.key, old.vec
                FROM {_PENDING} p
                JOIN (SELECT key, any_value(vec) AS vec FROM {_SOURCE}.{VECTORS_TABLE} GROUP BY key) old USING (key)"""
        )
    finally:
        conn.execute(f"DETACH {_SOURCE}")
        conn.execute(f"DROP TABLE {_PENDING}")


def _attach(conn: duckdb.DuckDBPyConnection, db: Path) -> None:
    quoted = str(db).replace("'", "''")
    conn.execute(f"ATTACH '{quoted}' AS {_SOURCE} (READ_ONLY)")


def export_vectors(db: Path, library: str, target: Path) -> int:
    """Copy the vectors of ``library``'s chunks in the generation database ``db``, and its model, into a new database
    ``target`` with the tables a generation has, which :func:`plan_vectors` reads as a source (the library cache's
    entries); the number of windows copied (0: ``db`` has no vectors).

    Raises:
        StorageError: ``db`` cannot be read or ``target`` written.
    """
    try:
        conn = duckdb.connect(str(target))
    except duckdb.Error as error:
        raise StorageError(
            f"Cannot write {target}: {error}", "Free disk space or check the folder's permissions."
        ) from None
    try:
        _attach(conn, db)
        (model,) = conn.execute(f"SELECT value FROM {_SOURCE}.{META_TABLE} WHERE key = 'model'").fetchone() or ("null",)
        if model == "null":
            return 0
        conn.execute(f"CREATE TABLE {META_TABLE} AS SELECT * FROM {_SOURCE}.{META_TABLE} WHERE key = 'model'")
        conn.execute(
            f"CREATE TABLE {VECTORS_TABLE} AS SELECT v.* FROM {_SOURCE}.{VECTORS_TABLE} v "
            f"JOIN {_SOURCE}.{CHUNKS_TABLE} c ON c.id = v.chunk WHERE c.library = ?",
            [library],
        )
        (count,) = conn.execute(f"SELECT count(*) FROM {VECTORS_TABLE}").fetchone() or (0,)
        conn.execute(f"DETACH {_SOURCE}")
        conn.execute("CHECKPOINT")
        return int(count)
    except duckdb.Error as error:
        raise StorageError(
            f"Cannot copy the vectors of {library} from {db}: {error}", "Index the library again."
        ) from None
    finally:
        conn.close()
