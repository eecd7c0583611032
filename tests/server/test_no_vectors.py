"""An index built with --embeddings none, served with vector ranking: search_docs says the index has
no vectors and how to get them, instead of "0 results, try other words"."""

from __future__ import annotations

from pathlib import Path

from corpus_files import write_corpus

from docs_mcp.indexer import build_index

FILES = {"guides/retries.md": "# Retries\n\nThe client retries a failed request three times with backoff.\n"}


def test_vector_search_on_an_index_without_vectors_says_how_to_build_them(tmp_path: Path, stdio_server) -> None:
    docs = write_corpus(tmp_path / "docs", FILES)
    build_index(docs, tmp_path / "index", embeddings="none")
    with stdio_server(tmp_path / "index", tmp_path / "server.log", "--mode", "vector") as session:
        text = session.error("search_docs", {"query": "retries backoff"})
        assert "no vectors" in text and "--embeddings none" in text
        assert "docs-mcp index" in text and "--mode bm25" in text
    with stdio_server(tmp_path / "index", tmp_path / "server.log") as session:
        assert session.search(query="retries backoff")["hits"]  # hybrid falls back to full text


def test_get_docs_says_so_too(tmp_path: Path, stdio_server) -> None:
    docs = write_corpus(tmp_path / "docs", FILES)
    build_index(docs, tmp_path / "index", embeddings="none")
    with stdio_server(tmp_path / "index", tmp_path / "server.log", "--mode", "vector") as session:
        shape = session.error_shape("get_docs", {"libraries": ["local/docs"], "topic": "retries"})
        assert "no vectors" in shape["message"] and "--mode bm25" in shape["suggestion"]


def test_the_server_log_names_the_ranking_that_really_runs(text_only_index: Path, tmp_path: Path, stdio_server) -> None:
    with stdio_server(text_only_index, tmp_path / "server.log") as session:
        assert session.search(query="retries")["hits"] is not None
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "chunks, full-text ranking: the index has no vectors (built without an embedding model), " in log
    assert "hybrid ranking" not in log
