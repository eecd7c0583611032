"""Fixtures of the `docs-mcp setup` tests: a small real index, and a temporary project and home folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def docs_index(tmp_path_factory) -> Path:
    from docs_mcp.indexer import build_index

    docs = tmp_path_factory.mktemp("docs")
    (docs / "metadata.json").write_text(json.dumps({"corpus_description": "Acme SDK documentation"}))
    (docs / "retries.md").write_text("# Retries\n\n## Backoff\n\nThe client retries with exponential backoff.\n")
    (docs / "errors.md").write_text("# Errors\n\n## RateLimitError\n\nRaised after the last retry.\n")
    index = tmp_path_factory.mktemp("index") / "index"
    build_index(docs, index, embeddings="none")
    return index


@pytest.fixture
def sandbox(tmp_path, monkeypatch) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "APPDATA"):
        monkeypatch.delenv(variable, raising=False)
    return project, home
