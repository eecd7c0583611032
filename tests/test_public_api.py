"""Each package's ``__init__`` is its public API: ``__all__`` is pinned here, and every name in it
imports.  Changing a list below is an API change: say so in the change's description."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PUBLIC_API = {
    "docs_mcp": ["__version__"],
    "docs_mcp.indexer": [
        "build_index",
        "Progress",
        "write_index",
        "scan_corpus",
        "Embedder",
        "load_model",
        "IndexReader",
        "current_generation",
        "open_generation",
        "open_index",
        "LibrarySpec",
        "requested_spec",
        "list_libraries",
        "remove_library",
        "Chunk",
        "CorpusScan",
        "IndexReport",
        "ModelIdentity",
        "Problem",
        "SourceFile",
        "Strategy",
        "TaxonomyKey",
    ],
    "docs_mcp.server": [
        "ServerSettings",
        "build_server",
        "run_stdio",
        "serve_stdio",
        "Engine",
        "RankingSettings",
        "open_engine",
        "Hit",
        "SearchPage",
        "StoredChunk",
    ],
    "docs_mcp.server.gateway": [
        "CALLER_SCOPE",
        "REQUEST_ID_SCOPE",
        "Caller",
        "GATEWAY_SECTIONS",
        "GatewayConfig",
        "load_gateway_config",
        "GatewayConfigError",
        "Gateway",
        "open_gateway",
    ],
    "docs_mcp.eval": [
        "EvalResult",
        "QueryResult",
        "evaluate",
        "GoldenQuery",
        "RelevantEntry",
        "load_golden",
        "resolve_judgments",
        "Judgment",
        "QueryScores",
        "hit_at_k",
        "mrr_at_k",
        "ndcg_at_k",
        "recall_at_k",
    ],
}


@pytest.mark.parametrize("package", PUBLIC_API)
def test_all_is_pinned(package):
    assert importlib.import_module(package).__all__ == PUBLIC_API[package]


@pytest.mark.parametrize("package", PUBLIC_API)
def test_every_public_name_imports_and_is_defined_where_it_is_exported(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)  # the lazy packages resolve the name here (PEP 562)
        assert value is not None, name
        if hasattr(value, "__module__") and not isinstance(value, str):
            # Exported from our own code, not re-exported from a dependency.
            assert value.__module__.startswith("docs_mcp"), f"{package}.{name} comes from {value.__module__}"


@pytest.mark.parametrize("package", PUBLIC_API)
def test_star_import_gives_exactly_all(package):
    namespace: dict[str, object] = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - the statement users write
    assert sorted(set(namespace) - {"__builtins__"}) == sorted(PUBLIC_API[package])


LAZY_PACKAGES = ["docs_mcp.indexer", "docs_mcp.server", "docs_mcp.server.gateway", "docs_mcp.eval"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_type_checking_imports_are_the_export_list(package):
    """Type checkers read the TYPE_CHECKING block, runtime reads _EXPORTS: they must name the same things."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    block = next(
        node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    imported = {
        (node.module, alias.name) for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    exported = {(f"{package}.{home}", name) for home, names in module._EXPORTS.items() for name in names}
    assert imported == exported


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_lists_its_names(package):
    assert dir(importlib.import_module(package)) == sorted(PUBLIC_API[package])


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_refuses_unknown_names(package):
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module(package).no_such_name  # noqa: B018


def test_the_cli_mounts_without_loading_the_heavy_libraries():
    # `docs-mcp --help`, `keys` and every command's start must not pay for the MCP SDK, DuckDB,
    # numpy or the model runtime: the packages load their names on first use.
    code = (
        "import sys\n"
        "import docs_mcp.cli as cli\n"
        "cli._mount()\n"
        "print(sorted(name for name in ('mcp', 'mcp_types', 'fastembed', 'onnxruntime', 'duckdb', 'numpy') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"
