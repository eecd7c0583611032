"""Benchmarks: index build time, size and peak memory; search latency warm and cold, per mode.

Each build, and the search in each mode, runs in a child process of its own, so peak
memory (``ru_maxrss`` from ``wait4``) belongs to that step alone and "cold" really
means the first query of a process that has just opened the index.  Latency is
measured on the search engine in process (the MCP framing adds a roughly constant
cost that `docs-mcp eval` reports); hybrid includes embedding the query with the real
model.  Throughput of 1 and 4 concurrent clients is measured twice: threads sharing the
engine in one process, and through search workers as ``docs-mcp serve --search-workers``
runs them (``bench_pool``, a step of its own, which also reports their memory).

Embedding 100k chunks with the real model takes about an hour on two cores, so above
``max_embed`` chunks ``auto`` fills the index with random unit vectors instead
("synthetic" in the results), and queries get random vectors too (no model runs): the
storage and search paths are measured at full size (100k and 1M chunks: ``--sizes``),
the embedder is not, the ranking is meaningless, and the build time excludes embedding.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.eval.bench_pool import CLIENTS, measure_pool, throughput
from docs_mcp.eval.harness import answer_or_error, run_child
from docs_mcp.eval.metrics import percentile
from docs_mcp.server.search.blas import usable_cores, use_one_blas_thread

SEARCH_MODES = ("hybrid", "bm25")
# The largest synthetic corpus `--sizes` may ask for: ten times the largest published figure (1,000,000 chunks).
MAX_SYNTHETIC_CHUNKS = 10_000_000
WARMUP_QUERIES = 5
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BenchPlan:
    """What to benchmark: synthetic sizes (or one corpus folder), seed, vectors, queries per mode."""

    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    seed: int = 0
    corpus: Path | None = None
    embeddings: str = "auto"  # auto | default | none | synthetic
    max_embed: int = 10_000
    queries: int = 200
    workers: int = field(
        default_factory=usable_cores
    )  # search workers (as http serve starts by default) for the serving-path throughput

    def vectors_for(self, chunks: int) -> str:
        """``model``, ``synthetic`` or ``none``: how the index of ``chunks`` chunks gets its vectors."""
        if self.embeddings == "auto":
            return "model" if chunks <= self.max_embed else "synthetic"
        return {"default": "model", "none": "none", "synthetic": "synthetic"}[self.embeddings]


@dataclass(frozen=True)
class Latency:
    """Search in one mode, in a fresh process: open time, first query, warm percentiles (ms), throughput, peak RSS."""

    open_ms: float  # open_engine: map the serving arrays
    cold_ms: float  # the first query after opening (pages in what it touches, loads the query model)
    p50: float
    p95: float
    p99: float
    peak_rss_mb: float  # of the whole search process (a server's would be this plus the MCP framing)
    qps_1: float = 0.0  # queries per second, one client, in process
    qps_4: float = 0.0  # queries per second, four clients (threads of one process) at once
    pool_workers: int = 0  # search worker processes of the serving-path figures below
    pool_qps_1: float = 0.0  # queries per second, one client, searches in the workers
    pool_qps_4: float = 0.0  # four clients at once, searches in the workers
    pool_cores_used: float = 0.0  # CPU seconds per second the server and its workers got during the four-client run
    server_memory: dict[str, float] = field(default_factory=dict)  # rss, pss, uss (MB) of the serving process
    workers_memory: dict[str, float] = field(default_factory=dict)  # the same, summed over its workers

    @property
    def first_answer_ms(self) -> float:
        """Open-to-first-answer: what a client waits for its first hit list after the server opens the index."""
        return self.open_ms + self.cold_ms


@dataclass(frozen=True)
class BenchResult:
    """The figures of one corpus."""

    label: str
    files: int
    chunks: int
    vectors: str  # model | synthetic | none
    build_seconds: float
    chunks_per_second: float
    index_bytes: int
    build_peak_rss_mb: float
    vector_fill_seconds: float = 0.0  # synthetic vectors only: writing them into the serving arrays (and the ANN)
    ann: dict[str, Any] | None = None  # the approximate vector index: lists, probes, recall_at_50, build_seconds
    latency: dict[str, Latency] = field(default_factory=dict)


def run_bench(plan: BenchPlan, work_dir: Path | None = None, progress: Progress | None = None) -> list[BenchResult]:
    """Build and measure every corpus of ``plan``; corpora and indexes go under ``work_dir`` (or a temp dir).

    Raises:
        EvalRunError: a child process failed: the error it raised (``plan.corpus`` missing, not a folder, without
            markdown: the message ``docs-mcp index`` gives), else the tail of its stderr.
    """
    targets = [("corpus", 0)] if plan.corpus else [("synthetic", size) for size in plan.sizes]
    with tempfile.TemporaryDirectory(prefix="docs-mcp-bench-") as scratch:
        base = work_dir or Path(scratch)
        results = []
        for done, (kind, size) in enumerate(targets):
            if progress:
                progress(done, len(targets))
            results.append(_bench_one(plan, base, kind, size))
        if progress:
            progress(len(targets), len(targets))
        return results


def _bench_one(plan: BenchPlan, base: Path, kind: str, size: int) -> BenchResult:
    folder = base / (f"synthetic-{size}-seed{plan.seed}" if kind == "synthetic" else "corpus")
    folder.mkdir(parents=True, exist_ok=True)
    job: dict[str, Any] = {
        "kind": kind,
        "size": size,
        "seed": plan.seed,
        "queries": plan.queries,
        "folder": str(folder),
    }
    job["docs"] = str(plan.corpus) if plan.corpus else str(folder / "docs")
    prepared, _ = _child("prepare", job)  # writes the corpus and the query list; counts chunks
    job["vectors"] = plan.vectors_for(prepared["chunks"])
    built, build_rss = _child("build", job)
    filled = _child("fill", job)[0] if job["vectors"] == "synthetic" else {}
    latency = {}
    for mode in SEARCH_MODES if job["vectors"] != "none" else ("bm25",):
        searched, search_rss = _child("search", {**job, "mode": mode})
        pooled, _ = _child("pool", {**job, "mode": mode, "workers": plan.workers})
        latency[mode] = Latency(peak_rss_mb=search_rss, **searched, **pooled)
    return BenchResult(
        label=str(plan.corpus) if plan.corpus else f"{size:,} chunks",
        files=prepared["files"],
        chunks=built["chunks"],
        vectors=job["vectors"],
        build_seconds=built["seconds"],
        chunks_per_second=built["chunks"] / built["seconds"] if built["seconds"] else 0.0,
        index_bytes=filled.get("index_bytes", built["index_bytes"]),
        build_peak_rss_mb=build_rss,
        vector_fill_seconds=filled.get("seconds", 0.0),
        ann=filled.get("ann"),
        latency=latency,
    )


def _child(step: str, job: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Run one step in a fresh Python process; its JSON answer and its peak RSS in MB."""
    folder = Path(job["folder"])
    name = f"{step}-{job['mode']}" if "mode" in job else step
    use_one_blas_thread()  # inherited by the child, which searches as a server does
    result = run_child(
        "docs_mcp.eval.bench",
        [step, json.dumps(job)],
        answer=folder / f"{name}.json",
        log=folder / f"{name}.log",
        what=f"bench step {step!r} for {job['docs']}",
    )
    return result.answer, result.peak_rss_mb


# -- the steps, run inside the child process -----------------------------------------------------


def _step_prepare(job: dict[str, Any]) -> dict[str, Any]:
    docs = Path(job["docs"])
    if job["kind"] == "synthetic":
        from docs_mcp.eval.synthetic import generate_corpus

        shutil.rmtree(docs, ignore_errors=True)  # our own folder under the work dir: start clean
        corpus = generate_corpus(docs, job["size"], seed=job["seed"], queries=job["queries"])
        return {"files": corpus.files, "chunks": corpus.chunks, "queries": list(corpus.queries)}
    return _corpus_queries(docs, job["seed"], job["queries"])


def _corpus_queries(docs: Path, seed: int, n: int) -> dict[str, Any]:
    """Queries for a real corpus: half its headings, half three-word runs of its text."""
    from docs_mcp.indexer import scan_corpus

    scan = scan_corpus(docs)
    rng = random.Random(seed)
    chunks = list(scan.chunks)
    queries = []
    for i in range(n):
        chunk = rng.choice(chunks)
        queries.append(sampled_query(chunk, rng, heading=i % 2 == 0) or chunk.title or chunk.filepath)
    return {"files": len(scan.files), "chunks": len(chunks), "queries": queries}


def sampled_query(chunk: Any, rng: random.Random, *, heading: bool) -> str | None:
    """A query taken from ``chunk`` (a scanned Chunk): its heading when ``heading``, else a three-word run of its
    text; None when it has neither."""
    if heading and chunk.heading:
        return chunk.heading
    words = chunk.text.split()
    if len(words) > 3:
        start = rng.randrange(len(words) - 3)
        return " ".join(words[start : start + 3])
    return None


def _step_build(job: dict[str, Any]) -> dict[str, Any]:
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.index_file import folder_bytes

    out = Path(job["folder"]) / "index"
    # A fresh folder: building over an earlier index would reuse its vectors and time nothing.
    shutil.rmtree(out, ignore_errors=True)
    embeddings = "default" if job["vectors"] == "model" else "none"
    report = build_index(Path(job["docs"]), out, embeddings=embeddings)
    return {"chunks": report.chunks, "seconds": report.seconds, "index_bytes": folder_bytes(out)}


def _step_fill(job: dict[str, Any]) -> dict[str, Any]:
    from docs_mcp.eval.synthetic import fill_random_vectors
    from docs_mcp.indexer.index_file import current_generation, folder_bytes
    from docs_mcp.indexer.serving.arrays import MANIFEST_FILE, SERVING_DIR

    out = Path(job["folder"]) / "index"
    start = time.perf_counter()
    fill_random_vectors(out, seed=job["seed"])
    seconds = time.perf_counter() - start
    manifest = out / current_generation(out) / SERVING_DIR / MANIFEST_FILE
    return {"seconds": seconds, "index_bytes": folder_bytes(out), "ann": json.loads(manifest.read_text())["ann"]}


def _step_search(job: dict[str, Any]) -> dict[str, Any]:
    from docs_mcp.server.search.engine import open_engine

    folder = Path(job["folder"])
    queries = json.loads((folder / "prepare.json").read_text())["queries"]
    mode = job["mode"]
    start = time.perf_counter()
    engine = open_engine(
        folder / "index", embedder=_synthetic_queries(folder / "index") if job["vectors"] == "synthetic" else None
    )
    open_ms = (time.perf_counter() - start) * 1000
    cold_ms = _time(engine, queries[0], mode)
    for query in queries[:WARMUP_QUERIES]:
        _time(engine, query, mode)
    warm = [_time(engine, query, mode, filtered=i % 4 == 3) for i, query in enumerate(queries)]
    qps = {
        f"qps_{clients}": throughput(lambda query: _time(engine, query, mode), queries, clients) for clients in CLIENTS
    }
    engine.close()
    return {
        "open_ms": open_ms,
        "cold_ms": cold_ms,
        "p50": percentile(warm, 50),
        "p95": percentile(warm, 95),
        "p99": percentile(warm, 99),
        **qps,
    }


def _synthetic_queries(index_dir: Path) -> Any:
    from docs_mcp.eval.bench_pool import synthetic_embedder
    from docs_mcp.indexer.index_file import current_generation

    return synthetic_embedder(index_dir / current_generation(index_dir))


def _step_pool(job: dict[str, Any]) -> dict[str, Any]:
    folder = Path(job["folder"])
    queries = json.loads((folder / "prepare.json").read_text())["queries"]
    return measure_pool(folder / "index", queries, job["mode"], job["workers"], synthetic=job["vectors"] == "synthetic")


def _time(engine: Any, query: str, mode: str, filtered: bool = False) -> float:
    filters = {"language": "python"} if filtered and "language" in engine.metadata.get("taxonomy", {}) else None
    start = time.perf_counter()
    engine.search(query, filters, mode=mode, limit=10)
    return (time.perf_counter() - start) * 1000


_STEPS = {
    "prepare": _step_prepare,
    "build": _step_build,
    "fill": _step_fill,
    "search": _step_search,
    "pool": _step_pool,
}


def _main(argv: Sequence[str]) -> int:
    step, job = argv[0], json.loads(argv[1])
    name = f"{step}-{job['mode']}" if "mode" in job else step
    return answer_or_error(Path(job["folder"]) / f"{name}.json", lambda: _STEPS[step](job))


# -- rendering -------------------------------------------------------------------------------------


def render_bench(results: Sequence[BenchResult]) -> str:
    """Three tables: the build of each corpus, search latency per corpus and mode, then throughput and serving memory."""
    build = [["corpus", "files", "chunks", "vectors", "build s", "chunks/s", "index MB", "build RSS MB"]]
    for r in results:
        build.append(
            [
                r.label,
                str(r.files),
                str(r.chunks),
                r.vectors,
                f"{r.build_seconds:.1f}",
                f"{r.chunks_per_second:,.0f}",
                f"{r.index_bytes / 1e6:.1f}",
                f"{r.build_peak_rss_mb:.0f}",
            ]
        )
    search = [["corpus", "mode", "open ms", "1st answer ms", "p50 ms", "p95 ms", "p99 ms", "RSS MB"]]
    for r in results:
        for mode, lat in r.latency.items():
            search.append(
                [
                    r.label,
                    mode,
                    f"{lat.open_ms:.0f}",
                    f"{lat.first_answer_ms:.0f}",
                    f"{lat.p50:.1f}",
                    f"{lat.p95:.1f}",
                    f"{lat.p99:.1f}",
                    f"{lat.peak_rss_mb:.0f}",
                ]
            )
    serving = [
        [
            "corpus",
            "mode",
            "threads q/s 1",
            "q/s 4",
            "4 vs 1",
            "workers",
            "q/s 1",
            "q/s 4",
            "4 vs 1",
            "cores",
            "RSS MB",
            "PSS MB",
            "USS MB/worker",
        ]
    ]
    for r in results:
        for mode, lat in r.latency.items():
            workers = lat.workers_memory.get("uss", 0.0) / lat.pool_workers if lat.pool_workers else 0.0
            serving.append(
                [
                    r.label,
                    mode,
                    f"{lat.qps_1:.0f}",
                    f"{lat.qps_4:.0f}",
                    _ratio(lat.qps_4, lat.qps_1),
                    str(lat.pool_workers),
                    f"{lat.pool_qps_1:.0f}",
                    f"{lat.pool_qps_4:.0f}",
                    _ratio(lat.pool_qps_4, lat.pool_qps_1),
                    f"{lat.pool_cores_used:.2f}",
                    f"{_total(lat, 'rss'):.0f}",
                    f"{_total(lat, 'pss'):.0f}",
                    f"{workers:.0f}",
                ]
            )
    notes = [
        f"{r.label}: approximate vector index of {r.ann['lists']} lists built in {r.ann['build_seconds']:.1f} s; a query probes up to "
        f"{r.ann['probes']} (those within {r.ann.get('margin', 2.0):.3f} of its nearest), recall@50 against exact search {r.ann['recall_at_50']:.3f}."
        for r in results
        if r.ann
    ]
    if any(r.vectors == "synthetic" for r in results):
        notes.append(
            "vectors=synthetic: random unit vectors clustered by folder and page, written into the serving arrays after a full-text "
            "build; queries get random vectors near a chunk's, no model runs (storage and search paths only; build s and "
            "build RSS exclude the vectors, index MB includes them)."
        )
    notes.append(
        "Each mode searches in a fresh process: 1st answer = open + its first query; p50/p95/p99 = warm queries, one client "
        "(the engine in process); RSS = the process's peak."
    )
    notes.append(
        "Throughput: 1 and 4 clients sharing the queries, first as threads of one process searching in process (they take "
        "turns on the interpreter lock), then through search workers as `docs-mcp serve --search-workers N` runs them "
        "(a fresh serving process; each request leases the live index and searches in a worker); cores = CPU the serving "
        "process and its workers got during the 4-client run (below the number of workers: the machine had no more "
        "cores free, and the ratio shows that, not the server). RSS/PSS = the serving "
        "process plus its workers after the run (RSS counts shared pages once per process, PSS splits them); "
        "USS/worker = memory a worker holds alone, the cost of one more."
    )
    tables = [
        _table(build, text_columns=(0, 3)),
        _table(search, text_columns=(0, 1)),
        _table(serving, text_columns=(0, 1)),
    ]
    return "\n\n".join([*tables, *notes]) + "\n"


def _ratio(many: float, one: float) -> str:
    return f"{many / one if one else 0:.2f}x"


def _total(lat: Latency, key: str) -> float:
    return lat.server_memory.get(key, 0.0) + lat.workers_memory.get(key, 0.0)


def _table(rows: Sequence[Sequence[str]], text_columns: tuple[int, ...]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) if i in text_columns else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    )


def write_bench_json(plan: BenchPlan, results: Sequence[BenchResult], path: Path) -> None:
    """Write the plan and the figures as JSON, for comparison between runs."""
    plan_dict = {**asdict(plan), "corpus": str(plan.corpus) if plan.corpus else None}
    data = {
        "version": 1,
        "plan": plan_dict,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "results": [asdict(r) for r in results],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
