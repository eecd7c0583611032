"""The optimised model graph saved between loads: written once, read after, the same vectors, never a failed load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from docs_mcp.indexer.models import optimized_graph
from docs_mcp.indexer.models.model_files import WEIGHTS_SHA256, verified_files
from docs_mcp.indexer.models.optimized_graph import OptimizedGraph, graph_key
from docs_mcp.indexer.models.sentence_model import SentenceModel

TEXTS = ["how do I add CORS middleware", "dependency injection with Depends", "retry " * 200]


def _files() -> dict[str, Path]:
    return {installed.record.name: installed.path for installed in verified_files()}


@pytest.fixture(scope="module")
def in_memory() -> np.ndarray:
    """The vectors of a model optimised in memory at load, as every load did before."""
    return SentenceModel(_files(), threads=1).embed(TEXTS)


def test_the_optimised_graph_is_saved_once_and_gives_the_same_vectors(tmp_path: Path, in_memory: np.ndarray) -> None:
    saved = OptimizedGraph.for_weights(tmp_path, WEIGHTS_SHA256, onnxruntime.__version__)
    first = SentenceModel(_files(), threads=1, saved=saved)
    assert [path.name for path in saved.path.parent.iterdir()] == [saved.path.name]  # no temporary file left
    written = saved.path.stat().st_mtime_ns
    second = SentenceModel(_files(), threads=1, saved=saved)
    assert saved.path.stat().st_mtime_ns == written  # loaded, not optimised and written again
    assert np.array_equal(first.embed(TEXTS), in_memory) and np.array_equal(second.embed(TEXTS), in_memory)


def test_a_damaged_saved_graph_is_optimised_again_and_replaced(tmp_path: Path, in_memory: np.ndarray) -> None:
    saved = OptimizedGraph.for_weights(tmp_path, WEIGHTS_SHA256, onnxruntime.__version__)
    saved.path.parent.mkdir(parents=True)
    saved.path.write_bytes(b"\x08\x07not a model")
    model = SentenceModel(_files(), threads=1, saved=saved)
    assert np.array_equal(model.embed(TEXTS), in_memory) and saved.path.stat().st_size > 1_000_000


def test_a_cache_folder_that_cannot_be_made_loads_without_saving(tmp_path: Path, in_memory: np.ndarray) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    saved = OptimizedGraph.for_weights(
        blocker, WEIGHTS_SHA256, onnxruntime.__version__
    )  # its folder would be under a file
    model = SentenceModel(_files(), threads=1, saved=saved)
    assert np.array_equal(model.embed(TEXTS), in_memory) and not saved.path.exists()


def test_the_file_name_changes_with_whatever_the_graph_depends_on(monkeypatch: pytest.MonkeyPatch) -> None:
    key = graph_key("weights-a", "1.20.0")
    assert key == graph_key("weights-a", "1.20.0")
    assert len({key, graph_key("weights-b", "1.20.0"), graph_key("weights-a", "1.21.0")}) == 3
    assert graph_key("weights-a", "1.20.0", int8=True) != key  # the int8 query graph (query_graph.py) is another
    monkeypatch.setattr(optimized_graph, "cpu_flags", lambda: "fpu sse2")  # another CPU: kernels it may lack
    assert graph_key("weights-a", "1.20.0") != key


def test_without_a_home_folder_the_model_loads_and_nothing_is_cached(
    monkeypatch: pytest.MonkeyPatch, in_memory: np.ndarray
) -> None:
    from docs_mcp.indexer.models import loading

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")  # what Path.home() says for a user without one

    monkeypatch.setattr(loading, "cache_dir", no_home)
    vectors = loading._load_default(1).embed_documents(TEXTS)  # batched by length: equal to the cosine, not the bit
    assert (vectors * in_memory).sum(axis=1).min() >= 0.9999
