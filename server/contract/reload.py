"""Hot swap: serve the index generation that ``DIR/CURRENT`` names, reopening when it changes.

The indexer writes a new generation aside and replaces ``CURRENT`` atomically,
so a stat of that one file per request tells whether anything changed.  Only
then is ``CURRENT`` read and, if it names another generation, a new engine
opened; cursors of the old generation become stale by construction (their key
derives from the generation).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from mcp_types import Tool

from docs_mcp.indexer.index_file import current_generation
from docs_mcp.indexer.schema import CURRENT_FILE
from docs_mcp.server.contract.cursor import CursorCodec
from docs_mcp.server.search.engine import Engine, open_engine
from docs_mcp.server.contract.schemas import contract_tools, filter_values

logger = logging.getLogger(__name__)

ToolLister = Callable[[Mapping[str, Any]], list[Tool]]
EngineOpener = Callable[[Path], Engine]
_StatKey = tuple[int, int, int]


@dataclass(frozen=True)
class ServedIndex:
    """One open generation and what the tools derive from it.

    ``lock`` serialises every use of the engine and its DuckDB connection, which
    is not safe to share between threads.
    """

    generation: str
    engine: Engine
    tools: list[Tool]
    filters: Mapping[str, tuple[str, ...]]
    cursors: CursorCodec
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)
    _warming: threading.Event = field(default_factory=threading.Event, compare=False)

    def warm(self) -> None:
        """Load the engine's postings, vectors and model now, so the first search is fast.

        Only the first call does anything.  Failures are logged, not raised: the
        first search reports them to its caller.
        """
        if self._warming.is_set():
            return
        self._warming.set()
        try:
            with self.lock:
                self.engine.warm()
        except Exception:  # noqa: BLE001 - a background warm-up must never kill the server
            logger.warning("warming the index failed; searches will retry", exc_info=True)


class LiveIndex:
    """The index at ``index_dir`` as it is now: ``current()`` follows the indexer's swaps."""

    def __init__(
        self,
        index_dir: Path,
        *,
        secret: bytes = b"",
        opener: EngineOpener = open_engine,
        tool_list: ToolLister = contract_tools,
    ) -> None:
        """Open the live generation; ``tool_list`` says which tools a generation's metadata offers.

        Raises:
            IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
        """
        self.index_dir = Path(index_dir)
        self._secret = secret
        self._opener = opener
        self._tool_list = tool_list
        self._swap_lock = threading.Lock()
        self._stat = self._stat_current()
        self._served = self._open()

    def current(self) -> ServedIndex:
        """The generation to serve this request from, reopened first if ``CURRENT`` changed."""
        stat = self._stat_current()
        if stat == self._stat:
            return self._served
        with self._swap_lock:
            if stat != self._stat:
                self._stat = stat
                self._swap()
        return self._served

    def _swap(self) -> None:
        try:
            if current_generation(self.index_dir) == self._served.generation:
                return
            served = self._open()
        except Exception as error:  # noqa: BLE001 - a broken new generation must not take the server down
            logger.error("index changed but cannot be opened, still serving %s: %s", self._served.generation, error)
            return
        logger.info("index swapped: now serving generation %s", served.generation)
        self._served = served

    def _open(self) -> ServedIndex:
        # Read CURRENT before opening: if it moves meanwhile, the next request sees a change and reopens.
        generation = current_generation(self.index_dir)
        engine = self._opener(self.index_dir)
        return ServedIndex(
            generation=generation,
            engine=engine,
            tools=self._tool_list(engine.metadata),
            filters=filter_values(engine.metadata),
            cursors=CursorCodec(engine.generation, self._secret),
        )

    def _stat_current(self) -> _StatKey | None:
        try:
            stat = os.stat(self.index_dir / CURRENT_FILE)
        except OSError:
            return None
        return (stat.st_ino, stat.st_mtime_ns, stat.st_size)
