"""The search bench's serving-path figures: throughput through the server's search workers, and their memory.

``docs-mcp bench`` times p50/p95 on the engine in process (one client).  Throughput with
concurrent clients depends on where searches run: threads of one process take turns on the
interpreter lock, search workers (server/search/pool.py) do not.  This step serves the index
the way ``docs-mcp serve`` does with ``--search-workers N`` (a live index whose searches run
in N worker processes, one lease per request) and measures 1 and 4 clients at once, then the
memory of the server process and its workers: RSS counts the pages they share (the mapped
serving arrays, the imported code) once per process; PSS splits shared pages between the
processes that map them (their sum is what the machine really spends); USS is what each holds
alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIENTS = (1, 4)  # concurrent clients whose throughput is compared
_MB = 1024 * 1024


@dataclass(frozen=True)
class Memory:
    """Resident memory of a set of processes in MB, summed over them (zeros where /proc lacks the figure)."""

    rss: float
    pss: float
    uss: float


def throughput(search: Callable[[str], Any], queries: Sequence[str], clients: int) -> float:
    """Queries per second when ``clients`` threads share ``queries`` and call ``search`` at once."""
    with ThreadPoolExecutor(clients) as pool:
        start = time.perf_counter()
        list(pool.map(lambda client: [search(query) for query in queries[client::clients]], range(clients)))
        return len(queries) / (time.perf_counter() - start)


def synthetic_embedder(generation_dir: Path) -> Any:
    """The benchmark's query vectors for a synthetic index (module-level: search workers unpickle it by name)."""
    from docs_mcp.eval.synthetic import SyntheticQueries
    from docs_mcp.indexer.serving.arrays import SERVING_DIR

    return SyntheticQueries(generation_dir / SERVING_DIR)


def measure_pool(index_dir: Path, queries: Sequence[str], mode: str, workers: int, synthetic: bool) -> dict[str, Any]:
    """Serve ``index_dir`` with ``workers`` search workers; q/s of 1 and 4 clients, then memory of server and workers."""
    from docs_mcp.server.core.live_index import LiveIndex
    from docs_mcp.server.search.modes import Mode

    live = LiveIndex(
        index_dir, warm=Mode(mode), workers=workers, worker_embedder=synthetic_embedder if synthetic else None
    )
    try:
        served = live.current()
        pool = served.pool
        assert pool is not None  # workers >= 1
        for query in queries:  # every worker has seen every query, as the in-process engine has when it is timed
            pool.on_each_worker(served.engine.generation, "search", query, None, mode=mode, limit=10)

        def search(query: str) -> None:
            with live.lease() as leased:
                leased.search(query, None, mode=mode, limit=10)

        qps = {f"pool_qps_{clients}": throughput(search, queries, clients) for clients in CLIENTS[:-1]}
        processes = [os.getpid(), *pool.pids]
        before, start = cpu_seconds(processes), time.perf_counter()
        qps[f"pool_qps_{CLIENTS[-1]}"] = throughput(search, queries, CLIENTS[-1])
        # Cores the server and its workers got while the most clients searched: on a shared machine, below
        # the number of workers means the machine had no more to give, whatever the ratio says.
        cores = (cpu_seconds(processes) - before) / (time.perf_counter() - start)
        server, workers_memory = memory_of([os.getpid()]), memory_of(pool.pids)
    finally:
        live.close()
    return {
        "pool_workers": workers,
        **qps,
        "pool_cores_used": cores,
        "server_memory": vars(server),
        "workers_memory": vars(workers_memory),
    }


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds used so far by ``pids``, from /proc/PID/stat (Linux; 0 elsewhere)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime: the 14th and 15th fields, in clock ticks
    return total / os.sysconf("SC_CLK_TCK") if total else 0.0


def memory_of(pids: Sequence[int]) -> Memory:
    """RSS, PSS and USS of ``pids`` summed, from /proc/PID/smaps_rollup (Linux; zeros elsewhere)."""
    totals = {"Rss": 0, "Pss": 0, "Private_Clean": 0, "Private_Dirty": 0}
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, value = line.partition(":")
            if key in totals:
                totals[key] += int(value.split()[0]) * 1024  # kB
    return Memory(totals["Rss"] / _MB, totals["Pss"] / _MB, (totals["Private_Clean"] + totals["Private_Dirty"]) / _MB)
