"""An upstream that never answers tools/list costs discovery list_timeout, not forever: the others are listed."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from gateway_upstreams import UPSTREAM_SERVER

from docs_mcp.server.gateway.gateway_config import GatewayConfig, GatewaySettings
from docs_mcp.server.gateway.records import UpstreamSpec
from docs_mcp.server.gateway.supervisor import Supervisor


def stdio(name: str, catalog: str, **env: str) -> UpstreamSpec:
    return UpstreamSpec(name, sys.executable, (str(UPSTREAM_SERVER), catalog), env)


def test_a_server_that_never_lists_is_left_out_after_list_timeout(tmp_path: Path) -> None:
    settings = replace(GatewaySettings(), list_timeout=1.0)
    config = GatewayConfig(
        upstreams=(stdio("files", "files"), stdio("stuck", "github", UPSTREAM_LIST_SLEEP="30")), settings=settings
    )
    supervisor = Supervisor(config, tmp_path)
    try:
        collected = supervisor.collect()
        stuck = next(status for status in supervisor.statuses() if status.name == "stuck")
    finally:
        supervisor.close()
    assert {tool.server for tool in collected.tools} == {"files"}
    assert collected.problems == {"stuck": "Upstream 'stuck' did not answer within 1 s."}
    assert (stuck.state, stuck.tools, stuck.last_error) == (
        "running",
        None,
        "Upstream 'stuck' did not answer within 1 s.",
    )
