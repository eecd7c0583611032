"""Chinese documentation is searchable: real FastAPI pages in Chinese (tests/indexer/fixtures/formats/zh)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docs_mcp.indexer import build_index
from docs_mcp.server.search.engine import open_engine

ZH = Path(__file__).parents[1] / "indexer" / "fixtures" / "formats" / "zh"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    docs = tmp_path_factory.mktemp("zh") / "docs"
    shutil.copytree(ZH, docs)
    index = docs.parent / "index"
    build_index(docs, index)
    return open_engine(index)


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("后台任务", "tutorial/background-tasks.md"),
        ("中间件", "tutorial/middleware.md"),
        ("调试", "tutorial/debugging.md"),
    ],
)
def test_a_page_title_finds_its_page_in_every_mode(engine, query: str, page: str) -> None:
    for mode in ("hybrid", "fusion", "bm25"):
        hits = engine.search(query, {}, mode=mode, limit=3).hits
        assert hits and hits[0].filepath == page, (mode, [h.chunk_id for h in hits])


def test_a_word_inside_a_longer_run_is_found(engine) -> None:
    hits = engine.search("注入", {}, mode="bm25", limit=3).hits  # "injection": only in 依赖注入 (dependency injection)
    assert hits[0].heading == "依赖注入" and hits[0].filepath == "tutorial/background-tasks.md"
    assert "注入" in hits[0].snippet


def test_the_vector_leg_runs_for_a_query_without_latin_words(engine) -> None:
    hits = engine.search("在返回响应之后运行的任务", {}, mode="fusion", limit=5).hits
    assert any(hit.vector_rank is not None for hit in hits)
    assert engine.query_similarities("调试") is not None


def test_cjk_headings_keep_the_contracts_slug_rule(engine) -> None:
    hit = engine.search("中间件", {}, mode="bm25", limit=1).hits[0]
    assert hit.chunk_id.startswith("tutorial/middleware.md#") and "中" not in hit.chunk_id
    assert hit.breadcrumb.startswith("tutorial/middleware.md > 中间件")
