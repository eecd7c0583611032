"""Inside a search worker process: engines for the generations the server names, answering one pipe.

The server's pool (``pool.py``) starts this process and talks to it over one duplex pipe:
a ``Request`` in, ``(value, None)`` or ``(error, traceback)`` out, one at a time.  The worker
opens the very generation each request names (the serving arrays are memory-mapped, so every
worker shares the server's pages of them) and keeps the last two open: during a swap the old
generation still serves the requests that leased it.  The query model loads once per process
(the indexer caches it), at start when the worker warms for hybrid or vector ranking, never
for bm25.

The worker ends when the pipe does: the server closed it, or died (the kernel closes its end),
so a killed server leaves no worker behind once the search in progress, if any, is done.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from docs_mcp.environment import variable
from docs_mcp.server.search.blas import BLAS_THREADS_VARIABLE
from docs_mcp.server.search.engine import Engine, QueryEmbedder, RankingSettings, open_engine
from docs_mcp.server.search.modes import Mode

OPEN_GENERATIONS = 3  # the live one, the one it replaced (leased requests, cursors) and one a fleet replica prepares
EmbedderFactory = Callable[[Path], QueryEmbedder]  # generation folder -> query embedder (benchmarks)


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker of a pool needs: the index, how to rank, what to warm at start."""

    index_dir: Path
    settings: RankingSettings = field(default_factory=RankingSettings)
    warm: Mode | None = None  # the mode to warm a generation for when it opens (None: nothing)
    embedder: EmbedderFactory | None = None  # a picklable replacement for the index's model (benchmarks)


@dataclass(frozen=True)
class Request:
    """One call: ``operation`` on the engine of ``generation`` with these arguments."""

    generation: str
    operation: str  # a key of OPERATIONS
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def similarities_at(engine: Engine, query: str, rows: list[int]) -> list[float] | None:
    """The query's vector similarity to these chunks only (None without vectors): the whole array would be megabytes to send."""
    found = engine.query_similarities(query)
    return None if found is None else [float(found[row]) for row in rows]


def _status(engine: Engine) -> dict[str, Any]:
    """Whose process this is, which generation it opened, whether the query model is loaded (tests, logs)."""
    return {
        "pid": os.getpid(),
        "generation": engine.generation,
        "model_loaded": "onnxruntime" in sys.modules,
        "blas_threads": variable(BLAS_THREADS_VARIABLE) or None,
    }


OPERATIONS: dict[str, Callable[..., Any]] = {
    "search": Engine.search,
    "similarities_at": similarities_at,
    "status": _status,  # opening the generation to answer it warms it
}


class _Engines:
    """The open engines, most recently used last; the oldest closes beyond ``OPEN_GENERATIONS``."""

    def __init__(self, setup: WorkerSetup) -> None:
        self._setup = setup
        self._open: OrderedDict[str, Engine] = OrderedDict()

    def get(self, generation: str) -> Engine:
        engine = self._open.get(generation)
        if engine is None:
            engine = self._open_one(generation)
            self._open[generation] = engine
            while len(self._open) > OPEN_GENERATIONS:
                self._open.popitem(last=False)[1].close()
        self._open.move_to_end(generation)
        return engine

    def close(self) -> None:
        while self._open:
            self._open.popitem()[1].close()

    def _open_one(self, generation: str) -> Engine:
        factory = self._setup.embedder
        embedder = factory(self._setup.index_dir / generation) if factory else None
        engine = open_engine(self._setup.index_dir, self._setup.settings, embedder=embedder, generation=generation)
        if self._setup.warm is not None:
            try:
                engine.warm(self._setup.warm)
            except Exception:  # noqa: BLE001 - the first vector search loads the model again and reports why it cannot
                pass
        return engine


def run_worker(conn: Connection, setup: WorkerSetup, generation: str) -> None:
    """The worker's main loop: open (and warm) ``generation``, then answer requests until the pipe closes."""
    # Ctrl-C (and a service manager's SIGTERM) reach the whole process group; the server decides
    # when its workers stop: it drains its requests first, then closes their pipes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.dup2(2, 1)  # under stdio, fd 1 may be the protocol's wire: nothing a worker prints may reach it
    engines = _Engines(setup)
    try:
        try:
            engines.get(generation)  # open and warm now, before the first request
        except Exception:  # noqa: BLE001 - the first request opens it again and gets the error
            pass
        while True:
            try:
                request = conn.recv()
            except (EOFError, OSError):
                return  # the server closed the pipe, or is gone
            try:
                conn.send(_answer(engines, request))
            except (BrokenPipeError, OSError):
                return
    finally:
        engines.close()


def _answer(engines: _Engines, request: Request) -> tuple[Any, str | None]:
    try:
        operation = OPERATIONS[request.operation]
        return operation(engines.get(request.generation), *request.args, **request.kwargs), None
    except Exception as error:  # noqa: BLE001 - every failure goes back to the caller, who raises it
        return _sendable(error), traceback.format_exc()


def _sendable(error: Exception) -> Exception:
    """The error itself if it survives pickling, else a RuntimeError naming it (the traceback travels beside it)."""
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # noqa: BLE001 - any unpicklable error becomes a plain one
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
