"""Server test fixtures: a small corpus written for these tests, its real index, and a real
`docs-mcp serve` subprocess driven through the MCP SDK's stdio client from plain sync tests.

The corpus is ours (not corpus/) so that filters, collapse, hints and windows have
known answers however the sample corpus evolves.
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

from docs_mcp.indexer import build_index
from corpus_files import write_corpus

LANGUAGES = ("go", "python", "typescript")

# The same "Retries" section in every language: near-identical twins for vector_collapse.
_RETRIES = (
    "## Retries\n\n"
    "The client retries a failed request up to three times, waiting longer after each attempt "
    "(exponential backoff with jitter). Set `max_retries` to change the number of attempts.\n"
)

TINY_CORPUS: dict[str, str] = {
    "metadata.json": json.dumps(
        {
            "corpus_description": "Acme API guides and client SDK docs",
            "taxonomy": {
                "language": {"description": "Client SDK language.", "vector_collapse": True},
                "scope": {"description": "global-guide or sdk-specific."},
            },
        }
    ),
    ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "guides/pagination.md": "# Pagination\n\nEvery list endpoint pages its results.\n\n"
    + "".join(
        f"## Page topic {n}\n\nPaging detail number {n}: the cursor walks the collection pages in order.\n\n"
        for n in range(1, 8)
    ),
    "guides/errors.md": (
        "# Errors\n\nHow the API reports failures.\n\n"
        "## Status codes\n\nA 429 status means the rate limit was exceeded.\n\n"
        "## Error bodies\n\nEvery error body has a code and a message.\n\n"
        "## Support\n\nContact support with the request ID.\n"
    ),
    **{
        f"sdk/{language}/.docs-mcp.json": json.dumps(
            {"version": "1", "metadata": {"language": language, "scope": "sdk-specific"}}
        )
        for language in LANGUAGES
    },
    **{
        f"sdk/{language}/client.md": (
            f"# {language.title()} client\n\nInstall the {language} client package.\n\n"
            + _RETRIES
            + f"\n## Handling RateLimitError\n\nCatch `RateLimitError` in {language} and wait before retrying.\n"
        )
        for language in LANGUAGES
    },
    "sdk/python/helpers.md": "# Helpers\n\n## snake_case_helper\n\nThe `snake_case_helper` function converts field names.\n",
}


@pytest.fixture(scope="session")
def tiny_index(tmp_path_factory) -> Path:
    """A real index (default embedding model) of TINY_CORPUS."""
    root = tmp_path_factory.mktemp("tiny")
    docs = write_corpus(root / "docs", TINY_CORPUS)
    build_index(docs, root / "index")
    return root / "index"


class McpSession:
    """A connected MCP client, called synchronously through a blocking portal."""

    def __init__(self, portal: BlockingPortal, client: Client, notifications: list[str]) -> None:
        self._portal = portal
        self.client = client
        self.notifications = notifications  # methods of the server's notifications, in arrival order

    def list_tools(self) -> list[Any]:
        return self._portal.call(lambda: self.client.list_tools(cache_mode="refresh")).tools

    def input_schema(self, tool: str) -> dict[str, Any]:
        return next(listed for listed in self.list_tools() if listed.name == tool).input_schema

    def call(self, tool: str, arguments: Any) -> CallToolResult:
        return self._portal.call(self.client.call_tool, tool, arguments)

    def text(self, tool: str, arguments: Any) -> str:
        """The text of a successful call (fails the test on an error result)."""
        result = self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.content[0].text

    def search(self, **arguments: Any) -> dict[str, Any]:
        """search_docs, with the JSON SearchResult parsed."""
        return json.loads(self.text("search_docs", arguments))

    def error(self, tool: str, arguments: Any) -> str:
        """The text of an error result (fails the test on success)."""
        result = self.call(tool, arguments)
        assert result.is_error, result.content[0].text
        assert len(result.content) == 1
        return result.content[0].text

    def alive(self) -> bool:
        """The server still answers (ping is deprecated in the SDK, so ask for the tool list)."""
        return "search_docs" in {tool.name for tool in self.list_tools()}


@contextmanager
def serve_over_stdio(index_dir: Path, errlog_path: Path, *extra: str) -> Iterator[McpSession]:
    """Run `docs-mcp serve --index index_dir` as a subprocess; its stderr goes to ``errlog_path``."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(index_dir), *extra]
    )
    notifications: list[str] = []

    async def record(message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str) and method.startswith("notifications/"):
            notifications.append(method)

    with errlog_path.open("w") as errlog, start_blocking_portal() as portal:
        client = Client(stdio_client(params, errlog=errlog), mode="legacy", message_handler=record)
        with portal.wrap_async_context_manager(client):
            yield McpSession(portal, client, notifications)


@pytest.fixture(scope="session")
def stdio_server():
    """``serve_over_stdio`` for tests that start their own server: ``with stdio_server(index, log) as session``."""
    return serve_over_stdio


@pytest.fixture(scope="session")
def tiny_server(tiny_index, tmp_path_factory) -> Iterator[McpSession]:
    """One `docs-mcp serve` subprocess over the tiny index, shared by the tests that only read."""
    log = tmp_path_factory.mktemp("logs") / "tiny-server.log"
    with serve_over_stdio(tiny_index, log) as session:
        yield session
