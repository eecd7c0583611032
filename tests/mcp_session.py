"""A real `docs-mcp serve` subprocess driven through the MCP SDK's stdio client from plain sync
tests; shared by every area's tests (tests/ is on sys.path)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult


class McpSession:
    """A connected MCP client, called synchronously, with the notifications it received."""

    def __init__(self, portal: BlockingPortal, client: Client, notifications: list[Any]) -> None:
        self._portal = portal
        self.client = client
        self.notifications = notifications  # the server's notification messages, in arrival order

    def notification_methods(self) -> list[str]:
        return [getattr(getattr(m, "root", m), "method", "") for m in self.notifications]

    def list_tools(self) -> list[Any]:
        return self._portal.call(lambda: self.client.list_tools(cache_mode="refresh")).tools

    def input_schema(self, tool: str) -> dict[str, Any]:
        return next(listed for listed in self.list_tools() if listed.name == tool).input_schema

    def call(self, tool: str, arguments: Any) -> CallToolResult:
        return self._portal.call(self.client.call_tool, tool, arguments)

    def run(self, method: Any, *args: Any) -> Any:
        """Run any other client coroutine method."""
        return self._portal.call(method, *args)

    def text(self, tool: str, arguments: Any) -> str:
        """The text of a successful call (fails the test on an error result)."""
        result = self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.content[0].text

    def json(self, tool: str, arguments: Any) -> dict[str, Any]:
        """The parsed JSON of a successful call (fails the test on an error result)."""
        return json.loads(self.text(tool, arguments))

    def search(self, **arguments: Any) -> dict[str, Any]:
        """search_docs, with the JSON SearchResult parsed."""
        return self.json("search_docs", arguments)

    def error(self, tool: str, arguments: Any) -> str:
        """The text of an error result (fails the test on success)."""
        result = self.call(tool, arguments)
        assert result.is_error, result.content[0].text
        assert len(result.content) == 1
        return result.content[0].text

    def error_shape(self, tool: str, arguments: Any) -> dict[str, Any]:
        """The parsed {code, message, recoverable, suggestion} of an error result."""
        result = self.call(tool, arguments)
        assert result.is_error, result.content[0].text
        shape = json.loads(result.content[0].text)
        assert shape == result.structured_content
        return shape

    def alive(self) -> bool:
        """The server still answers (ping is deprecated in the SDK, so ask for the tool list)."""
        return "search_docs" in {tool.name for tool in self.list_tools()}


@contextmanager
def serve_over_stdio(
    index_dir: Path | None, errlog_path: Path, *extra: str, env: dict[str, str] | None = None
) -> Iterator[McpSession]:
    """Run `docs-mcp serve --index index_dir` as a subprocess; its stderr goes to ``errlog_path``.

    With ``index_dir`` None the server is given no --index (it reads DOCS_MCP_INDEX or the config file).

    ``env`` adds variables to the SDK's default (safe, minimal) environment of the subprocess. The
    curated library list and the registry lookups are left out unless ``env`` asks for them: they live on the internet.
    """
    # Nor are PyPI and npm asked about unknown names (resolve_library's live lookups): the suite stays off the network.
    env = {"DOCS_MCP_CURATED_LIBRARIES": "0", "DOCS_MCP_REGISTRY_LOOKUPS": "0", **(env or {})}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "serve", *(["--index", str(index_dir)] if index_dir else []), *extra],
        env=env,
    )
    notifications: list[Any] = []

    async def record(message: Any) -> None:
        notifications.append(message)

    with errlog_path.open("w") as errlog, start_blocking_portal() as portal:
        client = Client(stdio_client(params, errlog=errlog), mode="legacy", message_handler=record)
        with portal.wrap_async_context_manager(client):
            yield McpSession(portal, client, notifications)
