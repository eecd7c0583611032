"""int8 queries (DOCS_MCP_QUERY_PRECISION=int8): the query graph multiplies the shipped int8 weights in integers,
its vectors are deterministic and near the float32 ones, documents keep theirs, and a bad value is refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models import loading
from docs_mcp.indexer.models.model_files import verified_files
from docs_mcp.indexer.models.onnx_wire import decode_model, encode_model

QUERIES = ["CORSMiddleware allow_origins", "how do I add a dependency to every route", "retry " * 200]
DOCUMENTS = ["Use CORSMiddleware to allow cross-origin requests.", "Dependencies are declared with Depends()."]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own, and no model loaded before (loaded models are kept per process)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    loading._cached_load.cache_clear()
    yield tmp_path / "docs-mcp" / "models"
    loading._cached_load.cache_clear()


def _op_types(path: Path) -> Counter[str]:
    graph, _ = decode_model(path.read_bytes())
    return Counter(node.op_type for node in graph.nodes)


def test_int8_queries_run_the_shipped_weights_in_integer_products(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    as_documents = loading.load_embedder("default", threads=1)
    floats = np.array([as_documents.embed_query(query) for query in QUERIES])
    document_vectors = as_documents.embed_documents(DOCUMENTS)
    monkeypatch.setenv("DOCS_MCP_QUERY_PRECISION", "int8")
    embedder = loading.load_embedder("default", threads=1)
    vectors = np.array([embedder.embed_query(query) for query in QUERIES])
    # The optimised query graph kept beside the float32 one: all 36 matrix products on the int8 weights.
    saved = {path.name: _op_types(path) for path in cache.iterdir()}
    assert len(saved) == 2
    query_graph = next(types for types in saved.values() if "DynamicQuantizeMatMul" in types)
    assert query_graph["DynamicQuantizeMatMul"] == 36 and "MatMul" not in query_graph
    # Deterministic, near the float32 vectors but not them; the model's identity and its documents' vectors unchanged.
    assert np.array_equal(vectors, np.array([embedder.embed_query(query) for query in QUERIES]))
    cosines = (vectors * floats).sum(axis=1)
    assert cosines.min() >= 0.96 and not np.array_equal(vectors, floats)
    assert embedder.identity == as_documents.identity
    assert np.array_equal(embedder.embed_documents(DOCUMENTS), document_vectors)


def test_a_query_precision_that_does_not_exist_is_refused_with_the_ones_that_do(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCS_MCP_QUERY_PRECISION", "fp16")
    with pytest.raises(ModelLoadError) as caught:
        loading.load_embedder("default")
    assert caught.value.message == "DOCS_MCP_QUERY_PRECISION is 'fp16', which is not a query precision."
    assert caught.value.hint == "Set it to float32 or int8, or unset it for float32."


def test_a_graph_without_int8_weights_has_no_int8_query_graph() -> None:
    from docs_mcp.indexer.models.query_graph import int8_queries  # here: the other tests hold the old code too

    graph, rest = decode_model(verified_files()[0].path.read_bytes())
    graph.nodes[:] = [node for node in graph.nodes if node.op_type != "MatMul"]
    with pytest.raises(ModelLoadError, match="the model has no int8 weight matrix"):
        int8_queries(encode_model(graph, rest, {}))
