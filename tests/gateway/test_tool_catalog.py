"""The available tool list: collected at request time, reused within the TTL, never older than it."""

from __future__ import annotations

from dataclasses import dataclass, field

from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.supervisor import Collected
from docs_mcp.server.gateway.tool_catalog import ToolCatalog


@dataclass
class CountingUpstreams:
    """Stands in for the supervisor: each collection lists one more tool than the last."""

    calls: int = 0
    problems: dict[str, str] = field(default_factory=dict)

    def collect(self) -> Collected:
        self.calls += 1
        return Collected(tuple(ToolEntry("s", f"tool_{n}") for n in range(self.calls)), dict(self.problems))


def test_the_list_is_reused_within_the_ttl_and_collected_again_after() -> None:
    now = [100.0]
    upstreams = CountingUpstreams()
    catalog = ToolCatalog(upstreams, ttl=10.0, clock=lambda: now[0])  # type: ignore[arg-type]
    assert [t.key for t in catalog.tools()] == ["s:tool_0"]
    now[0] += 9.9
    assert len(catalog.tools()) == 1 and upstreams.calls == 1
    now[0] += 0.1  # exactly the TTL: stale
    assert [t.key for t in catalog.tools()] == ["s:tool_0", "s:tool_1"] and upstreams.calls == 2
    catalog.invalidate()
    assert len(catalog.by_key()) == 3 and upstreams.calls == 3
