"""Sizing figures for the fleet guide: memory per chunk and queries per second on one core, per index and mode.

Each measurement runs in a child process pinned to one core: it opens the index's live
generation as a replica does (LiveIndex, warmed for the mode), runs QUERIES searches one after
another (the dev sets' queries, cycled), and reports queries/s and its resident memory (VmRSS,
VmHWM). Run on a quiet machine; say what else ran (uptime's load) beside the figures.

    python scripts/fleet_sizing.py /work/devidx/bundled /work/devidx/fastapi /work/devidx/powershell75
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

QUERIES = 300
DEVSETS = Path(__file__).resolve().parents[1] / "eval" / "devsets"


def child(index: str, mode: str) -> dict[str, object]:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    from docs_mcp.server.core.live_index import LiveIndex

    queries = [
        json.loads(line)["query"]
        for path in sorted(DEVSETS.glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    live = LiveIndex(Path(index), warm=mode)
    try:
        with live.lease() as served:
            served.warm(mode)
            for query in queries[:20]:  # first touches: page in what queries read
                served.search(query, None, mode=mode, limit=10)
            began = time.perf_counter()
            for query in itertools.islice(itertools.cycle(queries), QUERIES):
                served.search(query, None, mode=mode, limit=10)
            seconds = time.perf_counter() - began
            chunks = served.engine.size
            generation = Path(index) / served.generation
    finally:
        live.close()
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    kib = {key: int(status[key].split()[0]) for key in ("VmRSS", "VmHWM")}
    disk = sum(p.stat().st_size for p in generation.rglob("*") if p.is_file())
    return {
        "index": Path(index).name,
        "mode": mode,
        "chunks": chunks,
        "generation_mb": round(disk / 2**20, 1),
        "queries_per_second_one_core": round(QUERIES / seconds, 1),
        "rss_mb": round(kib["VmRSS"] / 1024, 1),
        "peak_rss_mb": round(kib["VmHWM"] / 1024, 1),
    }


def main(indexes: list[str]) -> None:
    print(f"load average before: {os.getloadavg()}", file=sys.stderr)
    for index in indexes:
        for mode in ("bm25", "hybrid"):
            done = subprocess.run(
                [sys.executable, __file__, "--child", index, mode], capture_output=True, text=True, check=True
            )
            print(done.stdout.strip(), flush=True)
    print(f"load average after: {os.getloadavg()}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(sys.argv[2], sys.argv[3])))
    else:
        main(sys.argv[1:])
