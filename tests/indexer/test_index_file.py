"""Opening an index: errors translated at the boundary, generations swapped and pruned."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from docs_mcp.indexer.errors import IndexFormatError, IndexLockedError, IndexNotFoundError
from docs_mcp.indexer.index_file import (
    GENERATION_NAME,
    current_generation,
    new_generation_name,
    open_index,
    prune,
    write_lock,
)
from docs_mcp.indexer.schema import CURRENT_FILE, DB_FILE, META_TABLE
from docs_mcp.indexer.sources.folder import build_index


@pytest.fixture
def text_index(make_corpus, tmp_path: Path) -> Path:
    """A small full-text-only index (no model needed)."""
    docs = make_corpus({"guide.md": "# Guide\n\n## Install\n\npip install it.\n\n## Use\n\nCall it.\n"})
    build_index(docs, tmp_path / "index", embeddings="none")
    return tmp_path / "index"


def test_missing_folder_says_how_to_build_one(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError) as caught:
        open_index(tmp_path / "nowhere")
    assert caught.value.message == f"No index at {tmp_path / 'nowhere'}."
    assert caught.value.hint == f"Run `docs-mcp index DOCS_DIR --out {tmp_path / 'nowhere'}` first."


def test_serving_a_docs_folder_says_to_build_the_index_beside_it_not_into_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    docs = tmp_path / "project" / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "guides" / "retries.md").write_text("# Retries\n\nBack off.\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "serve", "--index", str(docs)], capture_output=True, text=True, timeout=120
    )
    out = tmp_path / "project" / ".docs-mcp"
    assert done.returncode == 1 and done.stderr.splitlines()[-2:] == [
        f"error: {docs} is a folder of documentation, not an index.",
        f"hint: Build its index beside it, `docs-mcp index {docs} --out {out}`, then pass that: --index {out}.",
    ]


def test_folder_without_current_is_not_an_index(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError):
        open_index(tmp_path)
    with pytest.raises(IndexNotFoundError):
        current_generation(tmp_path)


def test_garbage_current_is_a_format_error(tmp_path: Path) -> None:
    (tmp_path / CURRENT_FILE).write_text("../../etc\n")
    with pytest.raises(IndexFormatError, match="does not name an index generation"):
        open_index(tmp_path)


def test_current_naming_a_missing_generation(text_index: Path) -> None:
    (text_index / CURRENT_FILE).write_text(new_generation_name())
    with pytest.raises(IndexFormatError, match="which is missing") as caught:
        open_index(text_index)
    assert caught.value.hint.startswith("Rebuild it: docs-mcp index")


def test_corrupt_database_is_a_format_error(text_index: Path) -> None:
    db = text_index / current_generation(text_index) / DB_FILE
    db.write_bytes(b"this is not a duckdb file" * 1000)
    with pytest.raises(IndexFormatError) as caught:
        open_index(text_index)
    assert str(db) in caught.value.message


def test_other_format_version_is_refused(text_index: Path) -> None:
    db = text_index / current_generation(text_index) / DB_FILE
    with duckdb.connect(str(db)) as conn:
        conn.execute(f"UPDATE {META_TABLE} SET value = '99' WHERE key = 'format_version'")
    with pytest.raises(IndexFormatError, match="has format 99; this docs-mcp reads format 1"):
        open_index(text_index)


def test_database_locked_by_a_writer(text_index: Path) -> None:
    db = text_index / current_generation(text_index) / DB_FILE
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys; c = duckdb.connect({str(db)!r}); print('ready', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(IndexLockedError) as caught:
            open_index(text_index)
        assert "Wait for" in caught.value.hint
    finally:
        holder.communicate("")
    open_index(text_index).close()  # the lock went with the writer


def test_reader_fields(text_index: Path) -> None:
    with open_index(text_index) as reader:
        assert reader.path == text_index
        assert reader.generation == current_generation(text_index)
        assert GENERATION_NAME.fullmatch(reader.generation)
        assert reader.model is None
        assert reader.metadata["stats"]["chunks"] == 3
        with pytest.raises(duckdb.Error):  # read-only
            reader.conn.execute("DELETE FROM chunks")


def test_one_build_lock_per_folder(tmp_path: Path) -> None:
    with write_lock(tmp_path):
        with pytest.raises(IndexLockedError, match="Another `docs-mcp index` is writing"):
            with write_lock(tmp_path):
                pass
    with write_lock(tmp_path):  # released
        pass


def test_prune_deletes_only_generation_folders(tmp_path: Path) -> None:
    keep, stale = new_generation_name(), new_generation_name()
    for name in (keep, stale, "notes", "20240101-not-ours"):
        (tmp_path / name).mkdir()
    prune(tmp_path, keep={keep})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([keep, "notes", "20240101-not-ours"])


def test_a_read_on_a_damaged_index_is_one_index_format_error(tmp_path: Path) -> None:
    import duckdb

    from docs_mcp.indexer.errors import IndexFormatError
    from docs_mcp.indexer.index_file import fetch_all

    conn = duckdb.connect(str(tmp_path / "not-an-index.duckdb"))
    assert fetch_all(conn, "SELECT $x AS x", {"x": 1}) == [(1,)]
    with pytest.raises(IndexFormatError) as caught:
        fetch_all(conn, "SELECT * FROM chunks")
    assert "The index could not be read" in str(caught.value)
    assert "docs-mcp index" in caught.value.hint


def _fts_loaded(conn: duckdb.DuckDBPyConnection) -> bool:
    return conn.execute("SELECT loaded FROM duckdb_extensions() WHERE extension_name = 'fts'").fetchone() == (True,)


def test_a_reader_opens_without_the_fts_extension_which_the_store_loads_for_stem_alone(text_index: Path) -> None:
    """Loading fts costs 50 ms of CPU at each server start, and a search calls none of its functions."""
    from docs_mcp.indexer.duckdb_store import open_store

    store = open_store(text_index)
    try:
        conn = store._reader.conn
        assert not _fts_loaded(conn)
        assert store.contents(["guide.md#guide/install"]) and store.stems(["installing"]) == ["instal"]
        assert not _fts_loaded(conn)  # what a search reads: plain tables, stems in process
        assert [(term.word, term.term) for term in store.query_terms(["installing"])] == [("installing", "instal")]
        assert _fts_loaded(conn)
        assert store.query_terms(["calls"])[0].term == "call"  # loaded once, then kept
    finally:
        store.close()
