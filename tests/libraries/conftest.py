"""Library test fixtures: three small libraries of our own in one real index, and a real
`docs-mcp serve` subprocess driven through the MCP SDK's stdio client, with the server's
notifications recorded.

- quickweb/quickweb: a Python web framework; declares itself in its root manifest (name,
  aliases, sections by glob), marks its API reference for MCP resources, ships a prompt template.
- pydantix/pydantix: data validation for Python; described by `index` flags only.
- acme/cli: a Go command-line tool; one oversized section with code blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from library_corpora import ACME, ACME_FILES, PYDANTIX, PYDANTIX_FILES, QUICKWEB, QUICKWEB_FILES, write_corpus
from mcp_session import McpSession, serve_over_stdio


@pytest.fixture(scope="session")
def library_docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The three corpora, written once."""
    root = tmp_path_factory.mktemp("library-docs")
    return {
        QUICKWEB: write_corpus(root / "quickweb", QUICKWEB_FILES),
        PYDANTIX: write_corpus(root / "pydantix", PYDANTIX_FILES),
        ACME: write_corpus(root / "acme", ACME_FILES),
    }


@pytest.fixture(scope="session")
def libraries_index(library_docs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real index (default embedding model) holding the three libraries."""
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    index = tmp_path_factory.mktemp("libraries-index") / "index"
    build_index(library_docs[QUICKWEB], index, library=requested_spec(library_docs[QUICKWEB], None))
    pydantix = requested_spec(
        library_docs[PYDANTIX],
        PYDANTIX,
        name="Pydantix",
        description="Data validation with typed models.",
        languages=["python"],
    )
    build_index(library_docs[PYDANTIX], index, library=pydantix)
    build_index(
        library_docs[ACME],
        index,
        library=requested_spec(library_docs[ACME], ACME, name="Acme CLI", languages=["go"], version="1.4"),
    )
    return index


@pytest.fixture(scope="session")
def libraries_server(libraries_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    """One `docs-mcp serve` over the three-library index, shared by the tests that only read."""
    log = tmp_path_factory.mktemp("logs") / "libraries-server.log"
    with serve_over_stdio(libraries_index, log) as session:
        yield session


@pytest.fixture
def fresh_server(libraries_index: Path, tmp_path: Path) -> Iterator[McpSession]:
    """A server of its own, for tests that need a fresh session (resolved libraries, notifications)."""
    with serve_over_stdio(libraries_index, tmp_path / "server.log") as session:
        yield session
