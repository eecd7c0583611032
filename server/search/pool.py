"""Search worker processes: concurrent searches run on every core instead of taking turns on one interpreter lock.

A search spends about a third of its time in small Python steps that hold the interpreter
lock (py-spy), so threads of one process cap near 1.4x the throughput of one client on two
cores, however many clients there are.  Worker processes do not share that lock.  They share
the data instead: every worker maps the same serving arrays (indexer/serving/arrays.py), so
the OS keeps one copy of those pages, and only the query and the page of hits cross the pipe.
What a worker costs is its own interpreter, its engine's caches and, for hybrid ranking, its
own copy of the query model.

Each request names the generation the server serves it from (its lease), so a worker never
answers from another index than its caller's.  A worker that dies (killed, out of memory)
fails the one request it was answering with ``SearchWorkerCrashedError`` and is replaced at
once; the others go on.  Workers are started by multiprocessing's fork server (a clean
single-threaded process that has imported the engine once), never forked from the server's
threads, and end when their pipe closes: at ``close()``, or when the server dies.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any

from docs_mcp.server.errors import SearchPoolClosedError, SearchWorkerCrashedError
from docs_mcp.server.search import worker_process
from docs_mcp.server.search.blas import use_one_blas_thread
from docs_mcp.server.search.records import SearchPage
from docs_mcp.server.search.worker_process import Request, WorkerSetup

logger = logging.getLogger(__name__)

STOP_SECONDS = 10.0  # a worker not gone this long after its pipe closed is killed


class RemoteTraceback(Exception):
    """The worker's traceback of an error raised there, chained as the cause of the error raised here."""


@dataclass(frozen=True)
class _Worker:
    process: BaseProcess
    conn: Connection


class SearchPool:
    """``size`` worker processes searching the index of ``setup``; safe to call from many threads."""

    def __init__(self, size: int, setup: WorkerSetup, generation: str) -> None:
        """Start the workers on ``generation`` (each warms it, as ``setup.warm`` says, without blocking this call).

        Raises:
            ValueError: ``size`` is below 1.
        """
        if size < 1:
            raise ValueError("a search pool needs at least one worker")
        use_one_blas_thread()  # before the fork server starts: its workers inherit the environment
        self.size = size
        self._setup = setup
        self._generation = generation  # what a replacement worker opens: the latest generation asked for
        self._context = _context()
        self._changed = threading.Condition()  # guards _idle, _workers, _closed
        self._idle: list[_Worker] = []
        self._workers: list[_Worker] = []
        self._closed = False
        for _ in range(size):
            self._add_worker()
        # Workers ignore SIGTERM, which is how multiprocessing ends daemon children at exit: a server
        # leaving without close() (a start-up check failed) must close their pipes, or its exit waits forever.
        atexit.register(self.close)
        logger.info("search workers started: %d processes (pids %s)", size, " ".join(str(p) for p in self.pids))

    @property
    def pids(self) -> list[int]:
        with self._changed:
            return [w.process.pid for w in self._workers if w.process.pid is not None]

    def search(
        self, generation: str, query: str, filters: Mapping[str, str] | None = None, **options: Any
    ) -> SearchPage:
        """``Engine.search`` of ``generation`` in a worker; ``options`` pass through as they are."""
        return self.call(generation, "search", query, filters, **options)

    def call(self, generation: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        """Run one of ``worker_process.OPERATIONS`` on ``generation`` in the first idle worker, and return its value.

        Raises:
            SearchWorkerCrashedError: the worker died answering (it is replaced; a retry can work).
            SearchPoolClosedError: the pool is closed (the server is stopping).
            Whatever the engine raised in the worker, with the worker's traceback as its cause.
        """
        return self._ask(self._take(generation, lambda _: True), Request(generation, operation, args, dict(kwargs)))

    def on_each_worker(self, generation: str, operation: str, *args: Any, **kwargs: Any) -> list[Any]:
        """``call`` once in every worker, each as it becomes idle; their values.

        ``status`` opens (and warms) ``generation`` everywhere: for a generation about to go
        live, so no request waits for a worker to open it.  A worker replaced meanwhile is
        asked too.
        """
        asked: set[int] = set()
        values: list[Any] = []
        while True:
            with self._changed:
                if not {id(w) for w in self._workers} - asked:
                    return values
            taken = self._take(generation, lambda each: id(each) not in asked)
            asked.add(id(taken))
            values.append(self._ask(taken, Request(generation, operation, args, dict(kwargs))))

    def close(self) -> None:
        """Stop every worker: idle ones now, busy ones as they finish (killed after ``STOP_SECONDS``)."""
        atexit.unregister(self.close)
        with self._changed:
            self._closed = True
            idle, workers = list(self._idle), list(self._workers)
            self._idle.clear()
            self._changed.notify_all()
        for each in idle:
            each.conn.close()  # busy ones are closed by _give_back
        for each in workers:
            _stop(each)

    # -- workers -----------------------------------------------------------------------------

    def _add_worker(self) -> None:
        ours, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=worker_process.run_worker,
            args=(theirs, self._setup, self._generation),
            name="docs-mcp-search",
            daemon=True,
        )
        process.start()
        theirs.close()  # the worker holds the only other end: it sees EOF when this process closes or dies
        started = _Worker(process, ours)
        with self._changed:
            self._workers.append(started)
            self._idle.append(started)
            self._changed.notify_all()  # waiters want different workers

    def _take(self, generation: str, wanted: Callable[[_Worker], bool]) -> _Worker:
        """An idle worker that is ``wanted``, waiting for one; the most recently used first (its caches are warm)."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or any(wanted(each) for each in self._idle))
            if self._closed:
                raise SearchPoolClosedError()
            self._generation = generation
            taken = next(each for each in reversed(self._idle) if wanted(each))
            self._idle.remove(taken)
            return taken

    def _ask(self, taken: _Worker, request: Request) -> Any:
        try:
            taken.conn.send(request)
            value, trace = taken.conn.recv()
        except (EOFError, OSError):
            self._replace(taken)
            raise SearchWorkerCrashedError(_exit_status(taken.process)) from None
        except BaseException:
            self._replace(taken)  # interrupted between question and answer: the pipe is out of step
            raise
        self._give_back(taken)
        if trace is not None:
            raise value from RemoteTraceback(trace)
        return value

    def _give_back(self, taken: _Worker) -> None:
        with self._changed:
            if self._closed:
                taken.conn.close()  # close() is waiting for it to exit
                return
            self._idle.append(taken)
            self._changed.notify_all()  # waiters want different workers

    def _replace(self, lost: _Worker) -> None:
        lost.conn.close()
        _stop(lost)
        logger.error("search worker %s stopped (%s); starting another", lost.process.pid, _exit_status(lost.process))
        with self._changed:
            self._workers.remove(lost)
            if self._closed:
                return
        self._add_worker()


def _context() -> ForkServerContext | SpawnContext:
    """The fork server where there is one (a clean process to fork from, the engine imported once), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([worker_process.__name__])
        return context
    return multiprocessing.get_context("spawn")


def _stop(each: _Worker) -> None:
    """Wait for a worker whose pipe is closed to exit; kill it if it does not."""
    each.process.join(STOP_SECONDS)
    if each.process.is_alive():
        logger.warning("search worker %s did not stop; killing it", each.process.pid)
        each.process.kill()
        each.process.join()
    each.conn.close()


def _exit_status(process: BaseProcess) -> str:
    code = process.exitcode
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"
