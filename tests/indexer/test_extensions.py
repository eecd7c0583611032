"""The fts extension loads from its PyPI package, offline."""

from __future__ import annotations

import importlib.util

import duckdb
import pytest

from docs_mcp.indexer.errors import ExtensionLoadError
from docs_mcp.indexer.extensions import OFFLINE_CONFIG, extension_path, load_extensions


def test_extension_file_comes_from_its_package() -> None:
    name = "fts"
    path = extension_path(name)
    package_dir = next(iter(importlib.util.find_spec(f"duckdb_extension_{name}").submodule_search_locations))
    assert path.name == f"{name}.duckdb_extension"
    assert path.is_relative_to(package_dir)
    assert path.parent.name == f"v{duckdb.__version__}"


def test_loaded_extensions_work_without_autoloading() -> None:
    conn = duckdb.connect(config=dict(OFFLINE_CONFIG))
    load_extensions(conn)
    loaded = {
        name for (name,) in conn.execute("SELECT extension_name FROM duckdb_extensions() WHERE loaded").fetchall()
    }
    assert "fts" in loaded
    assert conn.execute("SELECT stem('running', 'porter')").fetchone() == ("run",)


def test_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "duckdb_extension_fts" else real(name)
    )
    with pytest.raises(ExtensionLoadError) as caught:
        extension_path("fts")
    assert "duckdb_extension_fts is not installed" in caught.value.message
    assert caught.value.hint == f"Install it: pip install duckdb-extension-fts=={duckdb.__version__}"


def test_unloadable_file_is_our_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    bogus = tmp_path / "fts.duckdb_extension"
    bogus.write_bytes(b"not an extension")
    monkeypatch.setattr("docs_mcp.indexer.extensions.extension_path", lambda name: bogus)
    with pytest.raises(ExtensionLoadError) as caught:
        load_extensions(duckdb.connect(config=dict(OFFLINE_CONFIG)), ("fts",))
    assert str(bogus) in caught.value.message
    assert "pip install" in caught.value.hint
