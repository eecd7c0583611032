"""Embedding fanned out to Dask workers, for corpora too big for one machine's build.

``DaskEmbedder`` stands in for the build's Embedder (same ``identity``, ``embed_documents``,
``embed_query``): a build hands it the windows to embed, it sends batches to the workers of
a Dask cluster (``distributed``, an optional extra: ``pip install 'docs-mcp[dask]'``), each
of which loads the same model once and checks its checksum, and gathers the vectors in
order. Every finished batch goes to the content-addressed ``VectorCache`` as it arrives, so
a build killed halfway keeps what it finished: the next build embeds only the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docs_mcp.indexer.errors import FleetError, ModelMismatchError
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.fleet.vector_cache import VectorCache
from docs_mcp.indexer.models.loading import Embedder, load_embedder
from docs_mcp.indexer.vectors import window_key

BATCH = 64  # windows per task: big enough to amortise a round trip, small enough to spread over workers


@dataclass
class FanOutStats:
    """What the fan-out did in one build."""

    cached: int = 0  # windows whose vector came from the cache
    embedded: int = 0  # windows embedded by the workers
    tasks: int = 0


def embed_on_worker(model: str, checksum: str, texts: Sequence[str]) -> np.ndarray:
    """Runs on a Dask worker: the vectors of ``texts`` with the model the build uses (loaded once per process).

    Raises:
        ModelMismatchError: this worker's copy of the model is another one.
    """
    embedder = load_embedder(model, threads=1)
    if embedder.identity.checksum != checksum:
        raise ModelMismatchError(
            f"A Dask worker has another copy of {model} (checksum {embedder.identity.checksum[:12]}...).",
            "Install the same docs-mcp and model on every worker.",
        )
    return embedder.embed_documents(list(texts))


def dask_client(address: str) -> Any:
    """A client of the Dask scheduler at ``address`` (tcp://host:8786).

    Raises:
        FleetError: distributed is not installed, or the scheduler does not answer.
    """
    try:
        from distributed import Client
    except ImportError:
        raise FleetError(
            "Fanning embedding out to Dask needs the distributed package, which is not installed.",
            "Install it: pip install 'docs-mcp[dask]'.",
        ) from None
    try:
        return Client(address, timeout=30)
    except (OSError, TimeoutError) as error:
        raise FleetError(
            f"The Dask scheduler at {address} does not answer: {error}.",
            "Start it (`dask scheduler`, then `dask worker ADDRESS` on each machine) or fix --dask.",
        ) from None


class DaskEmbedder:
    """An Embedder whose document embedding runs on Dask workers, through a vector cache."""

    def __init__(self, local: Embedder, client: Any, cache: VectorCache, *, batch: int = BATCH) -> None:
        self.identity = local.identity
        self._local, self._client, self._cache, self._batch = local, client, cache, batch
        self.stats = FanOutStats()

    def embed_query(self, text: str) -> np.ndarray:
        return self._local.embed_query(text)

    def embed_documents(
        self, texts: Sequence[str], *, workers: int = 1, on_batch: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors of ``texts`` in order: from the cache, else from the workers (cached as each batch lands).

        Raises:
            ModelLoadError, ModelMismatchError: a worker cannot run the model, or runs another one.
        """
        from distributed import as_completed

        keys = [window_key(self.identity.checksum, text) for text in texts]
        vectors = np.empty((len(texts), self.identity.dimensions), dtype=np.float32)
        cached = self._cache.get_many(keys)
        for row, key in enumerate(keys):
            if key in cached:
                vectors[row] = cached[key]
        todo = [row for row, key in enumerate(keys) if key not in cached]
        done = len(texts) - len(todo)
        self.stats.cached += done
        if on_batch and done:
            on_batch(done)
        batches = [todo[start : start + self._batch] for start in range(0, len(todo), self._batch)]
        futures = {
            self._client.submit(
                embed_on_worker, self.identity.name, self.identity.checksum, [texts[r] for r in rows], pure=False
            ): rows
            for rows in batches
        }
        self.stats.tasks += len(futures)
        for future in as_completed(futures):
            rows = futures[future]
            result = future.result()
            vectors[rows] = result
            self._cache.put_many([keys[r] for r in rows], result)  # kept even if the build dies after this
            fault_point("vector-cache-put")
            self.stats.embedded += len(rows)
            done += len(rows)
            if on_batch:
                on_batch(done)
        return vectors


class FanOut:
    """One build's connection to a Dask cluster: wraps the loaded model in a DaskEmbedder (``wrap``), closed after."""

    def __init__(self, address: str, cache_folder: Any) -> None:
        self._client = dask_client(address)
        self._cache_folder = cache_folder
        self.embedder: DaskEmbedder | None = None

    def wrap(self, local: Embedder) -> Embedder:
        self.embedder = DaskEmbedder(local, self._client, VectorCache(self._cache_folder, local.identity.dimensions))
        # DaskEmbedder has Embedder's methods; Embedder is a class, not a protocol (a follow-up: make it one).
        return self.embedder  # type: ignore[return-value]

    def close(self) -> None:
        self._client.close()
