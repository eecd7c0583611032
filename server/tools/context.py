"""What a tool's spec is made with: how searches rank, the remote sources, the gateway (each may be absent)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docs_mcp.server.search.modes import Mode

if TYPE_CHECKING:  # the gateway's and the fetcher's modules load only when a server needs them
    from docs_mcp.server.gateway import Gateway
    from docs_mcp.server.libraries.remote import Sources


@dataclass(frozen=True)
class ToolContext:
    """The server's choices a tool reads when it runs; listing the tools needs none of them."""

    mode: Mode = Mode.hybrid
    sources: Sources | None = None  # read by the library tools when they run
    gateway: Gateway | None = None  # the meta-tools' upstream servers

    def needed_sources(self) -> Sources:
        """The remote sources, for a library tool that runs: a server that runs tools always passes them."""
        if self.sources is None:
            raise RuntimeError("a library tool ran without the server's remote sources")
        return self.sources

    def needed_gateway(self) -> Gateway:
        """The gateway, for a meta-tool that runs: only a server with a gateway offers them."""
        if self.gateway is None:
            raise RuntimeError("a meta-tool ran without the server's gateway")
        return self.gateway
