"""A hostile upstream MCP server for the gateway tests: `python hostile_upstream.py BEHAVIOUR` over stdio.

Behaviours (each a real MCP server built with the SDK, misbehaving in its answers):

- ``many``: 5,000 tools.
- ``huge``: three ordinary tools, one with a 3 MB description and one with a 3 MB input schema.
- ``duplicates``: lists ``search`` twice (two descriptions) beside an ordinary tool.
- ``deep``: one tool whose input schema nests 100 levels, beside an ordinary tool.
- ``big-result``: an ordinary catalog whose ``dump`` tool answers 50 MB of text.
- ``ok``: three ordinary tools (a well-behaved neighbour).

Every behaviour also offers ``crash`` (exits the process at once) and ``echo``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

MB = 1024 * 1024


def _tool(name: str, description: str, schema: dict[str, Any] | None = None) -> types.Tool:
    schema = schema or {"type": "object", "properties": {"text": {"type": "string", "description": "What to work on."}}}
    return types.Tool(name=name, description=description, input_schema=schema)


def _deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"inner": schema}}
    return schema


def catalog(behaviour: str) -> list[types.Tool]:
    ordinary = [
        _tool("echo", "Echo the text back, to check the connection."),
        _tool("crash", "Exit the server process at once (a crash)."),
        _tool("summarize", "Summarize a long text into a few sentences."),
    ]
    if behaviour == "many":
        return ordinary + [
            _tool(f"tool_{n:04d}", f"Tool number {n} of a very large catalog: converts file format {n}.")
            for n in range(5_000)
        ]
    if behaviour == "huge":
        big_schema = {
            "type": "object",
            "properties": {f"field_{n}": {"type": "string", "description": "x" * 300} for n in range(10_000)},
        }
        return ordinary + [
            _tool("verbose", "Translate text between languages. " + "blah " * (3 * MB // 5)),
            _tool("bloated", "Convert units of measure.", big_schema),
        ]
    if behaviour == "duplicates":
        return ordinary + [_tool("search", "Search the wiki for pages."), _tool("search", "Search the issue tracker.")]
    if behaviour == "deep":
        return ordinary + [_tool("nested", "Store a nested configuration document.", _deep_schema(100))]
    if behaviour == "big-result":
        return ordinary + [_tool("dump", "Dump the whole database as text.")]
    return ordinary


def build(behaviour: str) -> Server[Any]:
    tools = catalog(behaviour)

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "crash":
            os._exit(3)
        if params.name == "dump":
            return types.CallToolResult(content=[types.TextContent(text="row " * (50 * MB // 4))])
        text = json.dumps(
            {"server": behaviour, "tool": params.name, "arguments": params.arguments or {}, "pid": os.getpid()}
        )
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server(f"hostile-{behaviour}", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(behaviour: str) -> None:
    server = build(behaviour)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
