"""Library test fixtures: three small libraries of our own in one real index, and a real
`docs-mcp serve` subprocess driven through the MCP SDK's stdio client, with the server's
notifications recorded.

- quickweb/quickweb: a Python web framework; declares itself in its root manifest (name,
  aliases, sections by glob), marks its API reference for MCP resources, ships a prompt template.
- pydantix/pydantix: data validation for Python; described by `index` flags only.
- acme/cli: a Go command-line tool; one oversized section with code blocks.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult

from library_corpora import ACME, ACME_FILES, PYDANTIX, PYDANTIX_FILES, QUICKWEB, QUICKWEB_FILES, write_corpus

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
    from docs_mcp.indexer.libraries import requested_spec

    index = tmp_path_factory.mktemp("libraries-index") / "index"
    build_index(library_docs[QUICKWEB], index, library=requested_spec(library_docs[QUICKWEB], None))
    pydantix = requested_spec(library_docs[PYDANTIX], PYDANTIX, name="Pydantix", description="Data validation with typed models.", languages=["python"])
    build_index(library_docs[PYDANTIX], index, library=pydantix)
    build_index(library_docs[ACME], index, library=requested_spec(library_docs[ACME], ACME, name="Acme CLI", languages=["go"], version="1.4"))
    return index


class McpSession:
    """A connected MCP client, called synchronously, with the notifications it received."""

    def __init__(self, portal: BlockingPortal, client: Client, notifications: list[Any]) -> None:
        self._portal = portal
        self.client = client
        self.notifications = notifications

    def call(self, tool: str, arguments: Any) -> CallToolResult:
        return self._portal.call(self.client.call_tool, tool, arguments)

    def json(self, tool: str, arguments: Any) -> dict[str, Any]:
        """The parsed JSON of a successful call (fails the test on an error result)."""
        result = self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    def error(self, tool: str, arguments: Any) -> dict[str, Any]:
        """The parsed error shape of an error result (fails the test on success)."""
        result = self.call(tool, arguments)
        assert result.is_error, result.content[0].text
        shape = json.loads(result.content[0].text)
        assert shape == result.structured_content
        return shape

    def run(self, method: Any, *args: Any) -> Any:
        """Run any other client coroutine method."""
        return self._portal.call(method, *args)


@contextmanager
def serve_over_stdio(index_dir: Path, errlog_path: Path) -> Iterator[McpSession]:
    """Run `docs-mcp serve --index index_dir` as a subprocess; its stderr goes to ``errlog_path``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(index_dir)])
    notifications: list[Any] = []

    async def record(message: Any) -> None:
        notifications.append(message)

    with errlog_path.open("w") as errlog, start_blocking_portal() as portal:
        client = Client(stdio_client(params, errlog=errlog), mode="legacy", message_handler=record)
        with portal.wrap_async_context_manager(client):
            yield McpSession(portal, client, notifications)


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
