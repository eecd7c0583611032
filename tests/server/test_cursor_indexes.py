"""Cursors across real indexes: a rebuild makes them stale, another index's are called another index's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer import build_index
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.errors import InvalidCursorError
from docs_mcp.server.tools.search_docs import search_docs

DOCS = {
    f"guide{n}.md": f"# Guide {n}\n\n## Retries\n\nRetry failed requests with backoff, part {n}.\n" for n in range(8)
}


def first_page(index: Path) -> str:
    live = LiveIndex(index, warm=None)
    try:
        return json.loads(search_docs(live.current(), {"query": "retry backoff", "limit": 2}, "bm25"))["next_cursor"]
    finally:
        live.close()


def next_page_error(index: Path, cursor: str) -> str:
    live = LiveIndex(index, warm=None)
    try:
        with pytest.raises(InvalidCursorError) as caught:
            search_docs(live.current(), {"query": "retry backoff", "limit": 2, "cursor": cursor}, "bm25")
        return caught.value.message
    finally:
        live.close()


def test_a_cursor_from_another_index_is_not_called_stale_and_one_from_before_a_rebuild_is(tmp_path):
    docs = write_corpus(tmp_path / "docs", DOCS)
    one, two = tmp_path / "one", tmp_path / "two"
    build_index(docs, one, embeddings="none")
    build_index(docs, two, embeddings="none")  # the same docs, another index
    cursor = first_page(one)
    assert next_page_error(two, cursor).startswith("The cursor comes from another documentation index")
    build_index(docs, one, embeddings="none")  # a rebuild keeps the index's identity
    assert next_page_error(one, cursor).startswith("The cursor is stale: the documentation index was rebuilt")
