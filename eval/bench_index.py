"""Build benchmark: index a corpus in child processes and report throughput, peak memory and size.

Each build runs in its own process so its peak RSS is its own (``os.wait4`` returns the
child's resource usage). Runs: full text only, with embeddings, and the same again
(incremental: nothing to embed), each timed by the build itself: when each generation went
live (time to first search, time to hybrid) and the embedding throughput in windows/s. Each run also
records its CPU time and the load average before and after it: on a machine shared with other work,
figures of two runs compare only at a like load (the issue's builds were quoted from 44 windows/s idle
to a tenth of that under load).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docs_mcp.eval.harness import answer_or_error, run_child

if TYPE_CHECKING:  # the build (duckdb, the model) is imported only in the child process
    from docs_mcp.indexer.generation import Progress

# (label, --embeddings value, build into the previous run's folder?)
RUNS = (
    ("full text only", "none", False),
    ("with embeddings", "default", False),
    ("re-index, unchanged", "default", True),
)


@dataclass(frozen=True)
class BuildRun:
    """One timed build of the benchmark."""

    label: str
    embeddings: str
    files: int
    chunks: int
    embedded: int
    reused: int
    seconds: float
    chunks_per_second: float
    peak_rss_bytes: int
    index_bytes: int
    stage_seconds: Mapping[str, float]  # scan, full-text, embed, publish, ... (from progress events)
    windows_per_second: float | None  # embedding throughput; None when nothing was embedded
    live_after: Mapping[str, float]  # "full-text", "hybrid" -> seconds from the start until it was live
    cpu_seconds: float  # user and system time of the build's process
    load_average: tuple[float, float] | None  # the machine's 1-minute load average before and after; None: unknown


@dataclass(frozen=True)
class IndexBench:
    """Every run of one benchmark over ``docs_dir``."""

    docs_dir: str
    runs: tuple[BuildRun, ...]

    def as_json(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return asdict(self)


def bench_index(docs_dir: Path, *, work_dir: Path | None = None) -> IndexBench:
    """Build ``docs_dir`` once per entry of RUNS, each in a fresh process, into temporary folders.

    Raises:
        EvalRunError: a build failed (the tail of its error output is in the message).
    """
    with tempfile.TemporaryDirectory(prefix="docs-mcp-bench-", dir=work_dir) as scratch:
        runs = []
        out = Path(scratch) / "index-0"
        for number, (label, embeddings, reuse) in enumerate(RUNS):
            out = out if reuse else Path(scratch) / f"index-{number}"
            runs.append(timed_build(label, Path(docs_dir), out, embeddings, Path(scratch)))
    return IndexBench(str(docs_dir), tuple(runs))


def timed_build(label: str, docs_dir: Path, out: Path, embeddings: str, scratch: Path) -> BuildRun:
    result = scratch / "report.json"
    load_before = _load_average()
    child = run_child(
        "docs_mcp.eval.bench_index",
        [str(docs_dir), str(out), embeddings, str(result)],
        answer=result,
        log=scratch / "stderr.txt",
        what=f"The benchmark build ({label}) of {docs_dir}",
    )
    report, peak = child.answer, child.peak_rss_bytes
    load_after = _load_average()
    return BuildRun(
        label=label,
        embeddings=embeddings,
        files=report["files"],
        chunks=report["chunks"],
        embedded=report["embedded"],
        reused=report["reused_embeddings"],
        seconds=round(report["seconds"], 3),
        chunks_per_second=round(report["chunks"] / max(report["seconds"], 1e-9), 1),
        peak_rss_bytes=peak,
        index_bytes=report["index_bytes"],
        stage_seconds=report["stage_seconds"],
        windows_per_second=None if report["windows_per_second"] is None else round(report["windows_per_second"], 2),
        live_after={label: round(seconds, 3) for label, seconds in report["live_after"].items()},
        cpu_seconds=round(child.cpu_seconds, 2),
        load_average=None if load_before is None or load_after is None else (load_before, load_after),
    )


def _load_average() -> float | None:
    """The 1-minute load average (None where the system does not say)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


class _StageClock:
    """Seconds spent in each build stage: a stage lasts until the next one starts."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stage = ""
        self._since = time.perf_counter()

    def __call__(self, step: Progress) -> None:
        stage = "scan" if step.stage == "pages" else step.stage  # pages read: the scan's own progress
        if stage != self._stage:
            self.stop()
            self._stage = stage

    def stop(self) -> None:
        now = time.perf_counter()
        if self._stage:
            self.seconds[self._stage] = round(self.seconds.get(self._stage, 0.0) + now - self._since, 3)
        self._since = now


def _child(docs_dir: str, out: str, embeddings: str) -> dict[str, object]:
    from docs_mcp.indexer.sources.folder import build_index

    clock = _StageClock()
    report = build_index(Path(docs_dir), Path(out), embeddings=embeddings, progress=clock)
    clock.stop()
    return {
        **asdict(report),
        "problems": len(report.problems),
        "stage_seconds": clock.seconds,
        "windows_per_second": report.windows_per_second,
    }


if __name__ == "__main__":
    sys.exit(answer_or_error(Path(sys.argv[4]), lambda: _child(*sys.argv[1:4])))
