"""The parts of the MCP SDK a server answers with, imported without the rest of the SDK.

The SDK's package files (``mcp/__init__.py``, ``mcp/server/__init__.py``) import its client, the
``mcp.types`` models and its high-level server, none of which a server answering ``initialize``,
``tools/list`` and ``tools/call`` uses: 0.3-0.4 CPU-s and 13 MiB of a stdio server's start
(corpus/guide/benchmarks.md).  Importing this module before any other ``mcp`` module defers those
package files (docs_mcp.lazy.deferred_package_init) until something asks the package for a name
of its own (``from mcp import Client``: the gateway, the benchmarks), which then runs them.
server/app.py imports the SDK from here first; tests/server/test_start_imports.py holds it.
"""

from __future__ import annotations

from docs_mcp.lazy import deferred_package_init

deferred_package_init("mcp", "mcp.server")

from mcp.server.context import ServerRequestContext  # noqa: E402 - after the deferral above
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

__all__ = ["MCPError", "Server", "ServerRequestContext"]
