"""Gateway fixtures: our upstream servers (five over stdio, one over streamable HTTP), a config file
naming them, and one real `docs-mcp serve --config` subprocess driven through the MCP SDK client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_files import write_corpus
from gateway_upstreams import http_upstream, write_gateway_config
from mcp_session import McpSession, serve_over_stdio


@pytest.fixture(scope="session")
def http_upstream_url() -> Iterator[str]:
    with http_upstream() as url:
        yield url


@pytest.fixture(scope="session")
def gateway_config(tmp_path_factory: pytest.TempPathFactory, http_upstream_url: str) -> Path:
    return write_gateway_config(tmp_path_factory.mktemp("gateway"), http_upstream_url)


@pytest.fixture(scope="session")
def docs_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full-text-only index of one page: the documentation tools served beside the meta-tools."""
    from docs_mcp.indexer import build_index

    root = tmp_path_factory.mktemp("gateway-docs")
    docs = write_corpus(root / "docs", {"guide.md": "# Guide\n\n## Tokens\n\nCall `get_token` first.\n"})
    build_index(docs, root / "index", embeddings="none")
    return root / "index"


@pytest.fixture(scope="session")
def gateway_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gateway-logs") / "serve.log"


@pytest.fixture(scope="session")
def gateway(docs_index: Path, gateway_config: Path, gateway_log: Path) -> Iterator[McpSession]:
    """`docs-mcp serve --config` over stdio with the eight upstreams, shared by the gateway tests."""
    with serve_over_stdio(docs_index, gateway_log, "--config", str(gateway_config)) as session:
        yield session


def audit_lines(log: Path) -> list[dict[str, Any]]:
    """The audit records (JSON lines with an ``event``) the server wrote to its stderr so far."""
    records = []
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.startswith("{") and '"event"' in line:
            records.append(json.loads(line))
    return records


@pytest.fixture
def audit(gateway_log: Path):
    return lambda: audit_lines(gateway_log)
