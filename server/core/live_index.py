"""Hot swap: serve the index generation that ``DIR/CURRENT`` names, reopening when it changes.

The indexer writes a new generation aside and replaces ``CURRENT`` atomically,
so a stat of that one file per request tells whether anything changed.  Only
then is ``CURRENT`` read and, if it names another generation, a new engine
opened; cursors of the old generation become stale by construction (their key
derives from the generation).

Lifecycle of a generation: the request that notices the change opens the new
one and warms it (postings, texts, vectors, model) while every other request
keeps being served by the old one; then the new one goes live.  The old one is
retired, and closed (its DuckDB connection and memory released, so a pruned
generation's files are not held open) once the last request that leased it is
done.  ``lease()``/``acquire()`` count those requests; ``current()`` is for
readers of metadata only (tools, filters), which never touch the connection.

A fleet replica (server/fleet) also *prepares* a generation before it goes live (opens and
warms it while the old one serves), and *retains* a replaced one for ``retain`` seconds (the
cursor lifetime): ``acquire(generation)`` leases any generation held open, so a cursor issued
by a replica on either side of a swap is answered from the generation that issued it.

With search workers (``workers`` > 0), searches run in a pool of processes
(server/search/pool.py) that open the generation each request leased; warming a
generation then warms the workers, and this process never loads the query model.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from mcp_types import Tool

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.index_file import current_generation, index_identity
from docs_mcp.indexer.schema import CURRENT_FILE
from docs_mcp.server.core.facets import filter_values
from docs_mcp.server.search.engine import Engine, open_engine
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.search.pool import SearchPool
from docs_mcp.server.search.records import SearchPage
from docs_mcp.server.search.worker_process import EmbedderFactory, WorkerSetup, similarities_at

logger = logging.getLogger(__name__)

ToolLister = Callable[[Mapping[str, Any]], list[Tool]]
EngineOpener = Callable[[Path], Engine]
_StatKey = tuple[int, int, int]
T = TypeVar("T")


def no_tools(metadata: Mapping[str, Any]) -> list[Tool]:
    """The tool list of a live index that offers no tools (a one-shot reader, a test)."""
    return []


@dataclass(frozen=True)
class ServedIndex:
    """One open generation and what the tools derive from it; the engine is safe to share between threads.

    What a product computes from a generation (its cursor codec, its library catalog) is kept
    with the generation (``derived``), so it goes when the generation is released.
    """

    generation: str
    engine: Engine
    tools: list[Tool]
    filters: Mapping[str, tuple[str, ...]]
    secret: bytes = b""  # the deployment's shared secret, for what a product signs per generation (cursors)
    identity: str = ""  # the index's identity, kept by its rebuilds: another index's cursors are called another's
    pool: SearchPool | None = None  # where searches run; None: in this process
    _warming: threading.Event = field(default_factory=threading.Event, compare=False)
    _derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    _derived_lock: threading.RLock = field(default_factory=threading.RLock, compare=False, repr=False)

    def derived(self, key: Any, make: Callable[[], T]) -> T:
        """The value ``make`` computes from this generation, computed once per generation and ``key``."""
        with self._derived_lock:
            if key not in self._derived:
                self._derived[key] = make()
            return cast(T, self._derived[key])

    def answers_quickly(self, mode: Mode) -> bool:
        """Whether a search in ``mode`` runs in this process and takes about a millisecond (``Engine.answers_quickly``)."""
        return self.pool is None and self.engine.answers_quickly(mode)

    def search(self, query: str, filters: Mapping[str, str] | None = None, **options: Any) -> SearchPage:
        """``Engine.search`` of this generation, in a search worker when there is a pool (same pages, same scores)."""
        if self.pool is None:
            return self.engine.search(query, filters, **options)
        return self.pool.search(self.engine.generation, query, filters, **options)

    def similarities_at(self, query: str, rows: list[int]) -> list[float] | None:
        """The query's vector similarity to the chunks ``rows`` (None without vectors), where searches run."""
        if self.pool is None:
            return similarities_at(self.engine, query, rows)
        similarities: list[float] | None = self.pool.call(self.engine.generation, "similarities_at", query, rows)
        return similarities

    def warm(self, mode: Mode = Mode.hybrid) -> None:
        """Load what the first search in ``mode`` needs now (the query model, unless bm25), so it is fast.

        With a pool, every worker opens this generation and warms it instead.  Only the
        first call does anything.  Failures are logged, not raised: the first search
        reports them to its caller.
        """
        if self._warming.is_set():
            return
        self._warming.set()
        try:
            if self.pool is None:
                self.engine.warm(mode)
            else:
                self.pool.on_each_worker(self.engine.generation, "status")
        except DocsMcpError as error:  # ours (a model that does not load, a bad setting): the message says it all
            logger.warning("warming the index failed; searches will retry: %s", error)
        except Exception:  # noqa: BLE001 - a background warm-up must never kill the server
            logger.warning("warming the index failed; searches will retry", exc_info=True)

    def close(self) -> None:
        """Close the engine (its cursors and connection); unusable afterwards."""
        self.engine.close()


class LiveIndex:
    """The index at ``index_dir`` as it is now: ``acquire()``/``lease()`` follow the indexer's swaps."""

    def __init__(
        self,
        index_dir: Path,
        *,
        secret: bytes = b"",
        opener: EngineOpener = open_engine,
        tool_list: ToolLister = no_tools,
        warm: Mode | None = Mode.hybrid,
        workers: int = 0,
        worker_embedder: EmbedderFactory | None = None,
        retain: float = 0.0,
    ) -> None:
        """Open the live generation; ``tool_list`` says which tools a generation's metadata offers.

        ``warm``: the search mode a new generation is warmed for before it goes live (bm25 loads
        no model), None for no warm-up (a one-shot reader has no use for it).
        ``workers``: search worker processes to start (0: search in this process);
        ``worker_embedder`` replaces the index's query model in them (benchmarks).
        ``retain``: seconds a replaced generation stays open for ``acquire(generation)`` (0: closed
        once its last request is done).

        Raises:
            IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
        """
        self.index_dir = Path(index_dir)
        # Stated twice a tool call (settled, then acquire): joined once, as os.stat takes it (10 -> 2.6 us a stat).
        self._current_file = str(self.index_dir / CURRENT_FILE)
        self._secret = secret
        self._opener = opener
        self._tool_list = tool_list
        self._warm = warm
        self._swap_lock = threading.Lock()  # one swap at a time; requests meanwhile get the old generation
        self._state_lock = threading.Lock()  # guards _served, _leases and _retired
        self._leases: dict[int, int] = {}  # id(ServedIndex) -> requests using it now
        self._retired: dict[int, ServedIndex] = {}  # replaced generations still leased
        self._retain = retain
        self._held: dict[str, ServedIndex] = {}  # open besides the served one: prepared, or retained until _expiry
        self._expiry: dict[str, float] = {}  # retained generation -> monotonic time it closes
        self._warmers: list[threading.Thread] = []
        self._stat = self._stat_current()
        self._pool: SearchPool | None = None
        self._served = self._open()
        if workers:
            engine = self._served.engine
            setup = WorkerSetup(self.index_dir.resolve(), engine.settings, warm=warm, embedder=worker_embedder)
            self._pool = SearchPool(workers, setup, engine.generation)  # each worker warms as it starts
            self._served = replace(self._served, pool=self._pool)

    def current(self) -> ServedIndex:
        """The generation to serve from now (swapping first if ``CURRENT`` changed); for metadata only.

        Anything that touches the engine or its connection uses ``lease()`` (or
        ``acquire``/``release``) instead, so the generation is not closed under it.
        """
        self._follow_current()
        return self._served

    def acquire(self, generation: str | None = None) -> ServedIndex:
        """The generation to serve this request from, held open until ``release(served)``.

        ``generation``: serve from that one instead if it is held open (prepared or retained),
        e.g. the generation a cursor was issued on.
        """
        self._follow_current()
        closing = self._expire()
        with self._state_lock:
            served = self._held.get(generation, self._served) if generation else self._served
            self._leases[id(served)] = self._leases.get(id(served), 0) + 1
        for old in closing:
            self._close(old)
        return served

    def settled(self) -> ServedIndex | None:
        """The served generation while ``CURRENT`` still names it (a request would not swap first), else None."""
        return self._served if self._stat_current() == self._stat else None

    def held(self) -> tuple[str, ...]:
        """The generations open now: the served one first, then the prepared and retained ones (those not expired)."""
        for old in self._expire():
            self._close(old)
        with self._state_lock:
            return (self._served.generation, *sorted(self._held))

    def prepare(self, generation: str) -> None:
        """Open and warm ``generation`` of the index folder now, to go live later without a wait.

        Raises:
            IndexFormatError: the generation is missing or unreadable.
        """
        with self._state_lock:
            if generation == self._served.generation or generation in self._held:
                self._expiry.pop(generation, None)  # a retained one asked for again stays
                return
        served = self._open(generation)
        if self._warm is not None:
            served.warm(self._warm)
        with self._state_lock:
            self._held[generation] = served

    def discard(self, generation: str) -> None:
        """Close a prepared or retained generation (not the served one) once no request uses it."""
        with self._state_lock:
            served = self._held.pop(generation, None)
            self._expiry.pop(generation, None)
            if served is not None and id(served) in self._leases:
                self._retired[id(served)] = served
                served = None
        if served is not None:
            self._close(served)

    def _expire(self) -> list[ServedIndex]:
        """Retained generations past their time: dropped from ``_held``; returned for closing if idle."""
        now = time.monotonic()
        with self._state_lock:
            due = [name for name, deadline in self._expiry.items() if deadline <= now]
            closing = []
            for name in due:
                del self._expiry[name]
                old = self._held.pop(name)
                if id(old) in self._leases:
                    self._retired[id(old)] = old
                else:
                    closing.append(old)
        return closing

    def release(self, served: ServedIndex) -> None:
        """The request is done with ``served``; a retired generation closes with its last user."""
        with self._state_lock:
            left = self._leases.pop(id(served)) - 1
            if left:
                self._leases[id(served)] = left
            closing = self._retired.pop(id(served), None) if not left else None
        if closing is not None:
            self._close(closing)

    @contextmanager
    def lease(self) -> Iterator[ServedIndex]:
        """``acquire()`` and ``release()`` around a block."""
        served = self.acquire()
        try:
            yield served
        finally:
            self.release(served)

    def warm_in_background(self) -> None:
        """Warm the served generation in a thread (joined by ``close``): the first search does not wait; once per generation."""
        if self._warm is None:
            return
        warmer = threading.Thread(target=self._served.warm, args=(self._warm,), name="docs-mcp-warm")
        self._warmers.append(warmer)
        warmer.start()

    def close(self) -> None:
        """Wait for background warm-ups, then close every generation; for the end of the process.

        A warm-up still loading the model when the interpreter shuts down would
        abort the process (SIGABRT from native threads), hence the join.
        """
        for warmer in self._warmers:
            warmer.join()
        with self._state_lock:
            generations = [self._served, *self._retired.values(), *self._held.values()]
            self._retired.clear()
            self._held.clear()
        for served in generations:
            self._close(served)
        if self._pool is not None:
            self._pool.close()

    def _follow_current(self) -> None:
        stat = self._stat_current()
        if stat == self._stat or not self._swap_lock.acquire(blocking=False):
            return  # unchanged, or another request is bringing the new generation up: serve the old one meanwhile
        try:
            if stat != self._stat:
                self._stat = stat
                self._swap()
        finally:
            self._swap_lock.release()

    def _swap(self) -> None:
        try:
            generation = current_generation(self.index_dir)
            if generation == self._served.generation:
                return
            with self._state_lock:
                served = self._held.pop(generation, None)  # prepared (or retained): already warm
                self._expiry.pop(generation, None)
            if served is None:
                served = self._open()
        except Exception as error:  # noqa: BLE001 - a broken new generation must not take the server down
            logger.error("index changed but cannot be opened, still serving %s: %s", self._served.generation, error)
            return
        if self._warm is not None:
            served.warm(self._warm)  # before it goes live: no request pays for loading it (once per generation)
        with self._state_lock:
            old, self._served = self._served, served
            idle = id(old) not in self._leases
            if self._retain > 0:
                self._held[old.generation] = old  # answers cursors issued before the swap, until it expires
                self._expiry[old.generation] = time.monotonic() + self._retain
                idle = False
            elif not idle:
                self._retired[id(old)] = old
        logger.info("index swapped: now serving generation %s", served.generation)
        if idle:
            self._close(old)

    def _close(self, served: ServedIndex) -> None:
        try:
            served.close()
        except Exception:  # noqa: BLE001 - releasing an old generation must never fail a request
            logger.warning("closing generation %s failed", served.generation, exc_info=True)
        else:
            logger.info("released generation %s", served.generation)

    def _open(self, generation: str | None = None) -> ServedIndex:
        """The generation CURRENT names (or ``generation``), open."""
        if generation is not None:
            engine = open_engine(self.index_dir, generation=generation)
        else:
            # Read CURRENT before opening: if it moves meanwhile, the next request sees a change and reopens.
            generation = current_generation(self.index_dir)
            engine = self._opener(self.index_dir)
        return ServedIndex(
            generation=generation,
            engine=engine,
            tools=self._tool_list(engine.metadata),
            filters=filter_values(engine.metadata),
            secret=self._secret,
            identity=index_identity(self.index_dir),
            pool=self._pool,
        )

    def _stat_current(self) -> _StatKey | None:
        try:
            stat = os.stat(self._current_file)
        except OSError:
            return None
        return (stat.st_ino, stat.st_mtime_ns, stat.st_size)
