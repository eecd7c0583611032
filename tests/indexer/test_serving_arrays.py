"""The serving arrays a build writes: they agree with the generation's tables, map read-only, and are versioned."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import orjson
import pytest

from docs_mcp.errors import UsageError
from docs_mcp.indexer.errors import IndexFormatError
from docs_mcp.indexer.index_file import current_generation, open_index
from docs_mcp.indexer.schema import FTS_SCHEMA
from docs_mcp.indexer.serving import writer as serving_writer
from docs_mcp.indexer.serving.arrays import MANIFEST_FILE, SERVING_DIR
from docs_mcp.indexer.serving.page_records import CONTENT_OFFSETS_FILE, CONTENTS_FILE, RECORDS_FILE
from docs_mcp.indexer.serving.reader import open_serving_arrays
from docs_mcp.indexer.serving.vector_index import ANN_MIN_WINDOWS_VARIABLE
from docs_mcp.indexer.serving.writer import read_postings
from docs_mcp.indexer.sources.folder import build_index

DOCS = {
    ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "guide"}}),
    "guide/retries.md": "# Retries\n\n## Backoff\n\nRetry with exponential backoff.\n\n## Limits\n\nTen requests per second.\n",
    "sdk/go/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "go", "scope": "sdk"}}),
    "sdk/go/client.md": "# Go client\n\n## Backoff\n\nThe Go client retries with backoff.\n\n```go\nclient.Retry()\n```\n",
}


def written_docs(root: Path) -> Path:
    """DOCS written under ``root``/docs."""
    for rel, text in DOCS.items():
        (root / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / rel).write_text(text, encoding="utf-8")
    return root / "docs"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serving")
    build_index(written_docs(root), root / "index")
    return root / "index"


def test_arrays_are_memory_mapped_and_agree_with_the_tables(index: Path) -> None:
    arrays = open_serving_arrays(index / current_generation(index))
    assert isinstance(arrays.postings.docs.base, np.memmap) and isinstance(
        arrays.vectors.vectors.base, np.memmap
    )  # mapped, not read
    with open_index(index) as reader:
        chunks = reader.conn.execute("SELECT filepath, heading, metadata FROM chunks ORDER BY id").fetchall()
        dictionary = reader.conn.execute(f"SELECT term, df FROM {FTS_SCHEMA}.dict").fetchall()
        windows = reader.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert arrays.num_chunks == len(chunks) and len(arrays.vectors.vectors) == windows
    for term, df in dictionary:
        t = arrays.postings.term_id(term)
        assert arrays.postings.df[t] == df == arrays.postings.starts[t + 1] - arrays.postings.starts[t]
    # Same file, same code; same case-folded heading, same code.
    for a, (path_a, heading_a, _) in enumerate(chunks):
        for b, (path_b, heading_b, _) in enumerate(chunks):
            assert (arrays.file_codes[a] == arrays.file_codes[b]) == (path_a == path_b)
            assert (arrays.heading_codes[a] == arrays.heading_codes[b]) == (
                heading_a.casefold() == heading_b.casefold()
            )
    language = arrays.taxonomy_keys.index("language")
    decoded = [arrays.taxonomy_values["language"][c] if c >= 0 else None for c in arrays.taxonomy_codes[language]]
    assert decoded == [orjson.loads(meta).get("language") for _, _, meta in chunks]


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_postings_read_in_batches_of_terms_equal_those_read_at_once(
    index: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches bound the build's memory (a million chunks: 62M postings); the arrays are the same to the bit."""
    with open_index(index) as reader:
        chunks = reader.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        at_once = read_postings(reader.conn, chunks)
        monkeypatch.setattr(serving_writer, "POSTINGS_BATCH", batch)
        batched = read_postings(reader.conn, chunks)
    for name in ("terms", "term_offsets", "df", "starts", "docs", "weights", "tf", "field_lengths"):
        assert getattr(batched, name).tobytes() == getattr(at_once, name).tobytes(), name
    assert len(at_once.docs) >= 3 * batch  # several batches (of one term each, at 1)


def test_page_roles_and_stopwords_are_stored(index: Path) -> None:
    arrays = open_serving_arrays(index / current_generation(index))
    with open_index(index) as reader:
        contents = [row[0] for row in reader.conn.execute("SELECT content FROM chunks ORDER BY id").fetchall()]
    has_code = arrays.roles[:, arrays.role_names.index("has_code")]
    assert has_code.tolist() == [1.0 if "```" in content else 0.0 for content in contents] and has_code.any()
    assert {"the", "and", "of"} <= arrays.postings.stopwords


def test_another_version_is_refused_with_the_rebuild_command(index: Path, tmp_path: Path) -> None:
    folder = index / current_generation(index)
    manifest_path = folder / SERVING_DIR / MANIFEST_FILE
    original = manifest_path.read_text()
    try:
        manifest_path.write_text(json.dumps({**json.loads(original), "version": "0"}))
        with pytest.raises(IndexFormatError, match="serving arrays version '0'") as raised:
            open_serving_arrays(folder)
    finally:
        manifest_path.write_text(original)
    assert "docs-mcp index DOCS_DIR" in raised.value.hint


def test_page_records_hold_each_chunk_as_a_hit_shows_it(index: Path) -> None:
    arrays = open_serving_arrays(index / current_generation(index))
    with open_index(index) as reader:
        rows = reader.conn.execute(
            "SELECT chunk_id, heading, breadcrumb, filepath, metadata, text FROM chunks ORDER BY id"
        ).fetchall()
    assert len(arrays.records) == len(rows)
    for row, (chunk_id, heading, breadcrumb, filepath, metadata, text) in enumerate(rows):
        record = arrays.records.get(row)
        assert (record.chunk_id, record.heading, record.breadcrumb, record.filepath) == (
            chunk_id,
            heading,
            breadcrumb,
            filepath,
        )
        assert record.metadata == orjson.loads(metadata)
        assert record.flat_text == " ".join(text.split())  # folded once, at build time
    assert any("\n" in text for *_, text in rows)


def test_each_chunks_markdown_is_stored_beside_its_record(index: Path) -> None:
    arrays = open_serving_arrays(index / current_generation(index))
    with open_index(index) as reader:
        contents = [row[0] for row in reader.conn.execute("SELECT content FROM chunks ORDER BY id").fetchall()]
    rows = list(range(len(contents)))
    assert arrays.records.markdown(rows) == contents and arrays.records.markdown(rows[::-1]) == contents[::-1]
    assert any("```" in text for text in contents) and any("\n\n" in text for text in contents)  # markdown, not folded


def test_a_generation_built_before_the_markdown_file_reads_it_from_the_store(index: Path, tmp_path: Path) -> None:
    from docs_mcp.server.search.engine import open_engine

    old = tmp_path / "index"
    shutil.copytree(index, old)
    serving = old / current_generation(old) / SERVING_DIR
    manifest = json.loads((serving / MANIFEST_FILE).read_text())
    del manifest["content_bytes"]
    (serving / MANIFEST_FILE).write_text(json.dumps(manifest))
    (serving / CONTENTS_FILE).unlink()
    (serving / CONTENT_OFFSETS_FILE).unlink()
    engine, before = open_engine(old), open_engine(index)
    try:
        assert engine.arrays.records.markdown([0]) is None and before.arrays.records.markdown([0]) is not None
        hits = engine.search("backoff retries", mode="bm25").hits
        assert len(hits) >= 2 and all(hit.row >= 0 for hit in hits)
        expected = engine.store.contents([hit.chunk_id for hit in hits])
        assert engine.markdown(hits) == expected == before.markdown(before.search("backoff retries", mode="bm25").hits)
    finally:
        engine.close()
        before.close()


def test_damaged_page_records_are_refused_with_the_rebuild_command(index: Path, tmp_path: Path) -> None:
    folder = tmp_path / "generation"
    shutil.copytree(index / current_generation(index), folder)
    with open(folder / SERVING_DIR / RECORDS_FILE, "ab") as blob:
        blob.write(b"[]")
    with pytest.raises(IndexFormatError, match="damaged serving arrays") as raised:
        open_serving_arrays(folder)
    assert "docs-mcp index DOCS_DIR" in raised.value.hint


def test_the_approximate_index_can_be_forced_below_its_size_for_measurements(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert open_serving_arrays(index / current_generation(index)).vector_index is None  # a few windows: brute force
    monkeypatch.setenv(ANN_MIN_WINDOWS_VARIABLE, "0")
    build_index(written_docs(tmp_path), tmp_path / "index")
    forced = open_serving_arrays(tmp_path / "index" / current_generation(tmp_path / "index"))
    assert forced.vector_index is not None and len(forced.vector_index.vectors) == len(forced.vectors.vectors)
    assert np.array_equal(
        forced.vector_index.vectors[forced.vector_index.window_rows], forced.vectors.vectors[:]
    )  # each window's row
    monkeypatch.setenv(ANN_MIN_WINDOWS_VARIABLE, "few")
    with pytest.raises(UsageError, match="not a number of windows"):
        build_index(tmp_path / "docs", tmp_path / "index")


def test_with_an_approximate_index_the_vectors_are_stored_once_and_read_in_chunk_order(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact = open_serving_arrays(index / current_generation(index)).vectors
    monkeypatch.setenv(ANN_MIN_WINDOWS_VARIABLE, "0")
    build_index(written_docs(tmp_path), tmp_path / "index")
    generation = tmp_path / "index" / current_generation(tmp_path / "index")
    serving = generation / SERVING_DIR
    assert not (serving / "vectors.npy").exists() and (serving / "ivf_vectors.npy").exists()
    forced = open_serving_arrays(generation).vectors
    assert np.array_equal(forced.starts, exact.starts) and len(forced.vectors) == len(exact.vectors)
    assert np.allclose(forced.vectors[:], exact.vectors, atol=1e-6)  # a slice, as the whole array
    second = int(exact.starts[1])
    assert np.allclose(forced.vectors[second], exact.vectors[second], atol=1e-6)  # one window (the collapse)
    assert np.allclose(
        forced.vectors[np.array([second, 0])], exact.vectors[[second, 0]], atol=1e-6
    )  # some (exact cosines)


def test_a_version_3_generation_with_vectors_beside_its_approximate_index_still_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ANN_MIN_WINDOWS_VARIABLE, "0")
    build_index(written_docs(tmp_path), tmp_path / "index")
    generation = tmp_path / "index" / current_generation(tmp_path / "index")
    serving = generation / SERVING_DIR
    windows = open_serving_arrays(generation).vectors.vectors[:]
    np.save(serving / "vectors.npy", windows)  # as version 3 wrote it
    manifest = json.loads((serving / MANIFEST_FILE).read_text(encoding="utf-8"))
    del manifest["window_vectors"]
    (serving / MANIFEST_FILE).write_text(json.dumps({**manifest, "version": "3"}), encoding="utf-8")
    opened = open_serving_arrays(generation)
    assert isinstance(opened.vectors.vectors, np.ndarray) and np.array_equal(opened.vectors.vectors, windows)
    assert opened.vector_index is not None
