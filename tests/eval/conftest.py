"""Eval test fixtures: real indexes (DuckDB file, default embedding model) of the skyline fixture corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.indexer import build_index

SKYLINE = Path(__file__).parent / "fixtures" / "skyline"


@pytest.fixture(scope="session")
def skyline_index(tmp_path_factory) -> Path:
    """The skyline corpus indexed with the default model: hybrid, bm25 and vector all work."""
    out = tmp_path_factory.mktemp("skyline") / "index"
    build_index(SKYLINE / "docs", out)
    return out


@pytest.fixture(scope="session")
def skyline_text_index(tmp_path_factory) -> Path:
    """The skyline corpus indexed without embeddings: full-text only."""
    out = tmp_path_factory.mktemp("skyline-text") / "index"
    build_index(SKYLINE / "docs", out, embeddings="none")
    return out
