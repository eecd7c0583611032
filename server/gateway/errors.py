"""What the gateway reports, in the one tool error shape ``{code, message, recoverable, suggestion}``.

    ToolError (server.core.tool_errors)
    ├── ToolNotFoundError        NOT_FOUND        no docs and no live tool for the key
    ├── InvalidDetailError       INVALID_DETAIL   describe_tool detail is not summary/schema/full
    ├── NoToolError              NO_TOOL          schema/full asked, but the tool is not live
    ├── ArgsTooLargeError        ARGS_TOO_LARGE   tool_execute arguments over the size/depth caps
    ├── PermissionDeniedError    PERMISSION_DENIED the caller's project may not use the tool
    ├── UpstreamUnavailableError UPSTREAM_UNAVAILABLE the server is down, restarting or disabled
    ├── UpstreamTimeoutError     UPSTREAM_TIMEOUT the upstream did not answer in time
    ├── UpstreamError            UPSTREAM_ERROR   the upstream refused the call (JSON-RPC error), or its answer was too large
    └── CatalogUnavailableError  CATALOG_UNAVAILABLE the tool catalog could not be indexed for ranking
    GatewayConfigError (DocsMcpError)  [[upstream]] / tool_permissions / tool docs are invalid

Errors in tool docs files found at load time (caps, YAML) are GatewayConfigError: they stop
the start, like any other bad configuration, rather than surprise an agent later. A meta-tool
argument of the wrong type or range is the contract's InvalidArgumentError (INVALID_INPUT).
"""

from __future__ import annotations

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.core.tool_errors import ToolError

_DISCOVER = "Call tool_discovery to find valid tool keys (server:tool)."


class GatewayConfigError(DocsMcpError):
    """The gateway's configuration (upstreams, permissions, tool docs) is invalid."""

    exit_code = 2


class ToolNotFoundError(ToolError):
    code = "NOT_FOUND"

    def __init__(self, tool_key: str) -> None:
        super().__init__(f"No tool and no tool docs are known for '{tool_key}'.", _DISCOVER)


class InvalidDetailError(ToolError):
    code = "INVALID_DETAIL"

    def __init__(self, detail: object) -> None:
        super().__init__(f"Unknown detail level {detail!r}.", "Use one of: summary, schema, full.")


class NoToolError(ToolError):
    code = "NO_TOOL"

    def __init__(self, tool_key: str) -> None:
        super().__init__(
            f"'{tool_key}' is documented but its server does not offer it now, so its schema is unknown.",
            "Use detail='summary', or check the server with upstream_status.",
        )


class ArgsTooLargeError(ToolError):
    code = "ARGS_TOO_LARGE"


class PermissionDeniedError(ToolError):
    code = "PERMISSION_DENIED"
    recoverable = False


class UpstreamUnavailableError(ToolError):
    code = "UPSTREAM_UNAVAILABLE"


class UpstreamTimeoutError(ToolError):
    code = "UPSTREAM_TIMEOUT"


class UpstreamError(ToolError):
    code = "UPSTREAM_ERROR"


class CatalogUnavailableError(ToolError):
    code = "CATALOG_UNAVAILABLE"
