"""A small upstream MCP server for the gateway tests: `python upstream_server.py CATALOG [--http]`.

It offers the tools of one catalog (tests/gateway/catalogs.py) over stdio, or over streamable
HTTP on 127.0.0.1 (a free port, printed as "listening PORT"). Every call answers with its
arguments echoed. Four test hooks, which no catalog lists: ``_test_crash`` exits the process
at once, ``_test_sleep`` (seconds) delays the answer, ``_test_fail`` answers with an isError result,
``_test_rpc_error`` with a JSON-RPC error. ``UPSTREAM_LIST_SLEEP`` (seconds, environment) delays tools/list.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).parent))
from catalogs import CATALOGS, input_schema  # noqa: E402

ROWS_SCHEMA = {"type": "object", "properties": {"rows": {"type": "array"}, "arguments": {"type": "object"}}}


def _annotations(name: str) -> types.ToolAnnotations:
    read_only = name.startswith(
        ("list_", "get_", "read_", "search_", "query", "describe_", "explain_", "find_", "fetch_", "extract_")
    )
    return types.ToolAnnotations(read_only_hint=read_only, destructive_hint=name.startswith("delete_"))


def build(catalog: str) -> Server[Any]:
    tools = [
        types.Tool(
            name=name,
            description=description,
            input_schema=input_schema(params),
            annotations=_annotations(name),
            output_schema=ROWS_SCHEMA if name == "query" else None,
        )
        for name, description, params in CATALOGS[catalog]
    ]
    names = {tool.name for tool in tools}

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        await anyio.sleep(float(os.environ.get("UPSTREAM_LIST_SLEEP", "0")))  # a server too slow to list
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if params.name not in names:
            return types.CallToolResult(content=[types.TextContent(text=f"unknown tool {params.name}")], is_error=True)
        if arguments.pop("_test_crash", False):
            os._exit(3)
        if arguments.get("_test_sleep"):
            await anyio.sleep(float(arguments.pop("_test_sleep")))
        if arguments.pop("_test_rpc_error", False):
            raise MCPError(types.INVALID_PARAMS, f"{params.name}: argument 'owner' is required")
        if arguments.pop("_test_fail", False):
            return types.CallToolResult(
                content=[types.TextContent(text=f"{params.name} failed: repository not found")], is_error=True
            )
        echo = {"server": catalog, "tool": params.name, "arguments": arguments, "pid": os.getpid()}
        structured = {"rows": [], "arguments": arguments} if params.name == "query" else None
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(echo, sort_keys=True))], structured_content=structured
        )

    return Server(f"test-{catalog}", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(catalog: str) -> None:
    server = build(catalog)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(catalog: str) -> None:
    import contextlib
    import socket

    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(app=build(catalog), stateless=True, json_response=True)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        async with manager.run():
            yield

    class Mcp:  # an ASGI app object: Starlette routes a plain function as a GET-only request handler
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    app = Starlette(routes=[Route("/mcp", Mcp())], lifespan=lifespan)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"listening {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv[2:]:
        serve_http(sys.argv[1])
    else:
        anyio.run(serve_stdio, sys.argv[1])
