"""The server's kernel, shared by every product that offers tools: contract, libraries and gateway.

Owns what a tool call needs whichever product answers it: the live index and its generation
leases (``live_index``), the tool error shape and ``ToolError`` (``tool_errors``), the one
argument validator (``arguments``) and the tool registry (``registry``: each product registers
its tools as ``ToolSpec`` peers; the registry parses, runs and renders every answer once).
It may import the search engine, the indexer's read side and ``docs_mcp.server.errors``;
never a product (contract, libraries, gateway, team) or the server factory.
"""
