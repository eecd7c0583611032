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

from typing import Any, TypeVar

from docs_mcp.lazy import deferred_package_init

deferred_package_init("mcp", "mcp.server")

from mcp.server._otel import OpenTelemetryMiddleware  # noqa: E402 - after the deferral above
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

__all__ = ["MCPError", "Server", "ServerRequestContext", "without_idle_tracing"]

AnyServer = TypeVar("AnyServer", bound=Server[Any])


def without_idle_tracing(server: AnyServer) -> AnyServer:
    """``server`` without the SDK's OpenTelemetry middleware when nothing receives its spans; ``server`` itself.

    The SDK wraps every request in a span, a no-op until a tracer provider is configured (opentelemetry-sdk
    set up in the process, or ``OTEL_PYTHON_TRACER_PROVIDER``), which docs-mcp never does itself: the no-op
    span still cost 30-40 us of every request (a ``ping`` 0.41 -> 0.38 ms of CPU). The SDK documents dropping
    it from ``Server.middleware`` as the way to opt out; with a provider configured it stays.
    """
    from opentelemetry import trace

    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        server.middleware[:] = [item for item in server.middleware if not isinstance(item, OpenTelemetryMiddleware)]
    return server
