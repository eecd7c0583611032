"""Every limit a tool's published schema states is enforced before any work, and an error quotes at
most a short prefix of a bad value: the violations are derived from the schemas the server lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from library_corpora import QUICKWEB

HUGE = "x" * 1_000_000
MAX_ERROR_CHARS = 1_500
# A valid call of each tool, to which one violation at a time is added.
VALID = {
    "search_docs": {"query": "routing"},
    "search_docs_expanded": {"query": "routing", "keywords": "route decorator"},
    "get_doc": {"chunk_id": "quickweb/quickweb/index.md"},
    "resolve_library": {"query": "quickweb"},
    "get_library_info": {"library_id": QUICKWEB},
    "read_page": {"path": "quickweb/quickweb/index.md"},
    "get_docs": {"libraries": [QUICKWEB], "topic": "routing"},
    "get_context7_docs": {"library_id": QUICKWEB},
}


def violations(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(argument, value) pairs that break one stated limit each."""
    for name, prop in schema["properties"].items():
        if "maxLength" in prop:
            yield name, "y" * (prop["maxLength"] + 1)
        if "enum" in prop:
            yield name, HUGE
        if "maximum" in prop:
            yield name, prop["maximum"] + 1
        if "minimum" in prop:
            yield name, prop["minimum"] - 1
        if "maxItems" in prop:
            yield name, [prop["items"].get("maxLength", 5) * "z"] * (prop["maxItems"] + 1)
        if "maxLength" in prop.get("items", {}):
            yield name, ["z" * (prop["items"]["maxLength"] + 1)]
        if prop.get("type") == "string":
            yield name, 12345
            yield name, [HUGE]


def _cases(session) -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for tool in session.list_tools():
        cases.append((tool.name, {**VALID[tool.name], HUGE: 1}))  # an unknown, huge argument name
        for name, value in violations(tool.input_schema):
            cases.append((tool.name, {**VALID[tool.name], name: value}))
    return cases


def test_every_published_limit_is_enforced_with_a_short_error(libraries_server) -> None:
    cases = _cases(libraries_server)
    assert len(cases) > 30
    for tool, arguments in cases:
        result = libraries_server.call(tool, arguments)
        shown = {k: (v if len(repr(v)) < 60 else f"{repr(v)[:60]}...") for k, v in arguments.items() if len(k) < 60}
        text = result.content[0].text
        assert result.is_error, f"{tool}({shown}) was accepted: {text[:200]}"
        assert len(text) <= MAX_ERROR_CHARS, f"{tool}({shown}) answered {len(text)} characters"


def test_a_huge_library_id_is_refused_before_any_lookup(libraries_server) -> None:
    # 3 MB: the most the stdio transport takes in one message is 4 MiB.
    shape = libraries_server.error_shape("read_page", {"path": "index.md", "library_id": "q" * 3_000_000})
    assert shape["code"] == "INVALID_INPUT" and "200" in shape["message"]
    assert len(shape["message"]) < 300


def test_a_language_past_the_schema_limit_is_refused(libraries_server) -> None:
    message = libraries_server.error_shape("resolve_library", {"query": "quickweb", "language": "p" * 51})["message"]
    assert "'language'" in message and "50" in message
