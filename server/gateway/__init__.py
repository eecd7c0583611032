"""The tool gateway: upstream MCP servers' tools as a searchable catalog behind fixed meta-tools.

``tool_discovery`` ranks the tools of the configured upstream servers with the search engine
of ``search_docs`` (one chunk per tool, in the catalog's own index generation), ``tool_execute``
forwards a call, ``describe_tool`` / ``list_tool_examples`` give progressive detail from the
live schema and the tool docs, ``upstream_status`` reports each server. Permissions (per
project, over HTTP) and the audit log apply to every call.

The meta-tools themselves (names, schemas, argument checks, specs) are server/tools/, which run them
here. It may import the search engine, the indexer's public API, the kernel's argument helpers and
the libraries' error shape; never the tools, team mode or the app (team mode hands it the caller
through the ASGI scope).

Names load on first use (PEP 562): the CLI imports this package for ``docs-mcp upstream``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.lazy import lazy_exports

# The one list of this package's public names, by home module; __all__ follows its order.
_EXPORTS = {
    "records": ("CALLER_SCOPE", "REQUEST_ID_SCOPE", "Caller"),
    "gateway_config": ("GATEWAY_SECTIONS", "GatewayConfig", "load_gateway_config"),
    "errors": ("GatewayConfigError",),
    "gateway_service": ("Gateway", "open_gateway"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # the same names for type checkers (tests/test_public_api.py keeps the two in step)
    from docs_mcp.server.gateway.errors import GatewayConfigError
    from docs_mcp.server.gateway.gateway_config import GATEWAY_SECTIONS, GatewayConfig, load_gateway_config
    from docs_mcp.server.gateway.gateway_service import Gateway, open_gateway
    from docs_mcp.server.gateway.records import CALLER_SCOPE, REQUEST_ID_SCOPE, Caller
