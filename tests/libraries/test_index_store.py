"""The storage seam: the tools answer the same, byte for byte, over a second IndexStore that speaks no SQL.

tests/memory_store.py holds a generation's records in Python lists; search, the contract
tools and the library tools are not told which store they read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from library_corpora import ACME
from memory_store import MemoryStore, memory_copy

from docs_mcp.eval.golden import load_golden
from docs_mcp.indexer.sources.service import SourceService
from docs_mcp.indexer.sources.source_settings import source_settings
from docs_mcp.server.app import tool_registry
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.core.tool_registry import ToolCall
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.search.engine import Engine

REPO = Path(__file__).resolve().parents[2]


def _answers(index_dir: Path, calls: list[tuple[str, dict[str, Any]]], memory: bool) -> list[tuple[str, bool]]:
    opener = (lambda folder: Engine(memory_copy(folder))) if memory else None
    live = LiveIndex(index_dir, warm=None, **({"opener": opener} if opener else {}))
    try:
        registry = tool_registry("hybrid", Sources(SourceService(source_settings(index_dir)), live))
        with live.lease() as served:
            assert isinstance(served.engine.store, MemoryStore) is memory
            answers = [registry.get(name).answer(ToolCall(served, arguments)) for name, arguments in calls]
            return [(answer.text, answer.is_error) for answer in answers]
    finally:
        live.close()


@pytest.fixture(scope="module")
def corpus_calls(corpus_index: Path) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    queries = load_golden(REPO / "eval" / "golden" / "corpus.jsonl")
    searches = [("search_docs", {"query": q.query, "limit": 10, **q.filters}) for q in queries]
    first = _answers(corpus_index, searches[:3], memory=False)
    chunk_id = __import__("json").loads(first[0][0])["hits"][0]["chunk_id"]
    page = chunk_id.split("#")[0]
    yield [
        *searches,
        ("get_doc", {"chunk_id": chunk_id, "context": 3}),
        ("get_doc", {"chunk_id": page}),  # a page's path: not found, with the page's first chunk as the hint
        ("get_doc", {"chunk_id": "nowhere.md#nothing"}),
        ("read_page", {"path": page, "max_lines": 40}),
        ("get_docs", {"libraries": ["local/corpus"], "topic": "how to rebuild the index"}),
        ("get_library_info", {"library_id": "local/corpus"}),
        ("resolve_library", {"query": "corpus"}),
    ]


def test_the_tools_answer_the_same_over_an_in_memory_store(corpus_index: Path, corpus_calls) -> None:
    over_duckdb = _answers(corpus_index, corpus_calls, memory=False)
    in_memory = _answers(corpus_index, corpus_calls, memory=True)
    assert [error for _, error in over_duckdb[-7:]] == [False, True, True, False, False, False, False]
    assert in_memory == over_duckdb


def test_the_library_tools_answer_the_same_over_an_in_memory_store(libraries_index: Path) -> None:
    calls = [
        ("resolve_library", {"query": "acme"}),
        ("get_library_info", {"library_id": ACME}),
        ("get_docs", {"libraries": [ACME], "topic": "deploy command health check", "max_tokens": 800}),
        ("search_docs", {"query": "health check", "limit": 5}),
        ("get_docs", {"libraries": [ACME], "topic": "qwxzv blorft"}),
    ]
    assert _answers(libraries_index, calls, memory=True) == _answers(libraries_index, calls, memory=False)
