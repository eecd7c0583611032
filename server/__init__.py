"""The MCP server: reads an index built by docs_mcp.indexer through its index store.

It writes an index only through the indexer's one writer (``indexer.build.write_source``), when a
library tool fetches an llms.txt library's pages (``indexer.sources.service.SourceService``).

Names load on first use (PEP 562): importing ``docs_mcp.server.commands`` for
the CLI must not pull in the MCP SDK, duckdb and numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.lazy import lazy_exports
from docs_mcp.server.core.sdk_models import watch_sdk_imports

# Before anything imports the MCP SDK: its protocol models are built on first use (core/sdk_models.py).
watch_sdk_imports()

# The one list of this package's public names, by home module; __all__ follows its order.
_EXPORTS = {
    "app": ("ServerSettings", "build_server", "run_stdio", "serve_stdio"),
    "search.engine": ("Engine", "RankingSettings", "open_engine"),
    "search.records": ("Hit", "SearchPage", "StoredChunk"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # the same names for type checkers (tests/test_public_api.py keeps the two in step)
    from docs_mcp.server.app import ServerSettings, build_server, run_stdio, serve_stdio
    from docs_mcp.server.search.engine import Engine, RankingSettings, open_engine
    from docs_mcp.server.search.records import Hit, SearchPage, StoredChunk
