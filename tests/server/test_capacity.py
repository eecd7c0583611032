"""ToolCapacity on a real event loop: slow tools on threads of their own, a few per caller, and the load report."""

from __future__ import annotations

import threading

import anyio
import pytest

from docs_mcp.server.capacity import TooBusyError, ToolCapacity

SLOW = frozenset({"read_page", "tool_execute"})


def test_a_caller_runs_at_most_its_allowance_of_slow_calls_and_fast_tools_are_not_counted():
    async def main() -> list[str]:
        capacity = ToolCapacity(SLOW, slow_threads=4, slow_per_caller=2)
        seen = []
        async with capacity.claim("read_page", "key:ann") as first, capacity.claim("tool_execute", "key:ann") as second:
            assert first is second is not None  # the slow threads, not the shared ones
            with pytest.raises(TooBusyError, match="already has 2 calls running") as refused:
                async with capacity.claim("read_page", "key:ann"):
                    pass
            seen.append(refused.value.code)
            async with capacity.claim("read_page", "key:bob") as other:  # another caller has its own allowance
                seen.append("bob admitted" if other is first else "?")
            async with capacity.claim("search_docs", "key:ann") as fast:
                seen.append("fast on shared threads" if fast is None else "?")
            seen.append(str(capacity.load()["slow_calls_per_caller"]))
        async with capacity.claim("read_page", "key:ann"):  # the allowance comes back when calls end
            seen.append(str(capacity.load()["slow_calls_per_caller"]))
        return seen

    assert anyio.run(main) == [
        "TOO_BUSY",
        "bob admitted",
        "fast on shared threads",
        "{'busiest': 2, 'limit': 2}",
        "{'busiest': 1, 'limit': 2}",
    ]


def test_load_says_busy_when_slow_calls_wait_and_saturated_when_any_call_waits_for_the_shared_threads():
    async def main() -> tuple[dict, dict]:
        capacity = ToolCapacity(SLOW, slow_threads=1, slow_per_caller=5)
        shared = anyio.to_thread.current_default_thread_limiter()
        shared.total_tokens = 1
        gate = threading.Event()

        async def slow_call() -> None:
            async with capacity.claim("read_page", "local") as threads:
                await anyio.to_thread.run_sync(gate.wait, limiter=threads)

        async with anyio.create_task_group() as group:
            group.start_soon(slow_call)
            group.start_soon(slow_call)
            while capacity.load()["slow_threads"]["waiting"] < 1:
                await anyio.sleep(0)
            busy = capacity.load()
            group.start_soon(anyio.to_thread.run_sync, gate.wait)
            group.start_soon(anyio.to_thread.run_sync, gate.wait)
            while capacity.load()["tool_threads"]["waiting"] < 1:
                await anyio.sleep(0)
            saturated = capacity.load()
            gate.set()
        return busy, saturated

    busy, saturated = anyio.run(main)
    assert (busy["status"], busy["slow_threads"], busy["tool_threads"]["waiting"]) == (
        "busy",
        {"in_use": 1, "limit": 1, "waiting": 1},
        0,
    )
    assert (saturated["status"], saturated["tool_threads"]) == ("saturated", {"in_use": 1, "limit": 1, "waiting": 1})
