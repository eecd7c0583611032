"""Query embeddings, begun as soon as a search starts and computed beside it, then remembered.

Embedding the query is most of a hybrid search (about 3 ms of one core for a short query,
against 1-2 ms for the full-text signal and the rest).  The two do not depend on each other,
so a search hands the embedding to an encoder thread first and scores the words meanwhile:
on two cores the query's wait is the longer of the two, not their sum.  The model runs on one
thread per query (query_model.QUERY_THREADS): a thread pool inside ONNX Runtime would make every
operator of a 6-layer encoder wait for its slowest thread, which on a busy machine is the one
the kernel did not schedule (measured at load 25: 9.7 ms of CPU per query on two spinning
threads, 5.2 ms on one).

Recent embeddings are kept (pages, get_docs and hints re-ask for the same query), as futures:
a search that asks for a query already in flight waits for that computation instead of
starting a second one.  A failed embedding (the model did not load) is not kept: the next
search tries again and reports the error itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

import numpy as np

from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.blas import usable_cores
from docs_mcp.server.search.lru_cache import LruCache


class QueryEmbedder(Protocol):
    """Turns a query into a unit vector of the index's dimensions."""

    def embed_query(self, text: str) -> np.ndarray: ...


_encoders: ThreadPoolExecutor | None = None
_encoders_lock = threading.Lock()


def _encoder_threads() -> ThreadPoolExecutor:
    """The process's encoder threads, one per usable core (concurrent searches embed at once), started on first use."""
    global _encoders
    with _encoders_lock:
        if _encoders is None:
            _encoders = ThreadPoolExecutor(usable_cores(), thread_name_prefix="docs-mcp-query-encoder")
        return _encoders


class QueryVectors:
    """The embeddings of one engine's queries: ``begin`` one early, ``get`` it when the vector signal needs it."""

    def __init__(self, embedder: Callable[[], QueryEmbedder]) -> None:
        """``embedder`` returns the model (loading it the first time; it may raise ModelLoadError)."""
        self._embedder = embedder
        self._vectors: LruCache[str, Future[np.ndarray]] = LruCache("query-vectors", lru_cache.QUERY_VECTORS)
        self._lock = threading.Lock()  # one computation per query in flight

    def begin(self, query: str) -> Future[np.ndarray]:
        """Start embedding ``query`` on an encoder thread, unless it is remembered or in flight already."""
        with self._lock:
            pending = self._vectors.get(query)
            if pending is None:
                pending = _encoder_threads().submit(self._embed, query)
                self._vectors.put(query, pending)
        return pending

    def get(self, query: str) -> np.ndarray:
        """The unit vector of ``query`` (begun now if no search began it).

        Raises:
            ModelLoadError, ModelMismatchError: the model could not be loaded.
        """
        return self.begin(query).result()

    def _embed(self, query: str) -> np.ndarray:
        try:
            return self._embedder().embed_query(query)
        except BaseException:
            with self._lock:
                self._vectors.pop(query)  # do not remember a failure
            raise
