"""The gateway against hostile upstream MCP servers: real processes over stdio (tests/hostile/hostile_upstream.py).

Each misbehaving upstream sits beside a well-behaved one ("ok"): whatever the hostile one
sends, the other's tools stay discoverable, and every cut is stated (tool_discovery's notes,
upstream_status, the tool's description or the result's text).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from docs_mcp.server.gateway.errors import ToolNotFoundError, UpstreamError, UpstreamUnavailableError
from docs_mcp.server.gateway.gateway_config import GatewayConfig, GatewaySettings
from docs_mcp.server.gateway.gateway_service import Gateway
from docs_mcp.server.gateway.records import LOCAL_CALLER, UpstreamSpec
from docs_mcp.server.tools import tool_discovery, tool_execute

HOSTILE = Path(__file__).parent / "hostile_upstream.py"
SETTINGS = GatewaySettings(mode="bm25", list_timeout=60, start_timeout=60, call_timeout=60)


class FrozenClock:
    """Restart back-offs never run out unless the test moves the clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def open_gateway(tmp_path: Path, *behaviours: str, settings: GatewaySettings = SETTINGS, clock=None) -> Gateway:
    specs = tuple(UpstreamSpec(name, command=sys.executable, args=(str(HOSTILE), name)) for name in ("ok", *behaviours))
    config = GatewayConfig(upstreams=specs, settings=settings, base_dir=tmp_path)
    return Gateway(config, tmp_path / "state", embeddings="none", **({"clock": clock} if clock else {}))


@pytest.fixture
def gateways(tmp_path: Path) -> Iterator[list[Gateway]]:
    opened: list[Gateway] = []
    yield opened
    for gateway in opened:
        gateway.close()


def discover(gateway: Gateway, query: str = "summarize a long text", max_results: int = 50) -> dict:
    return tool_discovery.run(gateway, LOCAL_CALLER, {"query": [query], "max_results": max_results})


def status(gateway: Gateway, name: str) -> dict:
    return next(s for s in gateway.status(LOCAL_CALLER)["upstreams"] if s["name"] == name)


def test_a_tool_name_listed_twice_is_dropped_with_a_warning_and_breaks_no_other_upstream(tmp_path, gateways, caplog):
    gateways.append(gateway := open_gateway(tmp_path, "duplicates"))
    found = discover(gateway)
    keys = {result["tool_key"] for result in found["results"]}
    assert {
        "ok:summarize",
        "duplicates:summarize",
    } <= keys  # both upstreams answer (was: "Constraint Error: duplicate key")
    assert found["notes"] == ["duplicates: lists the tool 'search' twice: the first is offered, the other left out"]
    assert "/tmp" not in json.dumps(found) and "Rebuild" not in json.dumps(found)
    assert status(gateway, "duplicates")["notes"] == [
        "lists the tool 'search' twice: the first is offered, the other left out"
    ]
    assert "upstream duplicates lists the tool 'search' twice" in caplog.text
    answer = json.loads(
        tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "duplicates:search", "arguments": {"text": "x"}})
        .content[0]
        .text
    )
    assert answer["tool"] == "search"


def test_a_schema_nested_100_levels_leaves_out_that_tool_not_its_upstream(tmp_path, gateways):
    gateways.append(gateway := open_gateway(tmp_path, "deep"))
    keys = {result["tool_key"] for result in discover(gateway)["results"]}
    assert {"deep:summarize", "deep:echo", "ok:summarize"} <= keys and "deep:nested" not in keys
    assert status(gateway, "deep")["notes"] == [
        "tool 'nested' left out: its input schema nests more than 32 levels deep (gateway.max_schema_depth)"
    ]
    with pytest.raises(ToolNotFoundError):
        tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "deep:nested", "arguments": {}})


def test_a_catalog_of_5000_tools_is_cut_to_the_bound_and_says_so(tmp_path, gateways):
    gateways.append(gateway := open_gateway(tmp_path, "many"))
    found = discover(gateway, "convert file format 12")
    assert (
        "many: lists more than 1000 tools: the first 1000 are offered (gateway.max_tools_per_upstream)"
        in found["notes"]
    )
    assert status(gateway, "many")["tools"] == 1000
    assert any(result["tool_key"].startswith("ok:") for result in discover(gateway)["results"])


def test_a_3_mb_description_is_cut_and_a_3_mb_schema_left_out(tmp_path, gateways):
    gateways.append(gateway := open_gateway(tmp_path, "huge"))
    found = discover(gateway, "translate text between languages")
    verbose = next(result for result in found["results"] if result["tool_key"] == "huge:verbose")
    assert len(verbose["description"]) < 4_100 and verbose["description"].endswith(
        "more characters cut by the gateway]"
    )
    assert found["notes"] == [
        "huge: tool 'verbose': description cut from 3,145,758 to 4,000 characters",
        "huge: tool 'bloated' left out: its input schema takes 3,478,922 bytes as JSON, more than 65,536 (gateway.max_schema_bytes)",
    ]


def test_a_50_mb_result_is_cut_to_the_result_bound_and_says_so(tmp_path, gateways):
    settings = replace(SETTINGS, max_result_bytes=100_000, max_message_bytes=64 * 1024 * 1024)
    gateways.append(gateway := open_gateway(tmp_path, "big-result", settings=settings))
    result = tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "big-result:dump", "arguments": {}})
    assert len(result.content[0].text) == 100_000
    assert result.content[-1].text.startswith(
        "[docs-mcp gateway: the result of big-result:dump is larger than 100,000 bytes"
    )
    assert "52,328,800 bytes of its content were cut" in result.content[-1].text


def test_an_answer_over_the_message_bound_is_dropped_and_the_session_goes_on(tmp_path, gateways):
    settings = replace(SETTINGS, max_message_bytes=8 * 1024 * 1024)
    gateways.append(gateway := open_gateway(tmp_path, "big-result", settings=settings))
    with pytest.raises(
        UpstreamError, match=r"its answer takes 52,428,\d+ bytes, more than the 8,388,608 the gateway reads"
    ):
        tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "big-result:dump", "arguments": {}})
    echo = json.loads(
        tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "big-result:echo", "arguments": {"text": "still here"}})
        .content[0]
        .text
    )
    assert echo["arguments"] == {"text": "still here"} and status(gateway, "big-result")["restarts"] == 0


def test_a_crashed_upstream_s_tools_answer_unavailable_with_the_wait_during_its_back_off(tmp_path, gateways):
    clock = FrozenClock()
    gateways.append(gateway := open_gateway(tmp_path, "crashy", clock=clock))
    for _ in range(2):  # the first restart is immediate; the second waits 1 s, which this frozen clock never lets pass
        discover(gateway)
        with pytest.raises(UpstreamUnavailableError):
            tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "crashy:crash", "arguments": {}})
    with pytest.raises(UpstreamUnavailableError) as down:
        tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "crashy:echo", "arguments": {"text": "x"}})
    assert down.value.message.startswith("Upstream 'crashy' is unavailable: it crashed (connection closed")
    assert down.value.message.endswith("and restarts in 1 s.") and down.value.hint.startswith("Retry in 1 s")
    assert status(gateway, "crashy")["state"] == "crashed"
    clock.now += 2  # the back-off is over: the upstream restarts and its tools answer again
    assert (
        json.loads(
            tool_execute.run(gateway, LOCAL_CALLER, {"tool_key": "crashy:echo", "arguments": {"text": "x"}})
            .content[0]
            .text
        )["tool"]
        == "echo"
    )


def test_a_remote_search_service_that_trickles_its_answer_is_cut_off_and_the_local_engine_answers(
    tmp_path, gateways, hostile
):
    from hostile_site import slow_headers

    url = hostile.route("/catalog/search", slow_headers(b'{"results": []}', every=0.05))
    settings = replace(SETTINGS, search_url=url.removesuffix("/catalog/search"), search_timeout=1.0)
    gateways.append(gateway := open_gateway(tmp_path, settings=settings))
    found = discover(gateway)
    assert (found["provider"], found["fallback_reason"]) == ("local", "TimeoutError: no answer within 1 s")
    assert found["results"][0]["tool_key"] == "ok:summarize"
