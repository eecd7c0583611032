"""A release's docs show code from files beside their pages (Sphinx's literalinclude): the code is unpacked with the
pages, read by the include, and searchable, while the package's own code, its tests and the included files
themselves are no documents. pytest 9.2.0's real skipping page and its demo file (registry/README.md), packed into
an sdist that the loopback registry serves in place of tomli 2.0.1's."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import duckdb
from loopback_registry import LoopbackRegistry

from docs_mcp.indexer.sources.packages.archive import included_by_pages, unpack_docs

PYTEST_DOCS = Path(__file__).parent / "registry" / "pytest-9.2.0-docs"
DEMO = "doc/en/example/xfail_demo.py"
OTHERS = {
    "src/_pytest/skipping.py": b"def pytest_runtest_setup(item): ...\n",
    "doc/en/example/tests/test_it.py": b"x = 1\n",
}


def _sdist() -> bytes:
    files = {p.relative_to(PYTEST_DOCS).as_posix(): p.read_bytes() for p in PYTEST_DOCS.rglob("*") if p.is_file()}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, body in {**files, **OTHERS}.items():
            info = tarfile.TarInfo(f"tomli-2.0.1/{name}")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def test_a_docs_folders_code_is_unpacked_beside_its_pages_and_the_packages_own_code_is_not(tmp_path: Path) -> None:
    unpacked = unpack_docs(_sdist(), tmp_path, "tomli-2.0.1.tar.gz")
    assert set(unpacked.files) == {"doc/en/how-to/skipping.rst", DEMO, "doc/en/conf.py"}
    assert [path for path in unpacked.files if not included_by_pages(path)] == ["doc/en/how-to/skipping.rst"]


def test_add_pypi_searches_the_code_a_page_includes_from_the_sphinx_source_folder(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    registry.serve_as_tomli(_sdist())
    index = tmp_path / "index"
    added = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "add", "pypi:tomli==2.0.1", "--index", str(index), "--model", "none"],
        capture_output=True, text=True, env={**os.environ, **registry.environment()}, check=False, timeout=600,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    # The page alone (this sdist has no PKG-INFO); no warning: the include was read.
    assert added.stdout.startswith("added pypi/tomli/v2.0.1: 1 documents, ") and "warning" not in added.stderr
    [database] = index.glob("*/index.duckdb")
    with duckdb.connect(str(database), read_only=True) as conn:
        rows = conn.execute("SELECT chunk_id, text FROM chunks").fetchall()
    [(chunk_id, text)] = [(c, t) for c, t in rows if "def test_hello6" in t]
    assert chunk_id.endswith(
        "skipping.rst#how-to-use-skip-and-xfail-to-deal-with-tests-that-cannot-succeed/xfail-mark-test-functions-as-expected-to-fail"
    )
    assert "xfail_demo.py" not in " ".join(c for c, _ in rows)  # the included file is no document of its own
    assert "pytest_runtest_setup" not in " ".join(t for _, t in rows)  # the package's own code stays out
