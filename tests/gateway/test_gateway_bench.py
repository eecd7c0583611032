"""`bench-gateway`'s measurement on one real upstream: every figure is measured, none is made up."""

from __future__ import annotations

import sys
from pathlib import Path

from gateway_upstreams import UPSTREAM_SERVER

from docs_mcp.eval.bench_gateway import bench_gateway, render_gateway_bench
from docs_mcp.server.gateway import load_gateway_config


def test_bench_times_discovery_execute_and_the_direct_call(tmp_path: Path) -> None:
    config = tmp_path / "docs-mcp.toml"
    config.write_text(
        f'[[upstream]]\nname = "slack"\ncommand = "{sys.executable}"\nargs = ["{UPSTREAM_SERVER}", "slack"]\n',
        encoding="utf-8",
    )
    result = bench_gateway(
        load_gateway_config(config),
        ["send a chat message", "react with an emoji"],
        "slack:post_message",
        {"channel": "#x", "text": "hi"},
        rounds=5,
    )
    assert (result.upstreams, result.tools, result.rounds) == (1, 11, 5)
    figures = (
        result.discovery_p50,
        result.discovery_p95,
        result.discovery_uncached_p50,
        result.execute_p50,
        result.direct_p50,
    )
    assert all(figure > 0 for figure in figures)
    assert result.as_json()["execute_overhead"] == round(result.execute_p50 - result.direct_p50, 2)
    assert "1 upstream servers, 11 tools" in render_gateway_bench(result)
