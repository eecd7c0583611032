"""Records of the gateway: upstream servers, the tools they offer, and who is asking."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

TOOL_KEY_SEPARATOR = ":"


@dataclass(frozen=True)
class UpstreamSpec:
    """One upstream MCP server from ``[[upstream]]``: a stdio command or a streamable-HTTP URL."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    enabled: bool = True

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def describe(self) -> str:
        """What it runs, for `upstream list` and the status tool; env values are never shown (secrets)."""
        if self.url:
            return self.url
        return " ".join([self.command, *self.args])


@dataclass(frozen=True)
class ToolEntry:
    """One upstream tool as listed by ``tools/list``, under its gateway key ``server:tool``."""

    server: str
    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] | None = None
    title: str = ""

    @property
    def key(self) -> str:
        return f"{self.server}{TOOL_KEY_SEPARATOR}{self.name}"


@dataclass(frozen=True)
class Caller:
    """Who asks: an API key's name and project over HTTP, or the trusted local user over stdio."""

    key_name: str | None = None
    project: str | None = None
    trusted: bool = False  # stdio: local and trusted, every tool is allowed


LOCAL_CALLER = Caller(key_name=None, project=None, trusted=True)
# Where team mode leaves, in an HTTP request's ASGI scope, its Caller (auth) and its request ID (access log).
CALLER_SCOPE = "docs_mcp.gateway.caller"
REQUEST_ID_SCOPE = "docs_mcp.request_id"


def split_tool_key(tool_key: str) -> tuple[str, str] | None:
    """``(server, tool)`` of ``server:tool``; None when the key has no server part or no tool part."""
    server, sep, name = tool_key.partition(TOOL_KEY_SEPARATOR)
    if not sep or not server or not name:
        return None
    return server, name
