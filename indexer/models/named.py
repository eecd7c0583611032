"""Other embedding models (``--model NAME``), run by fastembed, which downloads them once.

fastembed is an optional install (``pip install 'docs-mcp[models]'``): the default model runs
without it, and fastembed requires an imaging library and a download stack the default model
does not need. Before a download, the hub is asked once with a short timeout, so an offline
machine gets one line instead of fastembed's ~40 s of retries and a vague error.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.environment import variable
from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models.model_files import sha256_of
from docs_mcp.indexer.models.runtime import PROVIDER, onnxruntime_without_telemetry, package_version, translated
from docs_mcp.indexer.models.sentence_model import unpadded
from docs_mcp.indexer.records import ModelFile, ModelIdentity

# Seconds to wait for the model hub before a download is called impossible: fastembed itself
# retries an unreachable hub for ~40 s (sleeping 3 s, 9 s, 27 s) before it gives up.
HUB_TIMEOUT = 10
INSTALL_HINT = "pip install 'docs-mcp[models]'"
_DEFAULT_INSTEAD = "or drop --model to use the default model, which is installed."


class FastembedEncoder:
    """A fastembed TextEmbedding seen as an Encoder."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.dimensions = int(model.embedding_size)
        self._counter = unpadded(model.model.tokenizer)  # the model's own pads every batch

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack(list(self._model.embed(list(texts), batch_size=len(texts))))

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(next(iter(self._model.query_embed(text))), dtype=np.float32)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return [len(encoding.ids) for encoding in self._counter.encode_batch(list(texts))]


def load_named(name: str, threads: int | None, cache: Path) -> tuple[FastembedEncoder, ModelIdentity]:
    """Load fastembed's model ``name`` from ``cache``, downloading it there first if needed.

    Raises:
        ModelLoadError: fastembed is not installed, the name is unknown, or the model cannot be
            downloaded or loaded.
    """
    repository = _hub_repository(name)
    options: dict[str, Any] = {"cache_dir": str(cache)}
    try:
        # A model fetched before loads without a word to the hub.
        model = _fastembed(name, threads, local_files_only=True, **options)
    except ModelLoadError:
        _require_hub(name, repository, cache)
        model = _fastembed(name, threads, **options)
    inner = model.model
    weights_file = inner.model_description.model_file
    with translated(f"Cannot read the weights of {name}", network=True):
        checksum = sha256_of(Path(inner._model_dir) / weights_file)
    source = f"{repository or name} (downloaded by fastembed)"
    encoder = FastembedEncoder(model)
    runtime = f"fastembed {package_version('fastembed')}, onnxruntime {package_version('onnxruntime')}"
    identity = ModelIdentity(
        PROVIDER, name, encoder.dimensions, checksum, runtime, (ModelFile(weights_file, checksum, source),)
    )
    return encoder, identity


def _text_embedding() -> Any:
    """fastembed's TextEmbedding class (a heavy import: onnxruntime), or how to install it."""
    onnxruntime_without_telemetry()  # before fastembed imports it
    try:
        from fastembed import TextEmbedding
    except ImportError:
        raise ModelLoadError(
            "Embedding models other than the default one need fastembed, which is not installed.",
            f"Install it with {INSTALL_HINT}, {_DEFAULT_INSTEAD}",
        ) from None
    return TextEmbedding


def _hub_repository(name: str) -> str | None:
    """The hub repository fastembed downloads ``name`` from (None: from elsewhere).

    Raises:
        ModelLoadError: fastembed is missing or does not know the name; the hint suggests close ones.
    """
    text_embedding = _text_embedding()
    with translated("Cannot list fastembed's models"):
        known = {
            entry["model"]: (entry.get("sources") or {}).get("hf") for entry in text_embedding.list_supported_models()
        }
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


def _require_hub(name: str, repository: str | None, cache: Path) -> None:
    """Fail at once, in one line, when ``name`` is not cached and cannot be downloaded."""
    from huggingface_hub import HfApi, constants  # fastembed's download client

    # fastembed reads the variable on each load, the hub client once at import: honour both.
    if constants.HF_HUB_OFFLINE or variable("HF_HUB_OFFLINE").strip().upper() in {"1", "TRUE", "YES", "ON"}:
        raise ModelLoadError(
            f"The embedding model {name} is not in the cache ({cache}) and HF_HUB_OFFLINE forbids downloading it.",
            f"Unset HF_HUB_OFFLINE and run once with network access to {constants.ENDPOINT}, {_DEFAULT_INSTEAD}",
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
            f"Run once with network access (or set HTTPS_PROXY / HF_ENDPOINT), {_DEFAULT_INSTEAD}",
        ) from None


def _fastembed(name: str, threads: int | None, **options: Any) -> Any:
    text_embedding = _text_embedding()
    with translated(f"Cannot load the embedding model {name}", network=True):
        from loguru import logger  # fastembed's logger

        logger.disable("fastembed")  # it would log each failure before raising; we report it once
        return text_embedding(model_name=name, threads=threads, **options)
