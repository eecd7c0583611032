"""Search workers: the same answers as searching in process, the model only where it is needed, a
crashed worker costs one request and is replaced, a swap reaches the workers, and no worker
outlives its server (a real `docs-mcp serve` subprocess, killed with SIGKILL).

Every worker start costs a model load in hybrid mode: pools here have one or two workers and
text-only indexes wherever the model plays no part.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_session import serve_over_stdio

from docs_mcp.indexer import build_index
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.errors import SearchPoolClosedError, SearchWorkerCrashedError
from docs_mcp.server.tools.search_docs import search_docs

QUERIES = (
    "how do I filter search results by language",
    "get_doc context neighbours",
    "hybrid ranking bm25 vectors",
    "rate limit",
    "serve over http with api keys",
    "zzqx nothing matches this",
)
DOCS = {"guides/setup.md": "# Setup\n\n## Install\n\nInstall the widget.\n\n## Configure\n\nConfigure the widget.\n"}
MORE_DOCS = {**DOCS, "guides/tuning.md": "# Tuning\n\n## Turbo mode\n\nTurbo mode makes the widget faster.\n"}
PIDS = re.compile(r"search workers started: \d+ processes \(pids ([\d ]+)\)")


def write_docs(folder: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def text_index(tmp_path: Path) -> Path:
    out = tmp_path / "index"
    build_index(write_docs(tmp_path / "docs", DOCS), out, embeddings="none")
    return out


def test_workers_answer_byte_for_byte_what_in_process_search_does(corpus_index: Path) -> None:
    in_process, pooled = LiveIndex(corpus_index, warm=None), LiveIndex(corpus_index, warm="hybrid", workers=1)
    try:
        here, there = in_process.current(), pooled.current()
        assert there.pool is not None and here.pool is None
        [status] = there.pool.on_each_worker(there.engine.generation, "status")
        assert status["model_loaded"] and status["blas_threads"] == "1" and status["pid"] != os.getpid()
        language = next(iter(here.filters.get("language", ())), None)
        compared = 0
        for mode in ("hybrid", "bm25", "vector"):
            for query in QUERIES:
                for filters in ({}, {"language": language} if language else {}):
                    arguments = {"query": query, "limit": 3, **filters}
                    assert search_docs(there, arguments, mode) == search_docs(here, arguments, mode)
                    page = {"mode": mode, "limit": 4, "offset": 3}
                    assert there.search(query, filters, **page) == here.search(
                        query, filters, **page
                    )  # same hits, same float scores
                    compared += 1
        rows = [0, 5, here.engine.size - 1]
        assert there.similarities_at(QUERIES[0], rows) == here.similarities_at(QUERIES[0], rows)
        assert compared == 3 * len(QUERIES) * 2
    finally:
        pooled.close()
        in_process.close()


def test_bm25_workers_never_load_the_model(corpus_index: Path) -> None:
    live = LiveIndex(corpus_index, warm="bm25", workers=1)
    try:
        with live.lease() as served:
            assert served.search("hybrid ranking", mode="bm25").hits
            assert served.pool is not None
            [status] = served.pool.on_each_worker(served.engine.generation, "status")
        assert not status["model_loaded"]
    finally:
        live.close()


def test_a_killed_worker_fails_its_one_request_with_a_clear_error_and_is_replaced(text_index: Path) -> None:
    live = LiveIndex(text_index, warm="bm25", workers=1)
    try:
        served = live.current()
        assert served.pool is not None
        [victim] = served.pool.pids
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(SearchWorkerCrashedError) as crashed:
            served.search("install", mode="bm25")
        assert str(crashed.value).startswith("The search worker answering this request stopped (killed by SIGKILL)")
        assert "Retry the search" in str(crashed.value) and crashed.value.recoverable
        assert served.search("install", mode="bm25").hits[0].chunk_id == "guides/setup.md#setup/install"
        assert victim not in served.pool.pids and len(served.pool.pids) == 1
    finally:
        live.close()


def test_a_swapped_in_generation_is_what_the_workers_search(tmp_path: Path, text_index: Path) -> None:
    live = LiveIndex(text_index, warm="bm25", workers=2)
    try:
        old = live.current().generation
        build_index(write_docs(tmp_path / "docs", MORE_DOCS), text_index, embeddings="none")
        with live.lease() as served:
            assert served.generation != old
            assert served.search("turbo mode", mode="bm25").hits[0].chunk_id == "guides/tuning.md#tuning/turbo-mode"
            assert served.pool is not None
            statuses = served.pool.on_each_worker(served.engine.generation, "status")
        assert {s["generation"] for s in statuses} == {served.engine.generation} and len(statuses) == 2
    finally:
        live.close()


def test_a_closed_pool_refuses_searches_with_a_hint(text_index: Path) -> None:
    live = LiveIndex(text_index, warm="bm25", workers=1)
    served = live.current()
    live.close()
    with pytest.raises(SearchPoolClosedError, match="Retry in a moment"):
        served.search("install", mode="bm25")


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waiting on another process's exit needs pidfd_open (Linux)")
def test_no_worker_outlives_a_killed_server(text_index: Path) -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "serve",
            "--index",
            str(text_index),
            "--mode",
            "bm25",
            "--search-workers",
            "2",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        for line in server.stderr:
            if found := PIDS.search(line):
                workers = [int(pid) for pid in found[1].split()]
                break
        else:
            pytest.fail(f"the server exited ({server.wait()}) without starting its workers")
        fork_server = {_parent_of(pid) for pid in workers}
        assert server.pid not in workers and len(fork_server) == 1  # started by multiprocessing's fork server
        watched = {pid: os.pidfd_open(pid) for pid in [*workers, *fork_server]}
        server.kill()
        server.wait(timeout=30)
        for pid, fd in watched.items():
            readable, _, _ = select.select([fd], [], [], 30)  # a pidfd turns readable when its process exits
            os.close(fd)
            assert readable, f"process {pid} still runs after its server was killed"
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate(timeout=30)


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])  # fields after the command name: state, ppid, ...


def test_over_mcp_a_server_with_workers_answers_as_one_without(corpus_index: Path, tmp_path: Path) -> None:
    calls = [
        *(("search_docs", {"query": query, "limit": 3}) for query in QUERIES),
        ("search_docs", {"query": QUERIES[0], "language": "python"}),
        ("get_docs", {"libraries": ["local/corpus"], "topic": "filter search results by language"}),
    ]
    log = tmp_path / "workers.log"
    with (
        serve_over_stdio(corpus_index, tmp_path / "plain.log") as plain,
        serve_over_stdio(corpus_index, log, "--search-workers", "1") as pooled,
    ):
        for tool, arguments in calls:
            assert pooled.text(tool, arguments) == plain.text(tool, arguments)
        first = pooled.search(query=QUERIES[0], limit=2)
        assert first == plain.search(query=QUERIES[0], limit=2)
        assert pooled.search(query=QUERIES[0], limit=2, cursor=first["next_cursor"]) == plain.search(
            query=QUERIES[0], limit=2, cursor=first["next_cursor"]
        )

        [worker] = (int(pid) for pid in PIDS.search(log.read_text())[1].split())
        os.kill(worker, signal.SIGKILL)
        crashed = pooled.error("search_docs", {"query": QUERIES[0]})
        assert crashed.startswith(
            "The search worker answering this request stopped (killed by SIGKILL) before it answered. Retry"
        )
        assert "Traceback" not in crashed
        assert pooled.text("search_docs", {"query": QUERIES[0]}) == plain.text("search_docs", {"query": QUERIES[0]})
    assert "Traceback" not in log.read_text()
    assert "searching in process" in (tmp_path / "plain.log").read_text()  # stdio's default: no workers
