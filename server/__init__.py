"""The MCP server: reads an index built by docs_mcp.indexer, never writes it.

Names load on first use (PEP 562): importing ``docs_mcp.server.commands`` for
the CLI must not pull in the MCP SDK, duckdb and numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = [
    "Engine",
    "Hit",
    "SearchPage",
    "ServerSettings",
    "StoredChunk",
    "build_server",
    "open_engine",
    "run_stdio",
    "serve_stdio",
]

_HOMES = {
    "Engine": "search.engine",
    "open_engine": "search.engine",
    "Hit": "search.records",
    "SearchPage": "search.records",
    "StoredChunk": "search.records",
    "ServerSettings": "app",
    "build_server": "app",
    "run_stdio": "app",
    "serve_stdio": "app",
}

if TYPE_CHECKING:
    from docs_mcp.server.app import ServerSettings, build_server, run_stdio, serve_stdio
    from docs_mcp.server.search.engine import Engine, open_engine
    from docs_mcp.server.search.records import Hit, SearchPage, StoredChunk


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
