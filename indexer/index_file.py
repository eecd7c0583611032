"""Opening an index folder, and swapping a freshly written generation in atomically.

This is where DuckDB's exceptions become ours: nothing from duckdb leaks past
:func:`open_index` and :func:`connect`. See ``schema.py`` for the folder layout.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import signal
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson

from docs_mcp.indexer.absent_modules import mark_absent
from docs_mcp.indexer.disk_space import is_disk_full
from docs_mcp.indexer.errors import (
    IndexerError,
    IndexFormatError,
    IndexLockedError,
    IndexNotFoundError,
    IndexWriteError,
)
from docs_mcp.indexer.extensions import OFFLINE_CONFIG, load_extensions
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.records import ModelIdentity
from docs_mcp.indexer.schema import (
    CURRENT_FILE,
    DB_FILE,
    DEFAULT_INDEX_DIR,
    FORMAT_VERSION,
    INDEX_ID_FILE,
    META_TABLE,
    METADATA_FILE,
)

# Generation folders are the only folders a build ever deletes: anything else in DIR is left alone.
GENERATION_NAME = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{8}")
LOCK_FILE = ".lock"
# `.CURRENT.<pid>.tmp` / `.metadata.json.<pid>.tmp`: written, then renamed over their target by a publish.
TEMPORARY_NAME = re.compile(rf"\.(?:{re.escape(CURRENT_FILE)}|{re.escape(METADATA_FILE)})\.\d+\.tmp")
_SWAP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class IndexReader:
    """The live generation of an index, open read-only; DuckDB's fts extension is not loaded (``load_fts``)."""

    path: Path  # the index folder (DIR)
    generation: str
    conn: duckdb.DuckDBPyConnection
    metadata: Mapping[str, Any]  # the generation's metadata.json
    model: ModelIdentity | None  # None: a full-text-only index

    def load_fts(self) -> None:
        """Load the fts extension into the database, for a statement that calls its functions (``stem``).

        Opening does not load it: 50 ms of CPU at every server start (twice with a model to prefetch), and searching
        uses none of its functions (the full-text tables it wrote are plain tables). Loading twice is harmless.

        Raises:
            ExtensionLoadError: the extension package is missing or does not load.
        """
        load_extensions(self.conn)

    def close(self) -> None:
        """Close the connection; the reader is unusable afterwards."""
        self.conn.close()

    def __enter__(self) -> IndexReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def current_generation(index_dir: Path) -> str:
    """The name of the live generation (reads one small file: cheap enough to poll).

    Raises:
        IndexNotFoundError: ``index_dir`` holds no index.
        IndexFormatError: its CURRENT file names no valid generation.
    """
    try:
        name = (Path(index_dir) / CURRENT_FILE).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError) as error:
        raise _not_found(Path(index_dir)) from error
    except (OSError, UnicodeDecodeError) as error:
        raise IndexFormatError(
            f"Cannot read {Path(index_dir) / CURRENT_FILE}: {error}.", _rebuild_hint(index_dir)
        ) from error
    if not GENERATION_NAME.fullmatch(name):
        raise IndexFormatError(
            f"{Path(index_dir) / CURRENT_FILE} does not name an index generation.", _rebuild_hint(index_dir)
        )
    return name


def open_index(index_dir: Path) -> IndexReader:
    """Open the live generation of the index at ``index_dir`` read-only.

    Raises:
        IndexNotFoundError: there is no index at ``index_dir``.
        IndexFormatError: the index is damaged or was written by an incompatible docs-mcp.
        IndexLockedError: another process holds the database for writing.
    """
    index_dir = Path(index_dir)
    return open_generation(index_dir, current_generation(index_dir))


def open_generation(index_dir: Path, generation: str) -> IndexReader:
    """Open one named generation of the index at ``index_dir`` read-only, live or not (while it exists).

    A process that serves what another one names (a search worker) opens exactly that generation,
    not whatever ``CURRENT`` names by the time it looks.

    Raises:
        IndexFormatError: the generation is missing (pruned), damaged or was written by an incompatible docs-mcp.
        IndexLockedError: another process holds the database for writing.
    """
    index_dir = Path(index_dir)
    db_path = index_dir / generation / DB_FILE
    if not db_path.is_file():
        raise IndexFormatError(
            f"The index at {index_dir} names generation {generation}, which is missing.", _rebuild_hint(index_dir)
        )
    conn = connect(db_path, read_only=True, fts=False)
    try:
        metadata, model = _read_meta(conn, db_path)
    except IndexerError:
        conn.close()
        raise
    return IndexReader(index_dir, generation, conn, metadata, model)


def connect(db_path: Path, *, read_only: bool, fts: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to ``db_path``, with fts loaded from its package unless ``fts`` is False.

    Raises:
        IndexLockedError, IndexFormatError: translated from DuckDB's errors.
        ExtensionLoadError: an extension package is missing.
    """
    mark_absent()  # else DuckDB searches the path for pandas on every value a query binds
    try:
        conn = duckdb.connect(str(db_path), read_only=read_only, config=dict(OFFLINE_CONFIG))
    except duckdb.Error as error:
        raise translate(error, db_path) from error
    if not fts:
        return conn
    try:
        load_extensions(conn)
    except IndexerError:
        conn.close()
        raise
    return conn


def fetch_all(
    conn: duckdb.DuckDBPyConnection, sql: str, parameters: Mapping[str, Any] | None = None
) -> list[tuple[Any, ...]]:
    """The rows of one read query on an open index, with DuckDB's errors translated.

    The server's readers (get_doc, read_page, get_docs) query through here, so a damaged
    index gives every caller the same error and nothing from duckdb leaks.

    Raises:
        IndexFormatError: the index cannot be read (corrupt, or not a docs-mcp index).
    """
    try:
        return conn.execute(sql, parameters or {}).fetchall()
    except duckdb.Error as error:
        raise IndexFormatError(
            f"The index could not be read: {error}", "Rebuild it with `docs-mcp index DOCS_DIR`."
        ) from error


def translate(error: duckdb.Error, db_path: Path) -> IndexerError:
    """Our error for a DuckDB error raised while using the database at ``db_path``."""
    text = str(error)
    index_dir = db_path.parent.parent
    if isinstance(error, duckdb.IOException) and "lock" in text.lower():
        return IndexLockedError(
            f"{db_path} is locked by another process: {text}", "Wait for the other docs-mcp to finish, then retry."
        )
    if is_disk_full(error):  # not a damaged index: "Rebuild it" would fill the disk again
        return IndexWriteError(
            f"Cannot write {db_path}: the disk is full ({text}).", "Free space on that disk, then retry."
        )
    return IndexFormatError(f"Cannot use the index database {db_path}: {text}", _rebuild_hint(index_dir))


def index_identity(index_dir: Path) -> str:
    """The index's identity: the same for all its generations, different for every other index ('' before it had one)."""
    try:
        return (Path(index_dir) / INDEX_ID_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def ensure_index_identity(index_dir: Path) -> None:
    """Give the index an identity if it has none yet (under the write lock: only a build writes it)."""
    if not index_identity(index_dir):
        _replace({Path(index_dir) / INDEX_ID_FILE: f"{secrets.token_hex(16)}\n".encode()})


def new_generation_name() -> str:
    """A fresh, unique generation name (UTC time, then random hex)."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}Z-{secrets.token_hex(4)}"


def live_generation(index_dir: Path) -> str | None:
    """The live generation's name, or None when ``index_dir`` holds no index yet.

    Raises:
        IndexFormatError: a CURRENT file exists but is damaged.
    """
    try:
        return current_generation(index_dir)
    except IndexNotFoundError:
        return None


def previous_generation(index_dir: Path) -> str | None:
    """The live generation a new build starts from: None when there is none or ``CURRENT`` is damaged.

    A damaged ``CURRENT`` must not stop the rebuild that its error message advises.
    """
    try:
        return current_generation(index_dir)
    except (IndexNotFoundError, IndexFormatError):
        return None


def interrupted(error: BaseException) -> bool:
    """Whether DuckDB raised ``error`` because Ctrl-C landed inside a query (it is not a KeyboardInterrupt)."""
    return isinstance(error, (duckdb.InterruptException, RuntimeError)) and "interrupted" in str(error).lower()


def prepare_out_dir(index_dir: Path) -> None:
    """Create the index folder if needed.

    Raises:
        IndexWriteError: it cannot be created (a file in the way, permissions, read-only file system).
    """
    try:
        Path(index_dir).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _unwritable(Path(index_dir), error) from None


@contextmanager
def write_lock(index_dir: Path) -> Iterator[None]:
    """Hold the index folder's build lock: one build at a time per folder.

    Raises:
        IndexLockedError: another build holds it.
        IndexWriteError: the folder cannot be written.
    """
    try:
        handle = open(Path(index_dir) / LOCK_FILE, "a+b")
    except OSError as error:
        raise _unwritable(Path(index_dir), error) from None
    with handle:
        try:
            # flock is released by the kernel when the holder dies, so a killed build never blocks the next.
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise IndexLockedError(
                f"Another `docs-mcp index` is writing {index_dir}.",
                "Wait for it to finish, or write to another --out folder.",
            ) from error
        yield


def publish(index_dir: Path, generation: str) -> None:
    """Make ``generation`` live: flush its files to disk, then atomically replace CURRENT and metadata.json.

    Ctrl-C (and SIGTERM) wait until both are replaced: an index whose CURRENT and
    metadata.json disagree is never left behind; the interrupt is raised right after.
    """
    folder = Path(index_dir) / generation
    flush(folder)
    with _signals_deferred():
        _replace(
            {
                Path(index_dir) / CURRENT_FILE: f"{generation}\n".encode(),
                Path(index_dir) / METADATA_FILE: (folder / METADATA_FILE).read_bytes(),
            }
        )


def flush(folder: Path) -> None:
    """Write every file under ``folder`` (and the folders themselves) through to the disk."""
    for path in sorted(folder.rglob("*"), reverse=True):  # files before the folders that hold them
        _fsync(path)
    _fsync(folder)


def prune(index_dir: Path, keep: set[str]) -> None:
    """Delete every generation folder not in ``keep`` (old ones, unfinished ones of killed builds) and the
    temporary files a killed publish left; only under the write lock, where no other build is writing."""
    for path in Path(index_dir).iterdir():
        if path.is_dir() and GENERATION_NAME.fullmatch(path.name) and path.name not in keep:
            # A server may still read an old generation; where the OS refuses, it waits for the next prune.
            shutil.rmtree(path, ignore_errors=True)
        elif TEMPORARY_NAME.fullmatch(path.name):
            path.unlink(missing_ok=True)


def folder_bytes(folder: Path) -> int:
    """Total size of the files in ``folder`` and its sub-folders (the serving arrays)."""
    return sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())


def _read_meta(conn: duckdb.DuckDBPyConnection, db_path: Path) -> tuple[dict[str, Any], ModelIdentity | None]:
    index_dir = db_path.parent.parent
    try:
        meta = dict(conn.execute(f"SELECT key, value FROM {META_TABLE}").fetchall())
    except duckdb.Error as error:
        raise translate(error, db_path) from error
    if meta.get("format_version") != FORMAT_VERSION:
        raise IndexFormatError(
            f"The index at {index_dir} has format {meta.get('format_version', 'unknown')}; this docs-mcp reads format {FORMAT_VERSION}.",
            _rebuild_hint(index_dir),
        )
    try:
        model = orjson.loads(meta["model"])
        return orjson.loads(meta["metadata"]), ModelIdentity.from_json(model) if model else None
    except (orjson.JSONDecodeError, KeyError, TypeError) as error:
        raise IndexFormatError(
            f"The index at {index_dir} has damaged metadata ({error}).", _rebuild_hint(index_dir)
        ) from error


def _replace(contents: dict[Path, bytes]) -> None:
    """Write every file's new content to a temporary file beside it, then rename each over its target.

    Writing can fail (a full disk) and leaves every target as it was; renaming needs no space, so
    once the temporary files are written, the targets are replaced together.
    """
    temporary = {path: path.with_name(f".{path.name}.{os.getpid()}.tmp") for path in contents}
    try:
        for path, data in contents.items():
            with open(temporary[path], "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        fault_point("replace")
        for path in contents:
            os.replace(temporary[path], path)
    except BaseException:
        for path in temporary.values():
            path.unlink(missing_ok=True)
        raise
    for folder in {path.parent for path in contents}:
        _fsync(folder)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back until the block is done, then deliver them to the usual handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield  # Python runs signal handlers in the main thread only: nothing to hold back here
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda number, _frame: received.append(number)) for sig in _SWAP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number in dict.fromkeys(received):
            signal.raise_signal(number)


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _unwritable(index_dir: Path, error: OSError) -> IndexWriteError:
    return IndexWriteError(
        f"Cannot write the index folder {index_dir}: {error.strerror or error}.",
        "Pass --out a folder you can write: not a file or inside one, not on a read-only file system.",
    )


def _not_found(index_dir: Path) -> IndexNotFoundError:
    if _holds_docs(index_dir):  # --index given the docs folder: the index goes beside it, never into it
        out = index_dir.parent / DEFAULT_INDEX_DIR
        return IndexNotFoundError(
            f"{index_dir} is a folder of documentation, not an index.",
            f"Build its index beside it, `docs-mcp index {index_dir} --out {out}`, then pass that: --index {out}.",
        )
    return IndexNotFoundError(f"No index at {index_dir}.", f"Run `docs-mcp index DOCS_DIR --out {index_dir}` first.")


def _holds_docs(folder: Path) -> bool:
    """Whether markdown lies in ``folder`` or one level below (a quick look: never a walk of a whole tree)."""
    patterns = (f"{depth}*{suffix}" for depth in ("", "*/") for suffix in (".md", ".markdown", ".mdx"))
    try:
        return any(next(folder.glob(pattern), None) is not None for pattern in patterns)
    except OSError:
        return False


def _rebuild_hint(index_dir: Path) -> str:
    return f"Rebuild it: docs-mcp index DOCS_DIR --out {index_dir}"
