"""Gateway benchmark: tool_discovery latency over live upstreams, and what tool_execute adds to a call.

- discovery: golden queries through tool_discovery (arguments, permissions, catalog, ranking,
  audit: everything but the MCP framing), p50/p95 in ms, with the tool list cached (within the TTL)
  and with it collected from every upstream on each call (TTL 0, the worst case);
- execute overhead: p50 of ``tool_execute`` minus p50 of the same ``tools/call`` made directly by
  an MCP client to its own copy of the upstream server, the two alternating call by call so that
  both see the same load on a shared machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from docs_mcp.eval.errors import EvalRunError
from docs_mcp.eval.metrics import percentile
from docs_mcp.server.gateway import Gateway, GatewayConfig
from docs_mcp.server.gateway.records import LOCAL_CALLER, split_tool_key
from docs_mcp.server.tools import tool_discovery, tool_execute


@dataclass(frozen=True)
class GatewayBench:
    """The figures of one run, in milliseconds."""

    upstreams: int
    tools: int
    discovery_p50: float
    discovery_p95: float
    discovery_uncached_p50: float
    execute_p50: float
    direct_p50: float
    rounds: int

    @property
    def execute_overhead(self) -> float:
        return self.execute_p50 - self.direct_p50

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "execute_overhead": round(self.execute_overhead, 2)}


def _timed(run: Callable[[], Any], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return times


def bench_gateway(
    config: GatewayConfig, queries: Sequence[str], tool_key: str, arguments: dict[str, Any], rounds: int = 100
) -> GatewayBench:
    """Time discovery and execution through a gateway over ``config``'s upstreams.

    Raises:
        EvalRunError: no upstream answered, or ``tool_key`` is not one of their tools.
    """
    with_cache = Gateway(config)
    uncached = Gateway(replace(config, settings=replace(config.settings, list_ttl=1e-9)))
    try:
        tools = with_cache.available(LOCAL_CALLER)
        if tool_key not in {t.key for t in tools}:
            raise EvalRunError(f"{tool_key} is not a tool of the configured upstreams.", "Pass --tool SERVER:TOOL.")
        asked = [{"query": [queries[n % len(queries)]], "max_results": 10} for n in range(rounds)]
        ask = iter(asked * 2)
        for gateway in (with_cache, uncached):
            tool_discovery.run(gateway, LOCAL_CALLER, asked[0])  # untimed: model, index, sessions
        cached = _timed(lambda: tool_discovery.run(with_cache, LOCAL_CALLER, next(ask)), rounds)
        fresh = _timed(lambda: tool_discovery.run(uncached, LOCAL_CALLER, next(ask)), max(rounds // 5, 5))
        execute, direct = _execute_and_direct(with_cache, config, tool_key, arguments, rounds)
    finally:
        with_cache.close()
        uncached.close()
    return GatewayBench(
        len(config.enabled),
        len(tools),
        percentile(cached, 50),
        percentile(cached, 95),
        percentile(fresh, 50),
        percentile(execute, 50),
        percentile(direct, 50),
        rounds,
    )


def _execute_and_direct(
    gateway: Gateway, config: GatewayConfig, tool_key: str, arguments: dict[str, Any], rounds: int
) -> tuple[list[float], list[float]]:
    """Timed ``tool_execute`` calls and direct ``tools/call`` calls to a fresh copy of the tool's upstream."""
    server, name = split_tool_key(tool_key) or ("", "")
    spec = next(spec for spec in config.upstreams if spec.name == server)
    target: Any = spec.url or StdioServerParameters(
        command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=config.base_dir
    )
    call = {"tool_key": tool_key, "arguments": arguments}
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(target, mode="legacy", cache=None)) as client,
    ):
        direct_call = partial(portal.call, partial(client.call_tool, name, arguments))
        tool_execute.run(gateway, LOCAL_CALLER, call)
        direct_call()
        execute, direct = [], []
        for _ in range(rounds):
            execute += _timed(lambda: tool_execute.run(gateway, LOCAL_CALLER, call), 1)
            direct += _timed(direct_call, 1)
    return execute, direct


def render_gateway_bench(result: GatewayBench) -> str:
    """A few lines for people."""
    return "\n".join(
        [
            f"{result.upstreams} upstream servers, {result.tools} tools, {result.rounds} rounds",
            f"tool_discovery p50 {result.discovery_p50:.1f} ms, p95 {result.discovery_p95:.1f} ms (tool list cached)",
            f"tool_discovery p50 {result.discovery_uncached_p50:.1f} ms (tool list collected from every upstream per call)",
            f"tool_execute p50 {result.execute_p50:.2f} ms, direct tools/call p50 {result.direct_p50:.2f} ms: "
            f"overhead {result.execute_overhead:.2f} ms",
        ]
    )


def load_bench_config(path: Path) -> GatewayConfig:
    """The gateway config at ``path``.

    Raises:
        EvalRunError: it does not exist, or has no enabled upstream.
    """
    from docs_mcp.eval.gateway_eval import upstreams_config

    return upstreams_config(path, "CONFIG")
