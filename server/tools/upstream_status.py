"""upstream_status: the state of each connected MCP server the caller may use (running, stopped, crashed and when
it restarts) and its tool count; what runs it only for the local user."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.gateway.records import Caller
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.meta_tools import READ_ONLY, meta_spec

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway

NAME = "upstream_status"
DESCRIPTION = (
    "Use it when a connected server's tools fail or are missing: the state of each connected MCP server "
    "(running, stopped, crashed and when it restarts) and its tool count."
)
SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def run(
    gateway: Gateway, caller: Caller, arguments: Mapping[str, Any] | None, request_id: str | None = None
) -> dict[str, Any]:
    """The upstreams' states.

    Raises:
        PermissionDeniedError: a caller that may use nothing.
    """
    return gateway.status(caller)


def spec(context: ToolContext) -> ToolSpec[Any]:
    return meta_spec(
        context, types.Tool(name=NAME, description=DESCRIPTION, input_schema=SCHEMA, annotations=READ_ONLY), run
    )
