"""build_index against a real DuckDB file and the real model: content, reuse, atomic swap, pruning."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest

from docs_mcp.indexer.build import build_index
from docs_mcp.indexer.generation import Progress, fts_sql, hnsw_sql
from docs_mcp.indexer.errors import CorpusProblemsError, IndexFormatError
from docs_mcp.indexer.index_file import GENERATION_NAME, current_generation, open_index
from docs_mcp.indexer.schema import CURRENT_FILE, FTS_SCHEMA, METADATA_FILE
from docs_mcp.indexer.search_text import embedding_windows
from docs_mcp.indexer.corpus import scan_corpus

LONG_SECTION = " ".join(f"Step {i}: the client raises RateLimitError when the quota is spent." for i in range(60))
DOCS = {
    ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "guide"}}),
    "guide/retries.md": f"# Retries\n\nIntro to retries.\n\n## Backoff\n\n{LONG_SECTION}\n\n## Limits\n\nTen per second.\n",
    "api/client.md": "---\ntitle: Client API\nmetadata:\n  language: python\n---\n\n## Connect\n\nCall connect().\n",
    "index.md": "# Home\n\nWelcome to the docs.\n",
}


def generations(index: Path) -> list[str]:
    return sorted(p.name for p in index.iterdir() if p.is_dir() and GENERATION_NAME.fullmatch(p.name))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Progress]]:
    """One index of DOCS with the default model, and the progress it reported (read-only for tests)."""
    root = tmp_path_factory.mktemp("built")
    for rel, text in DOCS.items():
        (root / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / rel).write_text(text, encoding="utf-8")
    steps: list[Progress] = []
    build_index(root / "docs", root / "index", progress=steps.append)
    return root / "docs", root / "index", steps


def test_chunks_are_stored_in_library_filepath_order(built) -> None:
    docs, index, _ = built
    scan = scan_corpus(docs)
    with open_index(index) as reader:
        rows = reader.conn.execute("SELECT id, chunk_id, filepath, chunk_index, metadata, heading_path FROM chunks ORDER BY id").fetchall()
    assert [row[0] for row in rows] == list(range(len(scan.chunks)))
    assert [(row[2], row[3]) for row in rows] == sorted((c.filepath, c.chunk_index) for c in scan.chunks)
    stored = {row[1]: (json.loads(row[4]), tuple(json.loads(row[5]))) for row in rows}
    assert stored == {c.chunk_id: (dict(c.metadata), c.heading_path) for c in scan.chunks}


def test_metadata_is_in_the_database_and_both_files(built, default_embedder) -> None:
    _, index, _ = built
    with open_index(index) as reader:
        metadata = dict(reader.metadata)
        assert reader.model == default_embedder.identity
        generation = reader.generation
    assert json.loads((index / METADATA_FILE).read_text()) == metadata
    assert json.loads((index / generation / METADATA_FILE).read_text()) == metadata
    assert metadata["embedding"] == {"provider": "fastembed", "model": "sentence-transformers/all-MiniLM-L6-v2", "dimensions": 384}
    assert metadata["stats"]["files"] == 3
    assert metadata["taxonomy"]["language"]["values"] == ["python"]
    assert (index / CURRENT_FILE).read_text() == f"{generation}\n"


def test_full_text_tables_are_in_the_file(built) -> None:
    _, index, _ = built
    with open_index(index) as reader:
        fields = reader.conn.execute(f"SELECT fieldid, field FROM {FTS_SCHEMA}.fields ORDER BY fieldid").fetchall()
        assert fields == [(0, "fts_title"), (1, "fts_heading"), (2, "fts_body")]
        for table in ("dict", "terms", "docs", "stats"):
            assert reader.conn.execute(f"SELECT count(*) FROM {FTS_SCHEMA}.{table}").fetchone()[0] > 0
        # The camel-case parts were appended to the body: only RateLimitError gives the word 'rate'.
        matches = reader.conn.execute(
            f"SELECT chunk_id FROM chunks WHERE {FTS_SCHEMA}.match_bm25(id, 'rate') IS NOT NULL"
        ).fetchall()
    assert matches == [("guide/retries.md#retries/backoff",)]


def test_every_window_has_a_normalised_vector(built) -> None:
    docs, index, _ = built
    chunks = sorted(scan_corpus(docs).chunks, key=lambda c: (c.filepath, c.chunk_index))
    expected = [(row, number) for row, chunk in enumerate(chunks) for number, _ in enumerate(embedding_windows(chunk))]
    with open_index(index) as reader:
        rows = reader.conn.execute('SELECT chunk, "window", vec FROM vectors ORDER BY chunk, "window"').fetchnumpy()
        hnsw = reader.conn.execute("SELECT count(*) FROM duckdb_indexes() WHERE index_name = 'vectors_hnsw'").fetchone()
    assert list(zip(rows["chunk"].tolist(), rows["window"].tolist())) == expected
    assert max(number for _, number in expected) >= 1  # the long section has several windows
    np.testing.assert_allclose(np.linalg.norm(np.stack(rows["vec"]), axis=1), 1.0, rtol=1e-5)
    assert hnsw == (1,)


def test_progress_reports_each_stage(built) -> None:
    _, _, steps = built
    stages = [step.stage for step in steps]
    assert stages[:3] == ["scan", "files", "chunks"] and steps[1].done == 3
    assert stages[-3:] == ["fts", "vector-index", "publish"]
    embeds = [step for step in steps if step.stage == "embed"]
    assert embeds[0].done == 0 and embeds[-1].done == embeds[-1].total > 0


def test_unchanged_corpus_embeds_nothing(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    first = build_index(docs, tmp_path / "index")
    with open_index(tmp_path / "index") as reader:
        before = reader.conn.execute('SELECT chunk, "window", key, vec FROM vectors ORDER BY ALL').fetchall()
    second = build_index(docs, tmp_path / "index")
    assert (first.embedded, first.reused_embeddings) == (len(before), 0)
    assert (second.embedded, second.reused_embeddings) == (0, len(before))
    with open_index(tmp_path / "index") as reader:
        assert reader.conn.execute('SELECT chunk, "window", key, vec FROM vectors ORDER BY ALL').fetchall() == before


def test_changed_page_embeds_only_its_windows(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    first = build_index(docs, tmp_path / "index")
    (docs / "api/client.md").write_text(DOCS["api/client.md"].replace("Call connect().", "Call connect() twice."))
    second = build_index(docs, tmp_path / "index")
    assert second.embedded == 1  # the one changed section
    assert second.reused_embeddings == first.embedded - 1


def test_full_text_only_index(make_corpus, tmp_path: Path) -> None:
    report = build_index(make_corpus(DOCS), tmp_path / "index", embeddings="none")
    assert (report.embedded, report.reused_embeddings) == (0, 0)
    with open_index(tmp_path / "index") as reader:
        tables = {name for (name,) in reader.conn.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()}
        assert reader.model is None
        assert reader.metadata["embedding"] is None
    assert tables == {"meta", "chunks"}


def test_strict_refuses_problems_and_writes_nothing(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus({**DOCS, "empty.md": "", "bad.md": b"caf\xe9\n"})
    with pytest.raises(CorpusProblemsError) as caught:
        build_index(docs, tmp_path / "index", embeddings="none", strict=True)
    assert "2 problem(s)" in caught.value.message
    assert "\n  warning: empty.md: " in caught.value.message and "\n  error: bad.md: " in caught.value.message
    assert not (tmp_path / "index").exists()
    report = build_index(docs, tmp_path / "index", embeddings="none")  # not strict: indexed anyway
    assert sorted(problem.path for problem in report.problems) == ["bad.md", "empty.md"]


def test_old_generations_are_pruned_but_the_previous_one_kept(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    seen = []
    for _ in range(3):
        build_index(docs, index, embeddings="none")
        seen.append(current_generation(index))
    assert generations(index) == sorted(seen[1:])


def test_next_build_removes_an_unfinished_generation(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index, embeddings="none")
    stale = index / "20000101T000000Z-0badf00d"
    stale.mkdir()
    (stale / "index.duckdb").write_bytes(b"half written")
    previous = current_generation(index)
    build_index(docs, index, embeddings="none")
    assert generations(index) == sorted([previous, current_generation(index)])


def test_a_foreign_metadata_json_is_not_overwritten(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / METADATA_FILE).write_text("{}")
    with pytest.raises(IndexFormatError, match="holds a metadata.json but no index"):
        build_index(docs, tmp_path / "mine", embeddings="none")
    assert (tmp_path / "mine" / METADATA_FILE).read_text() == "{}"


def test_sql(snapshot) -> None:
    assert [fts_sql(), *hnsw_sql()] == snapshot


def _interrupted_build(docs: Path, index: Path, sig: int) -> subprocess.CompletedProcess[str]:
    """Run `docs-mcp index` and send ``sig`` as soon as it reports embedding progress."""
    child = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = []
    for line in child.stderr:  # piped, so one line per step
        seen.append(line)
        if line.startswith("embedding 0/"):
            os.kill(child.pid, sig)
            break
    out, err = child.communicate()
    assert seen and seen[-1].startswith("embedding 0/"), "".join(seen) + err
    return subprocess.CompletedProcess(child.args, child.returncode, out, "".join(seen) + err)


@pytest.fixture
def live_and_changed(make_corpus, tmp_path: Path) -> tuple[Path, Path, str]:
    """A live full-text index, and its docs changed so that a new build has 100+ windows to embed."""
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index, embeddings="none")
    for i in range(12):
        (docs / f"more/page{i}.md").parent.mkdir(exist_ok=True)
        (docs / f"more/page{i}.md").write_text("".join(f"## Section {j}\n\nText {i} {j}.\n\n" for j in range(10)))
    return docs, index, current_generation(index)


def test_killed_build_leaves_the_old_index_live(live_and_changed) -> None:
    docs, index, old = live_and_changed
    result = _interrupted_build(docs, index, signal.SIGKILL)
    assert result.returncode == -signal.SIGKILL
    assert current_generation(index) == old
    with open_index(index) as reader:
        assert reader.generation == old
        assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (len(scan_corpus(docs).chunks) - 120,)
    unfinished = set(generations(index)) - {old}
    assert len(unfinished) == 1  # the killed build's folder, left as garbage...
    build_index(docs, index, embeddings="none")
    assert unfinished.isdisjoint(generations(index))  # ...and removed by the next build


def test_interrupted_build_cleans_up_and_says_so(live_and_changed) -> None:
    docs, index, old = live_and_changed
    result = _interrupted_build(docs, index, signal.SIGINT)
    assert result.returncode == 130
    assert "interrupted: nothing changed" in result.stderr
    assert "Traceback" not in result.stderr
    assert generations(index) == [old]
    assert current_generation(index) == old


def test_rebuild_replaces_an_outdated_index(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index, embeddings="none")
    with duckdb.connect(str(index / current_generation(index) / "index.duckdb")) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'format_version'")
    with pytest.raises(IndexFormatError, match="has format 0"):
        open_index(index)
    build_index(docs, index, embeddings="none")  # the fix the error's hint names must work
    open_index(index).close()
