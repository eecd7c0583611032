"""One background thread for a service's refreshes and index writes, with de-duplicated jobs.

Jobs run one at a time, in submission order; a job whose key is already waiting is
dropped (two reads of one library's pages need one index write). ``wait_idle`` lets a
caller (a test, the ``refresh`` command) wait until nothing is left to do.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

logger = logging.getLogger(__name__)

CLOSE_WAIT = (
    120.0  # seconds: an index write of a few fetched pages takes seconds; a stuck one must not hold the exit forever
)


class Worker:
    """A lazily started daemon thread that runs keyed jobs one by one."""

    def __init__(self, name: str = "docs-mcp-sources") -> None:
        self._name = name
        self._jobs: OrderedDict[str, Callable[[], object]] = OrderedDict()
        self._busy = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, key: str, job: Callable[[], object]) -> None:
        """Run ``job`` in the background unless a job with ``key`` is already waiting."""
        with self._cond:
            if self._closed or key in self._jobs:
                return
            self._jobs[key] = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no job is waiting or running; False if ``timeout`` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def close(self, wait: float | None = CLOSE_WAIT) -> None:
        """Drop waiting jobs, and wait up to ``wait`` seconds for the running one to end.

        Waiting matters at exit: an index write left running when the interpreter shuts down
        dies inside DuckDB or the embedding model's threads ("terminate called without an
        active exception", SIGABRT).
        """
        with self._cond:
            self._closed = True
            dropped = len(self._jobs)
            self._jobs.clear()
            self._cond.notify_all()
            busy, thread = self._busy, self._thread
        if dropped:
            logger.info("%d background job(s) dropped at close; the next read of their pages retries them", dropped)
        if thread is not None and thread is not threading.current_thread():
            if busy:
                logger.info("waiting for a background job (an index write) to finish before closing")
            thread.join(wait)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._jobs or self._closed)
                if self._closed:
                    return
                key, job = self._jobs.popitem(last=False)
                self._busy = True
            try:
                job()
            except Exception:  # noqa: BLE001 - a failed background job is logged; the next read retries it
                logger.warning("background job %s failed", key, exc_info=True)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
