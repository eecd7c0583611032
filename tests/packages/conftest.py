"""Package-registry fixtures: the loopback registry serving recorded PyPI and npm data, and an index built from it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_registry import LoopbackRegistry, client_for


@pytest.fixture
def registry() -> Iterator[LoopbackRegistry]:
    """A fresh loopback registry (its request log starts empty)."""
    with LoopbackRegistry() as served:
        yield served


@pytest.fixture(scope="session")
def session_registry() -> Iterator[LoopbackRegistry]:
    with LoopbackRegistry() as served:
        yield served


@pytest.fixture(scope="session")
def versions_index(session_registry: LoopbackRegistry, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real index (default model) holding tomli 1.2.3 and 2.0.1 and ms 2.1.3, added from the loopback registry."""
    from docs_mcp.indexer.sources.package import add_package
    from docs_mcp.indexer.sources.packages.refs import parse_package_spec

    index = tmp_path_factory.mktemp("versions") / "index"
    client = client_for(session_registry, index)
    try:
        for spec in ("pypi:tomli==1.2.3", "pypi:tomli==2.0.1", "npm:ms@2.1.3"):
            add_package(index, parse_package_spec(spec), client)
    finally:
        client.close()
    return index
