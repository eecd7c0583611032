"""`docs-mcp bench-serve`: our server the way an agent meets it, side by side with the reference server.

An agent spawns a stdio server, lists its tools and searches; it waits for the start, for every
search, and (once) for the build.  This benchmark measures those over MCP stdio, for our server
in hybrid and in full-text-only (bm25) mode and, when a built checkout of the reference server
is given, for the reference in its full-text mode, on one corpus:

- spawn to the first answered ``search_docs`` (initialize, tools/list, one search), cold, several
  times, servers taking turns;
- warm ``search_docs`` latency: every server alive at once, each query asked of every server back
  to back in a rotating order, so a change of the machine's load hits all of them alike;
- whether a fresh server's first answer is identical to a warm server's for the same query;
- peak resident memory of each warm server over its whole life (``wait4``) and its CPU per search;
- the builds: ours until full-text and hybrid search were live, the reference's whole build.

``--load N`` runs N spinning processes during the measurements (cpu_load.py); the load average is
recorded before and after each phase, with the machine and the date.
"""

from __future__ import annotations

import os
import platform
import random
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docs_mcp.environment import environment
from docs_mcp.eval.bench import sampled_query
from docs_mcp.eval.bench_index import BuildRun, timed_build
from docs_mcp.eval.cpu_load import CpuLoad, load_average
from docs_mcp.eval.errors import EvalRunError
from docs_mcp.eval.metrics import percentile
from docs_mcp.eval.stdio_client import StdioServer
from docs_mcp.indexer.models.query_graph import FLOAT32, query_precision

WARMUP_QUERIES = 10
REFERENCE_SERVER = Path("packages/server/dist/bin.js")
REFERENCE_CLI = Path("packages/cli/dist/index.js")
OURS_HYBRID = "docs-mcp hybrid"
OURS_BM25 = "docs-mcp bm25"
REFERENCE = "reference full-text"
Progress = Callable[[str], None]


@dataclass(frozen=True)
class ServePlan:
    """What to compare: a corpus, its indexes (built here when not given), how many queries, starts and hogs."""

    docs: Path
    index: Path | None = None  # ours, built from ``docs`` when None
    reference: Path | None = None  # a built checkout of the reference server; None: ours only
    reference_index: Path | None = None  # the reference's index of ``docs``, built with its CLI when None
    golden: Path | None = None  # queries are taken from here first, then sampled from the corpus
    queries: int = 200
    starts: int = 5
    load: int = 0
    node: str = "node"
    seed: int = 0


@dataclass(frozen=True)
class ServerFigures:
    """One server's figures: cold starts (s), warm search latency (ms), memory (MiB), CPU per search (ms)."""

    label: str
    start_p50_s: float
    starts_s: tuple[float, ...]
    # CPU time of the process from spawn to its first answered search: what a start costs, which the machine's load
    # moves much less than the wall clock.
    start_cpu_p50_s: float
    search_p50_ms: float
    search_p95_ms: float
    peak_rss_mb: float
    cpu_ms_per_search: float
    first_answer_identical: bool  # a fresh server's first answer equals a warm one's for the same query


@dataclass(frozen=True)
class BuildFigures:
    """A build: its whole time, and when each kind of search went live (ours; the reference's is the whole build)."""

    label: str
    seconds: float
    live_after: dict[str, float]
    peak_rss_mb: float
    windows_per_second: float | None = None


@dataclass(frozen=True)
class ServeBench:
    """Every figure of one run, with where and when it was measured."""

    corpus: str
    date: str
    machine: str
    hogs: int
    load: dict[str, float]  # one-minute load average at each phase's start and end
    queries: int
    servers: tuple[ServerFigures, ...]
    builds: tuple[BuildFigures, ...] = field(default_factory=tuple)
    query_precision: str = FLOAT32  # how our servers' default model embedded queries (DOCS_MCP_QUERY_PRECISION)

    def server(self, label: str) -> ServerFigures | None:
        return next((figures for figures in self.servers if figures.label == label), None)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def run_serve_bench(plan: ServePlan, work_dir: Path | None = None, progress: Progress | None = None) -> ServeBench:
    """Build what is missing, then time every server of ``plan`` as described in the module docstring.

    Raises:
        EvalRunError: a build or a server failed (its stderr quoted), or ``plan.reference`` is not a built checkout.
        ModelLoadError: DOCS_MCP_QUERY_PRECISION, which our servers inherit, holds no query precision.
    """
    say = progress or (lambda _: None)
    precision = query_precision()
    if plan.reference is not None:
        _check_reference(plan.reference)
    with tempfile.TemporaryDirectory(prefix="docs-mcp-bench-serve-") as scratch:
        work = work_dir or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        builds = []
        index = plan.index
        if index is None:
            say("building our index")
            index = work / "index"
            builds.append(_our_build(timed_build("with embeddings", plan.docs, index, "default", work)))
        reference_index = plan.reference_index
        if plan.reference is not None and reference_index is None:
            say("building the reference's index")
            reference_index = work / "reference-index"
            builds.append(_reference_build(plan, reference_index, work))
        servers = _servers(plan, index, reference_index)
        queries = corpus_queries(plan.docs, plan.golden, plan.queries + WARMUP_QUERIES, plan.seed)
        loads: dict[str, float] = {}
        with CpuLoad(plan.load):
            if plan.load:
                time.sleep(5)  # let the hogs lift the load average before the first figure
            loads["start"] = load_average()
            say("cold starts")
            starts, start_cpu, first_answers = _cold_starts(servers, queries[WARMUP_QUERIES], plan.starts, work)
            loads["after starts"] = load_average()
            say("warm searches")
            warm = _warm_searches(servers, queries, work)
            loads["end"] = load_average()
    figures = tuple(
        ServerFigures(
            label=label,
            start_p50_s=percentile(starts[label], 50),
            starts_s=tuple(round(s, 4) for s in starts[label]),
            start_cpu_p50_s=percentile(start_cpu[label], 50),
            search_p50_ms=percentile(warm[label].latencies, 50),
            search_p95_ms=percentile(warm[label].latencies, 95),
            peak_rss_mb=warm[label].peak_rss_mb,
            cpu_ms_per_search=warm[label].cpu_ms_per_search,
            first_answer_identical=all(answer == warm[label].first_answer for answer in first_answers[label]),
        )
        for label in servers
    )
    return ServeBench(
        str(plan.docs),
        _now(),
        machine(),
        plan.load,
        loads,
        len(queries) - WARMUP_QUERIES,
        figures,
        tuple(builds),
        precision,
    )


def corpus_queries(docs: Path, golden: Path | None, count: int, seed: int) -> list[str]:
    """``count`` distinct queries: the golden file's first, then the corpus' headings and three-word runs of its text.

    Distinct, because a server may remember a query it has seen (ours keeps recent query embeddings).
    """
    from docs_mcp.indexer import scan_corpus

    queries: list[str] = []
    if golden is not None:
        from docs_mcp.eval.golden import load_golden

        queries = [query.query for query in load_golden(golden)]
    chunks = list(scan_corpus(docs).chunks)
    rng = random.Random(seed)
    for attempt in range(count * 20):
        if len(dict.fromkeys(queries)) >= count or not chunks:
            break
        query = sampled_query(rng.choice(chunks), rng, heading=attempt % 2 == 0)
        if query:
            queries.append(query)
    distinct = list(dict.fromkeys(query.strip() for query in queries if query.strip()))
    if len(distinct) < WARMUP_QUERIES + 1:
        raise EvalRunError(
            f"{docs} gives only {len(distinct)} distinct queries.",
            "Benchmark a larger corpus, or pass --golden with more queries.",
        )
    return distinct[:count]


# -- servers -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Server:
    argv: tuple[str, ...]
    cwd: Path | None = None
    env: dict[str, str] | None = None  # None: this process's environment


@dataclass(frozen=True)
class _Warm:
    latencies: list[float]
    peak_rss_mb: float
    cpu_ms_per_search: float
    first_answer: Any


def _servers(plan: ServePlan, index: Path, reference_index: Path | None) -> dict[str, _Server]:
    ours, env = our_server_command(), our_server_environment()
    servers = {
        OURS_HYBRID: _Server((*ours, "serve", "--index", str(index), "--mode", "hybrid"), env=env),
        OURS_BM25: _Server((*ours, "serve", "--index", str(index), "--mode", "bm25"), env=env),
    }
    if plan.reference is not None and reference_index is not None:
        server = plan.reference / REFERENCE_SERVER
        servers[REFERENCE] = _Server(
            (plan.node, str(server), "--index-dir", str(reference_index), "--transport", "stdio"), plan.reference
        )
    return servers


def our_server_command() -> tuple[str, ...]:
    """How a user starts docs-mcp: the console script beside this interpreter, else ``python -m docs_mcp``."""
    import sys

    script = Path(sys.executable).parent / "docs-mcp"
    return (str(script),) if script.exists() else (sys.executable, "-m", "docs_mcp")


def our_server_environment() -> dict[str, str]:
    """This process's environment, but our servers may write Python's bytecode cache, as an installed one has it.

    With PYTHONDONTWRITEBYTECODE set (as on shared development machines), a clone whose cache was never written
    compiles its 160-odd modules from source at every start: 0.2 CPU-s more from spawn to the first answer.
    """
    return {name: value for name, value in environment().items() if name != "PYTHONDONTWRITEBYTECODE"}


def _cold_starts(
    servers: dict[str, _Server], query: str, rounds: int, work: Path
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[Any]]]:
    """Spawn to the first answered search (seconds, and the process's CPU seconds), ``rounds`` times per server,
    servers taking turns."""
    seconds: dict[str, list[float]] = {label: [] for label in servers}
    cpu: dict[str, list[float]] = {label: [] for label in servers}
    answers: dict[str, list[Any]] = {label: [] for label in servers}
    labels = list(servers)
    for round_number in range(rounds):
        for label in _rotated(labels, round_number):
            server = _start(servers[label], work / f"start-{_slug(label)}.log")
            try:
                server.initialize()
                server.request("tools/list", {})
                answer = server.call_tool("search_docs", {"query": query})
                seconds[label].append(time.perf_counter() - server.started)
                cpu[label].append(_cpu_seconds(server.pid))
                _check_answer(label, query, answer)
            except BaseException:
                server.kill()
                raise
            server.close()
            answers[label].append(_comparable(answer))
    return seconds, cpu, answers


def _warm_searches(servers: dict[str, _Server], queries: Sequence[str], work: Path) -> dict[str, _Warm]:
    """Every server alive at once; each timed query asked of each server back to back, in a rotating order."""
    running: dict[str, StdioServer] = {}
    try:
        for label, command in servers.items():
            running[label] = _start(command, work / f"warm-{_slug(label)}.log")
            running[label].initialize()
            running[label].request("tools/list", {})
            for query in queries[:WARMUP_QUERIES]:
                _check_answer(label, query, running[label].call_tool("search_docs", {"query": query}))
        timed = queries[WARMUP_QUERIES:]
        latencies: dict[str, list[float]] = {label: [] for label in servers}
        first: dict[str, Any] = {}
        cpu_before = {label: _cpu_seconds(server.pid) for label, server in running.items()}
        for number, query in enumerate(timed):
            for label in _rotated(list(servers), number):
                start = time.perf_counter()
                answer = running[label].call_tool("search_docs", {"query": query})
                latencies[label].append((time.perf_counter() - start) * 1000)
                _check_answer(label, query, answer)
                if number == 0:
                    first[label] = _comparable(answer)
        cpu = {label: _cpu_seconds(server.pid) - cpu_before[label] for label, server in running.items()}
    except BaseException:
        for server in running.values():
            server.kill()
        raise
    exited = {label: server.close() for label, server in running.items()}
    return {
        label: _Warm(latencies[label], exited[label].peak_rss_mb, cpu[label] * 1000 / max(len(timed), 1), first[label])
        for label in servers
    }


def _check_answer(label: str, query: str, answer: dict[str, Any]) -> None:
    """A search answered with a tool error is not a search: timing it would report a fast failure as a fast answer."""
    if answer.get("isError"):
        content = answer.get("content") or [{}]
        said = str(content[0].get("text", "")) if isinstance(content[0], dict) else ""
        raise EvalRunError(
            f"{label} answered the search {query!r} with an error: {said[:300]}",
            "Check that the server can search this index (its log is in --work-dir), then run the benchmark again.",
        )


def _start(server: _Server, log: Path) -> StdioServer:
    return StdioServer(server.argv, log=log, cwd=server.cwd, env=server.env)


def _comparable(answer: dict[str, Any]) -> Any:
    """What a search answered (its content and structured content), without transport details."""
    return {
        "content": answer.get("content"),
        "structured": answer.get("structuredContent"),
        "error": answer.get("isError", False),
    }


def _rotated(items: Sequence[str], by: int) -> list[str]:
    shift = by % len(items)
    return [*items[shift:], *items[:shift]]


def _slug(label: str) -> str:
    return label.replace(" ", "-")


def _cpu_seconds(pid: int) -> float:
    from docs_mcp.eval.bench_pool import cpu_seconds

    return cpu_seconds([pid])


# -- builds ------------------------------------------------------------------------------------------


def _our_build(run: BuildRun) -> BuildFigures:
    return BuildFigures(
        "docs-mcp index", run.seconds, dict(run.live_after), run.peak_rss_bytes / (1024 * 1024), run.windows_per_second
    )


def _reference_build(plan: ServePlan, out: Path, work: Path) -> BuildFigures:
    """The reference's whole build with its CLI (full text: embedding provider ``none``), timed from spawn to exit."""
    assert plan.reference is not None
    log = work / "reference-build.log"
    argv = [plan.node, str(plan.reference / REFERENCE_CLI), "build", "--docs-dir", str(plan.docs), "--out", str(out)]
    with log.open("wb") as errlog:
        start = time.perf_counter()
        try:
            process = subprocess.Popen(argv, cwd=plan.reference, stdin=subprocess.DEVNULL, stdout=errlog, stderr=errlog)
        except OSError as error:
            raise EvalRunError(
                f"Cannot run {plan.node}: {error.strerror or error}.", "Pass --node with the path of Node.js."
            ) from error
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
    if process.returncode != 0:
        tail = log.read_text(errors="replace").strip()[-2000:]
        raise EvalRunError(f"The reference server's build of {plan.docs} failed:\n{tail}", f"See {log}.")
    return BuildFigures("reference build", round(seconds, 3), {"full-text": round(seconds, 3)}, usage.ru_maxrss / 1024)


def _check_reference(reference: Path) -> None:
    missing = [str(reference / path) for path in (REFERENCE_SERVER, REFERENCE_CLI) if not (reference / path).is_file()]
    if missing:
        raise EvalRunError(
            f"{reference} is not a built checkout of the reference server: {', '.join(missing)} missing.",
            "Build it first (pnpm install && pnpm build in the checkout); see the benchmarks page of the guide.",
        )


# -- rendering ---------------------------------------------------------------------------------------


def machine() -> str:
    """The CPU model, its cores and the memory, as one line."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        memory = f", {kib / (1024 * 1024):.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{model}, {os.cpu_count()} cores{memory}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def render_serve_bench(bench: ServeBench) -> str:
    """The servers' figures as a table (ratios against the reference's full-text mode when it ran), then the builds."""
    reference = bench.server(REFERENCE)
    rows = [
        [
            "server",
            "spawn to 1st search s",
            "vs ref",
            "its CPU s",
            "vs ref",
            "search p50 ms",
            "vs ref",
            "p95 ms",
            "peak RSS MiB",
            "vs ref",
            "CPU ms/search",
            "1st = warm",
        ]
    ]
    for s in bench.servers:
        rows.append(
            [
                s.label,
                f"{s.start_p50_s:.3f}",
                _vs(s.start_p50_s, reference.start_p50_s if reference else None),
                f"{s.start_cpu_p50_s:.3f}",
                _vs(s.start_cpu_p50_s, reference.start_cpu_p50_s if reference else None),
                f"{s.search_p50_ms:.2f}",
                _vs(s.search_p50_ms, reference.search_p50_ms if reference else None),
                f"{s.search_p95_ms:.2f}",
                f"{s.peak_rss_mb:.0f}",
                _vs(s.peak_rss_mb, reference.peak_rss_mb if reference else None),
                f"{s.cpu_ms_per_search:.2f}",
                "yes" if s.first_answer_identical else "no",
            ]
        )
    lines = [
        f"{bench.corpus}: {bench.queries} distinct queries over MCP stdio; {bench.date}; {bench.machine}"
        + ("" if bench.query_precision == FLOAT32 else f"; queries {bench.query_precision}"),
        "load average "
        + ", ".join(f"{phase} {value:.1f}" for phase, value in bench.load.items())
        + (f" (with {bench.hogs} spinning processes)" if bench.hogs else ""),
        "",
        _table(rows),
    ]
    if bench.builds:
        whole = next((b.seconds for b in bench.builds if b.label == "reference build"), None)
        lines.append("")
        for build in bench.builds:
            live = ", ".join(
                f"{kind} after {seconds:.1f} s"
                + (
                    f" ({seconds / whole:.2f}x the reference's build)"
                    if whole and build.label != "reference build"
                    else ""
                )
                for kind, seconds in build.live_after.items()
            )
            rate = f", {build.windows_per_second:.1f} windows/s" if build.windows_per_second else ""
            lines.append(f"{build.label}: {build.seconds:.1f} s, peak RSS {build.peak_rss_mb:.0f} MiB{rate}; {live}")
    return "\n".join(lines) + "\n"


def _vs(value: float, reference: float | None) -> str:
    return f"{value / reference:.2f}x" if reference else "-"


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    )
