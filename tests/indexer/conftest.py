"""Fixtures for the indexer tests: small corpora written into a temporary folder, the CLI, the model."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from docs_mcp.cli import main


@pytest.fixture
def make_corpus(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Write ``{relative path: text or bytes}`` under a fresh ``docs`` folder and return the folder."""

    def write(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "docs"
        root.mkdir(exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return write


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """Run the real `docs-mcp` entry point in-process: returns (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["docs-mcp", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return exited.value.code or 0, out, err

    return run


@pytest.fixture(scope="session")
def default_embedder():
    """The packaged default embedding model, loaded once per test session (storage tests)."""
    from docs_mcp.indexer.models.loading import load_embedder
    from docs_mcp.indexer.vectors import SESSION_THREADS

    return load_embedder("default", threads=SESSION_THREADS)  # the builds' model: loaded once for both
