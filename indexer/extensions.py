"""DuckDB's fts extension, loaded from its PyPI wheel so no command needs the network.

The wheel ``duckdb-extension-fts`` ships one ``*.duckdb_extension`` file built for the
pinned duckdb version; we ``LOAD`` it by path and never ``INSTALL`` (which would download
from DuckDB's servers). Vectors need no extension: they are plain ``FLOAT[n]`` columns,
scored by the server in numpy.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb

from docs_mcp.indexer.errors import ExtensionLoadError
from docs_mcp.indexer.faults import fault_point

EXTENSIONS = ("fts",)

# Autoloading would fetch a missing extension from the network mid-query; we load ours explicitly.
OFFLINE_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def extension_path(name: str) -> Path:
    """The ``.duckdb_extension`` file of the installed ``duckdb-extension-<name>`` package.

    Raises:
        ExtensionLoadError: the package is not installed or holds no extension file.
    """
    package = f"duckdb_extension_{name}"
    hint = f"Install it: pip install duckdb-extension-{name}=={duckdb.__version__}"
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionLoadError(f"The DuckDB extension package {package} is not installed.", hint)
    folders = [Path(location) for location in spec.submodule_search_locations]
    files = sorted(path for folder in folders for path in folder.rglob(f"{name}.duckdb_extension"))
    if not files:
        raise ExtensionLoadError(f"The package {package} holds no {name}.duckdb_extension file.", hint)
    # A wheel ships one file under extensions/v<duckdb version>/; prefer the running version's.
    matching = [path for path in files if path.parent.name == f"v{duckdb.__version__}"]
    return (matching or files)[0]


def load_extensions(conn: duckdb.DuckDBPyConnection, names: tuple[str, ...] = EXTENSIONS) -> None:
    """``LOAD`` each extension into ``conn`` from its package file.

    Raises:
        ExtensionLoadError: a package is missing, or its file does not load into this duckdb.
    """
    for name in names:
        path = extension_path(name)
        try:
            fault_point("load")
            conn.execute(f"LOAD '{_sql_text(str(path))}'")
        except duckdb.Error as error:
            raise ExtensionLoadError(
                f"Could not load the DuckDB {name} extension from {path}: {error}",
                f"Reinstall matching versions: pip install duckdb=={duckdb.__version__} duckdb-extension-{name}=={duckdb.__version__}",
            ) from error


def _sql_text(value: str) -> str:
    # LOAD takes no bound parameters; quote the path as an SQL string literal.
    return value.replace("'", "''")
