"""Synthetic corpora (exact sizes, reproducible) and the benchmark run end to end on tiny sizes.

No timing is asserted: the figures only have to exist and be consistent with each other.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from docs_mcp.eval.bench import BenchPlan, render_bench, run_bench, write_bench_json
from docs_mcp.eval.synthetic import generate_corpus
from docs_mcp.indexer import scan_corpus

SKYLINE_DOCS = Path(__file__).parent / "fixtures" / "skyline" / "docs"


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("chunks", [1, 13, 14, 15, 250])
def test_a_synthetic_corpus_has_exactly_the_chunks_asked_for(tmp_path, chunks):
    corpus = generate_corpus(tmp_path / "docs", chunks, seed=3, queries=10)
    scan = scan_corpus(corpus.root)
    assert len(scan.chunks) == corpus.chunks == chunks
    assert len(scan.files) == corpus.files
    assert scan.problems == ()
    assert len(corpus.queries) == 10


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path):
    first = generate_corpus(tmp_path / "a", 200, seed=7)
    second = generate_corpus(tmp_path / "b", 200, seed=7)
    other = generate_corpus(tmp_path / "c", 200, seed=8)
    assert files_of(first.root) == files_of(second.root)
    assert first.queries == second.queries
    assert files_of(first.root) != files_of(other.root)


def test_synthetic_corpora_carry_identifiers_code_and_a_language_taxonomy(tmp_path):
    corpus = generate_corpus(tmp_path / "docs", 400, seed=0)
    scan = scan_corpus(corpus.root)
    text = "".join(chunk.content for chunk in scan.chunks)
    assert "```python" in text and "Error" in text and "_" in text
    assert {key.name for key in scan.taxonomy} == {"language", "scope"}


def test_too_small_a_corpus(tmp_path):
    with pytest.raises(ValueError, match="at least 1 chunk"):
        generate_corpus(tmp_path, 0)


def test_bench_full_text_and_synthetic_vectors(tmp_path):
    plans = [
        BenchPlan(sizes=(60,), embeddings="none", queries=20, workers=1),
        BenchPlan(sizes=(60,), embeddings="synthetic", queries=20, workers=1),
    ]
    text_only, synthetic = (run_bench(plan, tmp_path / plan.embeddings)[0] for plan in plans)
    assert (text_only.chunks, text_only.vectors, list(text_only.latency)) == (60, "none", ["bm25"])
    assert (synthetic.chunks, synthetic.vectors, list(synthetic.latency)) == (60, "synthetic", ["hybrid", "bm25"])
    assert synthetic.index_bytes > text_only.index_bytes  # the vectors are really there
    assert synthetic.vector_fill_seconds > 0 and text_only.vector_fill_seconds == 0
    for result in (text_only, synthetic):
        assert result.build_seconds > 0 and result.build_peak_rss_mb > 0
        for latency in result.latency.values():
            assert latency.open_ms > 0 and latency.cold_ms > 0 and latency.peak_rss_mb > 0
            assert 0 < latency.p50 <= latency.p95 <= latency.p99
            assert latency.qps_1 > 0 and latency.qps_4 > 0  # threads in process
            assert (
                latency.pool_workers == 1 and latency.pool_qps_1 > 0 and latency.pool_qps_4 > 0
            )  # through a search worker
            if Path("/proc/self/smaps_rollup").exists():
                assert latency.server_memory["rss"] >= latency.server_memory["pss"] >= latency.server_memory["uss"] > 0
                assert (
                    latency.workers_memory["rss"] >= latency.workers_memory["pss"] >= latency.workers_memory["uss"] > 0
                )
    table = render_bench([text_only, synthetic])
    assert "vectors=synthetic: random unit vectors" in table
    assert table.splitlines()[0].split() == [
        "corpus",
        "files",
        "chunks",
        "vectors",
        "build",
        "s",
        "chunks/s",
        "index",
        "MB",
        "build",
        "RSS",
        "MB",
    ]
    serving = next(line for line in table.splitlines() if line.startswith("corpus") and "workers" in line)
    assert serving.split() == [
        "corpus",
        "mode",
        "threads",
        "q/s",
        "1",
        "q/s",
        "4",
        "4",
        "vs",
        "1",
        "workers",
        "q/s",
        "1",
        "q/s",
        "4",
        "4",
        "vs",
        "1",
        "cores",
        "RSS",
        "MB",
        "PSS",
        "MB",
        "USS",
        "MB/worker",
    ]


def test_bench_a_corpus_folder_with_the_model_and_write_json(tmp_path):
    plan = BenchPlan(corpus=SKYLINE_DOCS, queries=20, workers=1)
    [result] = run_bench(plan, tmp_path / "work")
    assert (result.label, result.chunks, result.vectors) == (str(SKYLINE_DOCS), 13, "model")
    path = tmp_path / "bench.json"
    write_bench_json(plan, [result], path)
    data = json.loads(path.read_text())
    assert data["plan"]["corpus"] == str(SKYLINE_DOCS)
    assert data["results"][0]["latency"]["hybrid"]["p50"] == result.latency["hybrid"].p50
    assert data["results"][0]["latency"]["hybrid"]["pool_qps_4"] == result.latency["hybrid"].pool_qps_4 > 0


def test_an_interrupted_bench_stops_its_step_and_removes_the_temporary_folder(tmp_path, monkeypatch):
    steps: list[subprocess.Popen] = []
    start = subprocess.Popen

    def recorded(*args, **kwargs) -> subprocess.Popen:
        steps.append(start(*args, **kwargs))
        return steps[-1]

    def interrupted(pid: int, options: int):
        raise KeyboardInterrupt  # Ctrl-C while the parent waits for the step

    monkeypatch.setattr(subprocess, "Popen", recorded)
    monkeypatch.setattr(os, "wait4", interrupted)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        run_bench(BenchPlan(sizes=(60,), embeddings="none", queries=10, workers=1))
    assert len(steps) == 1 and steps[0].returncode is not None  # killed and reaped: not left writing the corpus
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("embeddings", "chunks", "expected"),
    [("auto", 10_000, "model"), ("auto", 10_001, "synthetic"), ("none", 5, "none"), ("default", 10**6, "model")],
)
def test_which_vectors_each_size_gets(embeddings, chunks, expected):
    assert BenchPlan(embeddings=embeddings, max_embed=10_000).vectors_for(chunks) == expected


def test_synthetic_queries_point_at_their_own_chunk_and_topics_only(tmp_path):
    """A query is its chunk's vector plus noise independent of the corpus: its 10 nearest chunks share its folder."""
    import numpy as np

    from docs_mcp.eval.synthetic import SyntheticQueries, _topic_vectors

    pages = np.arange(2000) // 9
    folders = np.random.default_rng(3).integers(0, 6, pages.max() + 1)[pages]
    vectors = _topic_vectors(folders, pages, 384, np.random.default_rng(0))  # the fill's stream, as the bench seeds it
    np.save(tmp_path / "vectors.npy", vectors)
    np.save(tmp_path / "vector_starts.npy", np.arange(len(vectors)))
    queries = SyntheticQueries(tmp_path, seed=0)
    for text in (f"query {i}" for i in range(40)):
        nearest = np.argsort(-(vectors @ queries.embed_query(text)))[:10]
        assert (folders[nearest] == folders[nearest[0]]).all()


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="names a descriptor's file through /proc")
def test_the_vector_fill_flushes_what_it_writes_as_a_build_does(tmp_path, monkeypatch):
    """Unflushed, the fill's vectors (3 GB at 1M) were written back while the next bench step timed its searches."""
    import os

    from docs_mcp.eval.synthetic import fill_random_vectors
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.index_file import current_generation

    generate_corpus(tmp_path / "docs", 60, seed=0)
    build_index(tmp_path / "docs", tmp_path / "index", embeddings="none")
    flushed: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(descriptor: int) -> None:
        flushed.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    assert fill_random_vectors(tmp_path / "index") == 60
    serving = tmp_path / "index" / current_generation(tmp_path / "index") / "serving"
    assert {
        str(serving / name) for name in ("vectors.npy", "vector_starts.npy", "vector_chunks.npy", "manifest.json")
    } <= set(flushed)


def test_with_an_approximate_index_the_fill_stores_the_vectors_once_and_queries_read_them_there(tmp_path, monkeypatch):
    """Past ANN_MIN_WINDOWS the fill writes no vectors.npy; a query is the same vector as from a chunk-ordered copy."""
    import numpy as np

    from docs_mcp.eval.synthetic import SyntheticQueries, fill_random_vectors
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.index_file import current_generation
    from docs_mcp.indexer.serving.reader import open_serving_arrays
    from docs_mcp.indexer.serving.vector_index import ANN_MIN_WINDOWS_VARIABLE

    generate_corpus(tmp_path / "docs", 60, seed=0)
    build_index(tmp_path / "docs", tmp_path / "index", embeddings="none")
    monkeypatch.setenv(ANN_MIN_WINDOWS_VARIABLE, "0")
    assert fill_random_vectors(tmp_path / "index") == 60
    generation = tmp_path / "index" / current_generation(tmp_path / "index")
    assert not (generation / "serving" / "vectors.npy").exists()
    vectors = open_serving_arrays(generation).vectors
    (tmp_path / "chunk-ordered").mkdir()
    np.save(tmp_path / "chunk-ordered" / "vectors.npy", vectors.vectors[:])
    np.save(tmp_path / "chunk-ordered" / "vector_starts.npy", vectors.starts)
    through_lists, chunk_ordered = (
        SyntheticQueries(generation / "serving"),
        SyntheticQueries(tmp_path / "chunk-ordered"),
    )
    for text in (f"query {i}" for i in range(20)):
        assert np.array_equal(through_lists.embed_query(text), chunk_ordered.embed_query(text))
