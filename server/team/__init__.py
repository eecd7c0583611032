"""Team mode: the MCP server over streamable HTTP for a team behind a load balancer.

Owns the HTTP transport, Host/Origin checks, API keys, rate limits (memory or Redis), its
configuration file and environment, JSON access logs, and the ``keys``/``config`` commands.
It may import the server factory, the contract, libraries and search; nothing outside team
mode imports it except the CLI edge (``docs_mcp.server.commands``).
"""
