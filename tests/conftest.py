"""Fixtures shared by every area's tests.  Keep this file small: fixtures used by one area
live in tests/<area>/conftest.py.

- ``repo_root``:    the repository folder.
- ``shared_dir``:   ``../shared`` next to the repository (team fixtures: conformance, corpora,
                    golden files); tests that use it are skipped, with the reason shown, when absent.
- ``corpus_index``: one real index of the repository's ``corpus/`` with the default embedding
                    model, built once per test session; treat it as read-only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED_DIR.is_dir():
        pytest.skip(f"../shared is absent (looked for {SHARED_DIR})")
    return SHARED_DIR


@pytest.fixture(scope="session")
def corpus_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docs_mcp.indexer import build_index

    index_dir = tmp_path_factory.mktemp("corpus-index") / "index"
    build_index(REPO_ROOT / "corpus", index_dir)
    return index_dir
