"""The meta-tools through a real `docs-mcp serve --config` subprocess and the MCP SDK client, against
our eight upstream servers (seven stdio, one streamable HTTP)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from catalogs import CATALOGS
from gateway_upstreams import CALL_TIMEOUT, MAX_ARGUMENT_BYTES

META_TOOLS = {"tool_discovery", "tool_execute", "describe_tool", "list_tool_examples", "upstream_status"}


def discover(gateway, *queries: str, **extra: Any) -> list[dict[str, Any]]:
    return gateway.json("tool_discovery", {"query": list(queries), **extra})["results"]


def echo(result) -> dict[str, Any]:
    """The JSON our upstream servers echo back for a successful call."""
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_tools_list_offers_the_meta_tools_and_the_docs_tools_never_the_upstream_tools(gateway) -> None:
    names = {tool.name for tool in gateway.list_tools()}
    assert META_TOOLS <= names and {"search_docs", "get_doc"} <= names
    assert not names & {"create_issue", "post_message", "query", "fetch_url"}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("squash and land the approved PR", "github:merge_pull_request"),
        ("privately message a colleague", "slack:send_direct_message"),
        ("why is my SQL slow, show the plan", "postgres:explain_query"),
        ("when is everyone available for a 30 minute sync", "calendar:find_free_slots"),
        ("rename a document on disk", "files:move_file"),
        ("export the page as a PDF", "browser:save_pdf"),  # the streamable-HTTP upstream
    ],
)
def test_discovery_ranks_the_right_tool_first(gateway, query: str, expected: str) -> None:
    results = discover(gateway, query, max_results=5)
    assert results[0]["tool_key"] == expected, [r["tool_key"] for r in results]


def test_discovery_results_carry_the_seed_fields_with_calibrated_relevance_best_first(gateway) -> None:
    results = discover(gateway, "run a SELECT against the database", max_results=4)
    top = results[0]
    assert top["tool_key"] == "postgres:query" and (top["tool_name"], top["server_name"]) == ("query", "postgres")
    assert top["output_schema"]["properties"]["rows"] == {"type": "array"}  # from the upstream's tools/list
    assert top["annotations"] == {"readOnlyHint": True, "destructiveHint": False}
    assert top["explanation"] == (
        "description matches run, select; parameters/docs matches select; close in meaning (rank 1 by similarity)"
    )
    relevances = [r["relevance"] for r in results]
    assert relevances == sorted(relevances, reverse=True) and all(0 <= r <= 1 for r in relevances)
    assert len(results) == 4


def test_several_queries_merge_into_one_ranking(gateway) -> None:
    keys = [
        r["tool_key"] for r in discover(gateway, "save text to disk", "react with a thumbs up emoji", max_results=6)
    ]
    assert {"files:write_file", "slack:add_reaction"} <= set(keys[:3])


def test_execute_round_trip_returns_the_upstream_result_as_is(gateway) -> None:
    result = gateway.call(
        "tool_execute", {"tool_key": "slack:post_message", "arguments": {"channel": "#ops", "text": "hi"}}
    )
    assert echo(result) | {"pid": 0} == {
        "server": "slack",
        "tool": "post_message",
        "pid": 0,
        "arguments": {"channel": "#ops", "text": "hi"},
    }
    structured = gateway.call("tool_execute", {"tool_key": "postgres:query", "arguments": {"sql": "SELECT 1"}})
    assert structured.structured_content == {"rows": [], "arguments": {"sql": "SELECT 1"}}
    over_http = gateway.call(
        "tool_execute", {"tool_key": "browser:navigate", "arguments": {"url": "https://example.com"}}
    )
    assert echo(over_http)["server"] == "browser"


def test_an_upstream_tool_error_comes_back_as_the_upstreams_own_error(gateway) -> None:
    result = gateway.call("tool_execute", {"tool_key": "github:list_issues", "arguments": {"_test_fail": True}})
    assert result.is_error and result.content[0].text == "list_issues failed: repository not found"


def error(gateway, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    shape = gateway.error_shape(tool, arguments)
    assert set(shape) == {"code", "message", "recoverable", "suggestion"} and shape["suggestion"]
    return shape


def test_not_found_for_unknown_tools_and_servers(gateway) -> None:
    for tool, arguments in [
        ("tool_execute", {"tool_key": "github:no_such_tool"}),
        ("tool_execute", {"tool_key": "nowhere:query"}),
        ("describe_tool", {"tool_key": "slack:no_such_tool"}),
        ("list_tool_examples", {"tool_key": "slack:no_such_tool"}),
    ]:
        shape = error(gateway, tool, arguments)
        assert shape["code"] == "NOT_FOUND" and "tool_discovery" in shape["suggestion"], shape


def test_invalid_detail_and_invalid_input(gateway) -> None:
    assert (
        error(gateway, "describe_tool", {"tool_key": "github:create_issue", "detail": "everything"})["code"]
        == "INVALID_DETAIL"
    )
    for tool, arguments in [
        ("tool_discovery", {"query": 42}),
        ("tool_discovery", {"query": ["   "]}),
        ("tool_discovery", {"query": ["x"], "max_results": 0}),
        ("tool_discovery", {"query": ["x"], "colour": "red"}),
        ("tool_execute", {"tool_key": "no-colon"}),
        ("tool_execute", {"tool_key": "github:create_issue", "arguments": [1, 2]}),
        ("list_tool_examples", {"tool_key": "github:create_issue", "max": 9}),
    ]:
        assert error(gateway, tool, arguments)["code"] == "INVALID_INPUT", arguments


def test_no_tool_when_a_documented_tool_is_not_live(gateway) -> None:
    summary = gateway.json("describe_tool", {"tool_key": "github:archive_repository"})
    assert summary["live"] is False and summary["summary"].startswith("Archive a repository")
    for detail in ("schema", "full"):
        assert (
            error(gateway, "describe_tool", {"tool_key": "github:archive_repository", "detail": detail})["code"]
            == "NO_TOOL"
        )


def test_args_too_large_by_size_and_by_depth(gateway) -> None:
    big = {"tool_key": "files:write_file", "arguments": {"path": "a.txt", "content": "x" * MAX_ARGUMENT_BYTES}}
    shape = error(gateway, "tool_execute", big)
    assert shape["code"] == "ARGS_TOO_LARGE" and f"at most {MAX_ARGUMENT_BYTES}" in shape["message"]
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(6):
        deep = {"nested": deep}
    assert (
        error(gateway, "tool_execute", {"tool_key": "files:write_file", "arguments": deep})["code"] == "ARGS_TOO_LARGE"
    )


def test_upstream_timeout_and_upstream_error(gateway) -> None:
    slow = error(
        gateway, "tool_execute", {"tool_key": "calendar:list_events", "arguments": {"_test_sleep": 30 * CALL_TIMEOUT}}
    )
    assert slow["code"] == "UPSTREAM_TIMEOUT" and f"{CALL_TIMEOUT} s" in slow["message"]
    refused = error(
        gateway, "tool_execute", {"tool_key": "github:create_issue", "arguments": {"_test_rpc_error": True}}
    )
    assert refused["code"] == "UPSTREAM_ERROR" and "argument 'owner' is required" in refused["message"]
    assert (
        echo(gateway.call("tool_execute", {"tool_key": "calendar:list_events", "arguments": {}}))["tool"]
        == "list_events"
    )


def test_describe_tiers_add_schema_then_notes_and_examples(gateway) -> None:
    key = {"tool_key": "github:create_issue"}
    summary = gateway.json("describe_tool", key)
    assert summary["summary"] == "Open an issue; labels must already exist in the repository."  # the docs' summary
    assert "input_schema" not in summary and summary["live"] is True
    schema = gateway.json("describe_tool", {**key, "detail": "schema"})
    assert schema["input_schema"]["required"] == ["owner", "repo", "title"]  # the upstream's schema, untouched
    assert schema["parameters"][0] == {
        "name": "owner",
        "type": "string",
        "required": True,
        "description": "Account that owns the repository.",
    }
    assert "notes" not in schema
    full = gateway.json("describe_tool", {**key, "detail": "full"})
    assert full["notes"].startswith("Use list_issues first") and len(full["examples"]) == 3
    undocumented = gateway.json("describe_tool", {"tool_key": "postgres:list_tables"})
    assert undocumented["summary"] == "List the tables of a schema with their row estimates."


def test_list_tool_examples_honours_max_and_says_when_there_are_none(gateway) -> None:
    two = gateway.json("list_tool_examples", {"tool_key": "github:create_issue", "max": 2})["examples"]
    assert two == [
        {
            "title": "Report a crash",
            "args": {"owner": "acme", "repo": "api", "title": "Crash on start", "labels": ["bug"]},
        },
        {"title": "Ask a question", "args": {"owner": "acme", "repo": "api", "title": "How do I rotate keys?"}},
    ]
    markdown = gateway.json("list_tool_examples", {"tool_key": "slack:post_message"})["examples"]
    assert markdown == [{"title": "Announce a deploy", "args": {"channel": "#ops", "text": "Deployed v2.3"}}]
    none = gateway.json("list_tool_examples", {"tool_key": "postgres:list_tables"})
    assert none["examples"] == [] and "describe_tool" in none["hint"]


def test_a_crashed_upstream_is_restarted(gateway) -> None:
    before = echo(gateway.call("tool_execute", {"tool_key": "files:read_file", "arguments": {"path": "a"}}))["pid"]
    crashed = error(gateway, "tool_execute", {"tool_key": "files:read_file", "arguments": {"_test_crash": True}})
    assert crashed["code"] == "UPSTREAM_UNAVAILABLE" and "being restarted" in crashed["message"]
    after = echo(gateway.call("tool_execute", {"tool_key": "files:read_file", "arguments": {"path": "a"}}))
    assert after["pid"] != before
    files = next(u for u in gateway.json("upstream_status", {})["upstreams"] if u["name"] == "files")
    assert files["state"] == "running" and files["restarts"] >= 1 and "connection closed" in files["last_error"]


def test_upstream_status_reports_every_server_and_no_secrets(gateway) -> None:
    gateway.json("tool_discovery", {"query": ["anything"]})  # every upstream has been listed once
    statuses = {u["name"]: u for u in gateway.json("upstream_status", {})["upstreams"]}
    assert list(statuses) == ["github", "files", "postgres", "slack", "calendar", "mail", "helpdesk", "browser"]
    assert all(u["state"] == "running" for u in statuses.values())
    assert {name: u["tools"] for name, u in statuses.items()} == {name: len(tools) for name, tools in CATALOGS.items()}
    assert statuses["browser"]["transport"] == "http" and statuses["github"]["transport"] == "stdio"


def test_every_discovery_and_execution_is_audited_without_arguments(gateway, audit) -> None:
    gateway.call(
        "tool_execute", {"tool_key": "slack:add_reaction", "arguments": {"channel": "C1", "name": "secret-emoji"}}
    )
    discover(gateway, "audit me please")
    records = audit()
    execute = next(
        r for r in reversed(records) if r["event"] == "tool_execute" and r.get("tool_key") == "slack:add_reaction"
    )
    assert (
        execute["outcome"] == "ok" and execute["key"] is None and execute["request_id"] and execute["latency_ms"] >= 0
    )
    assert "arguments" not in execute and "secret-emoji" not in json.dumps(records)
    discovery = next(r for r in reversed(records) if r["event"] == "tool_discovery")
    assert (
        discovery["query"] == ["audit me please"] and discovery["provider"] == "local" and discovery["outcome"] == "ok"
    )
