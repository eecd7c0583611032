"""What the server knows of a tool comes from the tool's own module: its spec says whether it is slow, which cursor a
call continues and what runs after it; its schema states the default and range its parser applies."""

from __future__ import annotations

import copy

import pytest

from docs_mcp.server.core.arguments import integer
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.tools import (
    get_context7_docs,
    get_doc,
    get_docs,
    get_library_info,
    list_tool_examples,
    read_page,
    search_docs,
    tool_discovery,
)
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.offered import INDEX_TOOLS, META_TOOLS, SLOW_TOOLS, specs, tool_registry

# A valid call of each tool with an integer argument, and how to check one with its parser.
VALID = {
    search_docs: ({"query": "retry"}, lambda arguments: search_docs.parse_search_args(arguments, {})),
    get_doc: ({"chunk_id": "guide/retries.md"}, get_doc.parse_get_doc_args),
    get_library_info: ({"library_id": "acme/sdk"}, get_library_info.parse),
    read_page: ({"path": "guide/retries.md"}, read_page.parse),
    get_docs: ({"libraries": ["acme/sdk"], "topic": "retries"}, get_docs.parse),
    get_context7_docs: ({"library_id": "acme/sdk"}, get_context7_docs.parse),
    tool_discovery: ({"query": ["send a message"]}, tool_discovery.parse),
    list_tool_examples: ({"tool_key": "chat:send"}, list_tool_examples.parse),
}
INTEGERS = [
    (module, name, stated)
    for module in VALID
    for name, stated in (module.BASE_SCHEMA if module is search_docs else module.SCHEMA)["properties"].items()
    if stated["type"] == "integer"
]


def test_an_integer_argument_takes_its_default_and_range_from_the_schema():
    schema = {"properties": {"depth": {"type": "integer", "minimum": 2, "maximum": 4, "default": 3}}}
    assert integer({}, "depth", schema) == 3
    assert integer({"depth": 4.0}, "depth", schema) == 4
    with pytest.raises(InvalidArgumentError) as caught:
        integer({"depth": 5}, "depth", schema)
    assert (caught.value.message, caught.value.hint) == (
        "Argument 'depth' must be between 2 and 4, got 5.",
        "Pass a whole number from 2 to 4, or leave it out for 3.",
    )
    narrower = copy.deepcopy(schema)
    narrower["properties"]["depth"]["maximum"] = 3
    with pytest.raises(InvalidArgumentError):
        integer({"depth": 4}, "depth", narrower)


@pytest.mark.parametrize(("module", "name", "stated"), INTEGERS, ids=[f"{m.NAME}.{n}" for m, n, _ in INTEGERS])
def test_every_tool_applies_the_default_and_range_its_schema_publishes(module, name, stated):
    arguments, parse = VALID[module]
    assert getattr(parse(arguments), name) == stated["default"]
    assert getattr(parse({**arguments, name: stated["maximum"]}), name) == stated["maximum"]
    with pytest.raises(InvalidArgumentError) as caught:
        parse({**arguments, name: stated["maximum"] + 1})
    assert f"between {stated['minimum']} and {stated['maximum']}" in caught.value.message
    assert f"leave it out for {stated['default']}" in caught.value.hint


def test_the_slow_tools_are_those_whose_spec_says_so():
    every = specs(INDEX_TOOLS + META_TOOLS, ToolContext())
    assert (
        SLOW_TOOLS
        == {spec.name for spec in every if spec.slow}
        == {"read_page", "get_docs", "get_library_info", "get_context7_docs", "tool_execute", "tool_discovery"}
    )
    assert tool_registry(Mode.bm25, None).slow_names == SLOW_TOOLS - {"tool_execute", "tool_discovery"}


def test_only_search_docs_continues_a_cursor_and_only_get_library_info_has_an_after_call_hook():
    every = {spec.name: spec for spec in specs(INDEX_TOOLS + META_TOOLS, ToolContext())}
    assert {name for name, spec in every.items() if spec.cursor({"query": "x", "cursor": "abc"})} == {"search_docs"}
    assert every["search_docs"].cursor({"query": "x", "cursor": "abc"}) == "abc"
    assert every["search_docs"].cursor({"query": "x", "cursor": ""}) is None
    assert every["search_docs"].cursor(None) is None
    assert {name for name, spec in every.items() if spec.after_call is not None} == {"get_library_info"}


def test_an_answer_reaches_the_wire_as_the_sdk_serialises_its_model_in_every_protocol_version(text_only_index):
    """The server hands the SDK its answers as the dict the SDK would dump their CallToolResult to (ToolAnswer.wire);
    validated and dumped for each protocol version the SDK serves, the two are the same."""
    from mcp_types import methods

    from docs_mcp.server.app import ServerSettings, open_live
    from docs_mcp.server.core.tool_registry import ToolAnswer, ToolCall

    live = open_live(text_only_index, ServerSettings(mode=Mode.bm25))
    try:
        spec = tool_registry(Mode.bm25, None).get("search_docs")
        assert spec is not None
        found = spec.answer(ToolCall(live.current(), {"query": "alpha setup"}))
        refused = spec.answer(ToolCall(live.current(), {"query": ""}))
    finally:
        live.close()
    assert isinstance(found, ToolAnswer) and isinstance(refused, ToolAnswer) and refused.is_error
    answers = [found, refused, ToolAnswer("text alone", None, False), ToolAnswer("[]", {"pairs": [(1, "a")]}, True)]
    versions = [version for method, version in methods.SERVER_RESULTS if method == "tools/call"]
    assert len(versions) >= 5
    for answer in answers:
        dumped = answer.result().model_dump(by_alias=True, mode="json", exclude_none=True)
        for version in versions:
            assert methods.serialize_server_result("tools/call", version, answer.wire()) == (
                methods.serialize_server_result("tools/call", version, dumped)
            ), (version, answer.text[:60])
