"""Every tool this server offers, in the order tools/list shows them: the contract's two tools and
search_docs_expanded, the library tools in the order an agent uses them, then the gateway's meta-tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolCall, ToolRegistry, ToolSpec
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.tools import (
    describe_tool,
    get_context7_docs,
    get_doc,
    get_docs,
    get_library_info,
    list_tool_examples,
    read_page,
    resolve_library,
    search_docs,
    search_docs_expanded,
    tool_discovery,
    tool_execute,
    upstream_status,
)
from docs_mcp.server.tools.context import ToolContext

if TYPE_CHECKING:  # the gateway's modules load only for a server that has upstream servers
    from docs_mcp.server.gateway import Gateway
    from docs_mcp.server.libraries.remote import Sources

# Each module's spec(context), in listing order: the tools that read the index, then the gateway's meta-tools
# (in a fixed order: clients that freeze their tool list keep working).
INDEX_TOOLS = (
    search_docs,
    get_doc,
    search_docs_expanded,
    resolve_library,
    get_library_info,
    read_page,
    get_docs,
    get_context7_docs,
)
META_TOOLS = (tool_discovery, tool_execute, describe_tool, list_tool_examples, upstream_status)


def specs(modules: tuple[Any, ...], context: ToolContext) -> list[ToolSpec[Any]]:
    """The tools of ``modules``, made with ``context``."""
    return [module.spec(context) for module in modules]


# Tools that may wait on a documentation site or an upstream server (fetches, tool calls): see capacity.py.
SLOW_TOOLS = ToolRegistry(specs(INDEX_TOOLS + META_TOOLS, ToolContext())).slow_names


def tool_registry(mode: Mode, sources: Sources | None, gateway: Gateway | None = None) -> ToolRegistry:
    """Every tool this server offers, as peers: the index's tools, then the gateway's meta-tools (with a gateway).

    ``sources`` is read by the library tools when they run; listing the tools needs none.
    """
    context = ToolContext(mode, sources, gateway)
    return ToolRegistry(specs(INDEX_TOOLS if gateway is None else INDEX_TOOLS + META_TOOLS, context))


def tool_list(metadata: Mapping[str, Any]) -> list[types.Tool]:
    """Every tool that reads the index, as listed for an index described by ``metadata``."""
    return tool_registry(Mode.hybrid, None).tools(metadata)


def tool_text(index: ServedIndex, name: str, arguments: Mapping[str, Any] | None, mode: Mode = Mode.hybrid) -> str:
    """The text of the index tool ``name`` for ``arguments``, raising what it raises: the command line's
    ``docs-mcp search`` and ``docs-mcp get``."""
    spec = next(module.spec(ToolContext(mode)) for module in INDEX_TOOLS if module.NAME == name)
    return spec.text(ToolCall(index, arguments))
