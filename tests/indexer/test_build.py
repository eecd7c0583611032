"""build_index against a real DuckDB file and the real model: content, reuse, progressive swaps, pruning, kills."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest

from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.errors import CorpusProblemsError, IndexFormatError, IndexWriteError
from docs_mcp.indexer.faults import FAULT_ENV
from docs_mcp.indexer.generation import Progress, fts_sql
from docs_mcp.indexer.index_file import GENERATION_NAME, current_generation, open_index
from docs_mcp.indexer.schema import CURRENT_FILE, FTS_SCHEMA, FULL_TEXT, HYBRID, METADATA_FILE
from docs_mcp.indexer.search_text import embedding_windows
from docs_mcp.indexer.sources.folder import build_index

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
        rows = reader.conn.execute(
            "SELECT id, chunk_id, filepath, chunk_index, metadata, heading_path FROM chunks ORDER BY id"
        ).fetchall()
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
    assert metadata["embedding"] == {
        "provider": "fastembed",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "dimensions": 384,
    }
    assert metadata["stats"]["files"] == 3
    assert metadata["taxonomy"]["language"]["values"] == ["python"]
    assert (index / CURRENT_FILE).read_text() == f"{generation}\n"


def test_full_text_tables_are_in_the_file(built) -> None:
    _, index, _ = built
    with open_index(index) as reader:
        reader.load_fts()  # match_bm25 is the extension's macro; a reader opens without it
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
        indexes = reader.conn.execute("SELECT index_name FROM duckdb_indexes() WHERE table_name = 'vectors'").fetchall()
    assert list(zip(rows["chunk"].tolist(), rows["window"].tolist())) == expected
    assert max(number for _, number in expected) >= 1  # the long section has several windows
    np.testing.assert_allclose(np.linalg.norm(np.stack(rows["vec"]), axis=1), 1.0, rtol=1e-5)
    assert indexes == []  # search scores vectors itself: no (experimental) vector index in the file


def test_progress_reports_each_stage(built) -> None:
    _, _, steps = built
    stages = [(step.stage, step.label) for step in steps if step.stage not in ("embed", "pages")]
    # The scan reports each page read of all (a large folder takes minutes), between "scan" and "files".
    pages = [(step.done, step.total) for step in steps if step.stage == "pages"]
    assert pages == [(1, 3), (2, 3), (3, 3)] and steps[1 : 1 + len(pages)] == [s for s in steps if s.stage == "pages"]
    assert stages == [
        ("scan", ""),
        ("files", ""),
        ("chunks", ""),
        ("full-text", ""),
        ("publish", FULL_TEXT),
        ("live", FULL_TEXT),
        ("publish", HYBRID),
        ("live", HYBRID),
    ]
    assert steps[1 + len(pages)].done == 3
    embeds = [step for step in steps if step.stage == "embed"]
    assert embeds[0].done == 0 and embeds[-1].done == embeds[-1].total > 0
    assert [step.done for step in embeds] == sorted(step.done for step in embeds)
    assert steps.index(embeds[0]) > stages.index(("live", FULL_TEXT))  # embedding starts once full text is live


def test_full_text_goes_live_before_embedding(make_corpus, tmp_path: Path) -> None:
    docs, index = make_corpus(DOCS), tmp_path / "index"
    seen = []

    def search_when_full_text_is_live(step: Progress) -> None:
        if (step.stage, step.label) == ("live", FULL_TEXT):
            with open_index(index) as reader:  # as a server does on its next request
                reader.load_fts()  # for match_bm25 (a server's search reads the tables it wrote, without it)
                match = f"SELECT chunk_id FROM chunks WHERE {FTS_SCHEMA}.match_bm25(id, 'quota') IS NOT NULL"
                seen.append((reader.model, reader.metadata["embedding"], reader.conn.execute(match).fetchall()))

    report = build_index(docs, index, progress=search_when_full_text_is_live)
    assert seen == [(None, None, [("guide/retries.md#retries/backoff",)])]
    assert list(report.live_after) == [FULL_TEXT, HYBRID]
    assert 0 < report.live_after[FULL_TEXT] <= report.live_after[HYBRID] <= report.seconds
    assert report.windows_per_second is not None and report.embed_seconds > 0
    hybrid = current_generation(index)
    full_text = [name for name in generations(index) if name != hybrid]
    assert len(full_text) == 1  # the full-text generation stays, as the previous live one
    with open_index(index) as reader:
        assert reader.model is not None and reader.generation == hybrid
        assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (len(scan_corpus(docs).chunks),)


def test_unchanged_corpus_goes_straight_to_hybrid(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    first = build_index(docs, tmp_path / "index")
    with open_index(tmp_path / "index") as reader:
        before = reader.conn.execute('SELECT chunk, "window", key, vec FROM vectors ORDER BY ALL').fetchall()
    steps: list[Progress] = []
    second = build_index(docs, tmp_path / "index", progress=steps.append)
    assert (first.embedded, first.reused_embeddings) == (len(before), 0)
    assert (second.embedded, second.reused_embeddings) == (0, len(before))
    assert list(second.live_after) == [HYBRID] and second.windows_per_second is None
    assert [step.label for step in steps if step.stage == "live"] == [HYBRID]  # no full-text-only generation
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
    assert list(report.live_after) == [FULL_TEXT]
    with open_index(tmp_path / "index") as reader:
        tables = {
            name
            for (name,) in reader.conn.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
            ).fetchall()
        }
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
    assert fts_sql() == snapshot


PAUSED_BUILD = Path(__file__).with_name("paused_build.py")


def _paused_build(
    docs: Path, index: Path, log: Path, stage: str, label: str = "", done: int = 0
) -> subprocess.Popen[bytes]:
    """`docs-mcp index` in a child process, stopped (SIGSTOP) right after the given progress step."""
    with open(log, "wb") as stderr:
        child = subprocess.Popen(
            [sys.executable, str(PAUSED_BUILD), stage, label, str(done), "--", "index", str(docs), "--out", str(index)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    _, status = os.waitpid(child.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), f"the build ended before {stage} {label}: {log.read_text()}"
    return child


def _signalled(child: subprocess.Popen[bytes], sig: int) -> int:
    os.kill(child.pid, sig)
    os.kill(child.pid, signal.SIGCONT)
    try:
        return child.wait(timeout=300)  # a signal the child never saw fails the test, never hangs the suite
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise


@pytest.fixture
def live_and_changed(make_corpus, tmp_path: Path) -> tuple[Path, Path, str]:
    """A live hybrid index, and its docs changed so that a new build has a dozen windows to embed."""
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index)
    (docs / "more.md").write_text("".join(f"## Section {j}\n\nText about topic {j}.\n\n" for j in range(12)))
    return docs, index, current_generation(index)


def _chunk_count(index: Path) -> int:
    with open_index(index) as reader:
        return reader.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


# (stage, label, done) to kill at, and which generation is live afterwards: the old one or the new full-text one.
KILL_POINTS = {
    "scan": (("scan", "", 0), "old"),
    "full text written": (("publish", FULL_TEXT, 0), "old"),
    "full text live": (("live", FULL_TEXT, 0), "full text"),
    "during embedding": (("embed", "", 4), "full text"),
    "publishing hybrid": (("publish", HYBRID, 0), "full text"),
}


@pytest.mark.parametrize("point", KILL_POINTS)
def test_kill_9_leaves_the_last_live_generation_intact(live_and_changed, tmp_path: Path, point: str) -> None:
    docs, index, old = live_and_changed
    (stage, label, done), expected = KILL_POINTS[point]
    child = _paused_build(docs, index, tmp_path / "stderr.txt", stage, label, done)
    assert _signalled(child, signal.SIGKILL) == -signal.SIGKILL
    live = current_generation(index)
    with open_index(index) as reader:
        assert reader.generation == live
        if expected == "old":
            assert live == old and reader.model is not None
            assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (
                len(scan_corpus(docs).chunks) - 12,
            )
        else:
            assert live != old and reader.model is None  # the new docs, searchable by full text
            assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (len(scan_corpus(docs).chunks),)
    report = build_index(docs, index)
    # The next build finishes the work, reusing the old generation's vectors even when full text is live;
    # a finished hybrid generation that never went live has the new windows' vectors too.
    embedded = 0 if point == "publishing hybrid" else 12
    assert (report.embedded, report.reused_embeddings > 0) == (embedded, True)
    leftovers = set(generations(index)) - {current_generation(index)}
    assert len(leftovers) == (1 if embedded else 2)  # the previous live generation (and the one vectors came from)


def test_interrupted_build_cleans_up_and_says_so(live_and_changed, tmp_path: Path) -> None:
    docs, index, old = live_and_changed
    before = generations(index)
    child = _paused_build(docs, index, tmp_path / "stderr.txt", "full-text")
    assert _signalled(child, signal.SIGINT) == 130
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "interrupted: nothing changed" in stderr and "Traceback" not in stderr
    assert old in generations(index) and set(generations(index)) <= set(before)  # nothing new left behind
    assert current_generation(index) == old


def test_interrupted_embedding_leaves_full_text_live_and_says_so(live_and_changed, tmp_path: Path) -> None:
    docs, index, old = live_and_changed
    child = _paused_build(docs, index, tmp_path / "stderr.txt", "embed", "", 4)
    assert _signalled(child, signal.SIGINT) == 130
    stderr = (tmp_path / "stderr.txt").read_text()
    assert f"interrupted: full-text search of the new docs is live at {index}, without vectors." in stderr
    assert "Traceback" not in stderr
    assert current_generation(index) != old and _chunk_count(index) == len(scan_corpus(docs).chunks)
    assert sorted(generations(index)) == sorted([old, current_generation(index)])  # the unfinished hybrid one is gone


# -- fault points (indexer/faults.py): Ctrl-C and kill -9 at exact steps of a full-text build ------------


def _faulty_build(docs: Path, index: Path, fault: str) -> subprocess.CompletedProcess[str]:
    """Run `docs-mcp index` that is interrupted or killed at an exact step (see indexer/faults.py): no race."""
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index), "--embeddings", "none"],
        env={**os.environ, FAULT_ENV: fault},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def leftovers(index: Path) -> list[str]:
    return sorted(p.name for p in index.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def text_live_and_changed(make_corpus, tmp_path: Path) -> tuple[Path, Path, str]:
    """A live full-text index (--embeddings none), and its docs changed (120 more chunks) since."""
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index, embeddings="none")
    for i in range(12):
        (docs / f"more/page{i}.md").parent.mkdir(exist_ok=True)
        (docs / f"more/page{i}.md").write_text("".join(f"## Section {j}\n\nText {i} {j}.\n\n" for j in range(10)))
    return docs, index, current_generation(index)


def test_killed_builds_leave_the_old_index_live_and_the_next_build_cleans_up_first(text_live_and_changed) -> None:
    docs, index, old = text_live_and_changed
    assert _faulty_build(docs, index, "fts:sigkill").returncode == -signal.SIGKILL
    first_orphans = set(generations(index)) - {old}
    assert len(first_orphans) == 1
    assert _faulty_build(docs, index, "replace:sigkill").returncode == -signal.SIGKILL  # killed mid-swap
    assert current_generation(index) == old
    with open_index(index) as reader:
        assert reader.generation == old
        assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (len(scan_corpus(docs).chunks) - 120,)
    orphans = set(generations(index)) - {old}
    assert len(orphans) == 1 and orphans.isdisjoint(first_orphans)  # each build first removed what the last left
    assert [name.rsplit(".", 2)[0] for name in leftovers(index)] == [
        ".CURRENT",
        ".metadata.json",
    ]  # both written before either is renamed
    # The next build removes them first, under the lock: even one that is itself interrupted.
    assert _faulty_build(docs, index, "fts:sigint").returncode == 130
    assert generations(index) == [old] and leftovers(index) == []


@pytest.mark.parametrize("fault", ["fts:sigint", "fts:query-interrupted", "load:query-interrupted"])
def test_ctrl_c_before_the_swap_is_one_line_and_exit_130(text_live_and_changed, fault: str) -> None:
    docs, index, old = text_live_and_changed
    result = _faulty_build(docs, index, fault)  # query-interrupted: what DuckDB raises when Ctrl-C lands in a query
    assert result.returncode == 130
    assert result.stderr.splitlines()[-1] == f"interrupted: nothing changed; the index at {index} is as it was."
    assert "Traceback" not in result.stderr
    assert generations(index) == [old] and current_generation(index) == old and leftovers(index) == []


def test_ctrl_c_during_the_swap_says_the_new_index_is_live(text_live_and_changed) -> None:
    docs, index, old = text_live_and_changed
    result = _faulty_build(docs, index, "replace:sigint")  # held back until CURRENT and metadata.json are both replaced
    new = current_generation(index)
    assert result.returncode == 130 and new != old and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == f"interrupted: the new index at {index} is live."
    assert leftovers(index) == []
    assert (index / METADATA_FILE).read_bytes() == (index / new / METADATA_FILE).read_bytes()
    with open_index(index) as reader:
        assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone() == (len(scan_corpus(docs).chunks),)


def test_ctrl_c_right_after_the_build_still_prints_its_one_line(text_live_and_changed) -> None:
    """Ctrl-C while the summary prints (a small build ends right after its index goes live) ended the process by signal, silently."""
    docs, index, old = text_live_and_changed
    result = _faulty_build(docs, index, "summary:sigint")
    assert result.returncode == 130 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == f"interrupted: the new index at {index} is live."
    assert current_generation(index) != old


def test_an_unwritable_out_is_one_error_line(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    (tmp_path / "a-file").write_text("x")
    outs = [tmp_path / "a-file" / "index"] + ([Path("/sys/docs-mcp-index")] if Path("/sys").is_dir() else [])
    for out in outs:
        done = subprocess.run(
            [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(out), "--embeddings", "none"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"error: Cannot write the index folder {out}: " in done.stderr
        assert "hint: Pass --out a folder you can write" in done.stderr


def test_a_read_only_file_system_is_an_index_write_error(make_corpus, tmp_path: Path, monkeypatch) -> None:
    docs = make_corpus(DOCS)

    def read_only(*_args, **_kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(IndexWriteError, match="Read-only file system"):
        build_index(docs, tmp_path / "index", embeddings="none")


def test_a_damaged_current_is_fixed_by_the_rebuild_its_error_advises(make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(DOCS)
    index = tmp_path / "index"
    build_index(docs, index, embeddings="none")
    (index / CURRENT_FILE).write_text("garbage\n")
    with pytest.raises(IndexFormatError) as damaged:
        open_index(index)
    assert damaged.value.hint == f"Rebuild it: docs-mcp index DOCS_DIR --out {index}"
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index), "--embeddings", "none"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    with open_index(index) as reader:
        assert generations(index) == [reader.generation]


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
