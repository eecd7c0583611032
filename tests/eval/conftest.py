"""Eval test fixtures: real indexes (DuckDB file, default embedding model) of the skyline fixture corpus, and the CLI."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from docs_mcp import cli
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


@pytest.fixture
def run_cli(monkeypatch, capsys) -> Callable[..., tuple[int, str, str]]:
    """``run_cli(*ARGS)`` runs `docs-mcp ARGS` in process: (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["docs-mcp", *args])
        with pytest.raises(SystemExit) as exited:
            cli.main()
        out, err = capsys.readouterr()
        code = exited.value.code
        return (code if isinstance(code, int) else 0 if code is None else 1), out, err

    return run
