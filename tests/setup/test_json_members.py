"""Splicing one member in and out of a JSON config file: the rest stays byte for byte, removal is the exact inverse."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.server.errors import ConfigFileError
from docs_mcp.server.setup.json_members import add_item, member_value, parse, remove_item, remove_member, set_member

ENTRY = {"type": "stdio", "command": "docs-mcp", "args": ["serve", "--index", ".docs-mcp"]}

FILES = {
    "absent": "",
    "other server": '{\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  }\n}\n',
    "other settings, 4 spaces": '{\n    "theme": "dark"\n}\n',
    "one line": '{"mcpServers":{"a":{"command":"b"}}}',
    "empty object, one line": "{}",
    "empty container (pretty-printed)": '{\n  "servers": {},\n  "inputs": []\n}\n',
    "JSONC, tabs, comments, trailing commas": (
        '// my config\n{\n\t"servers": {\n\t\t"x": {"type": "stdio", "command": "y"}, // keep me\n\t},\n'
        '\t/* inputs */ "inputs": [],\n}\n'
    ),
    "CRLF": '{\r\n  "mcpServers": {\r\n    "a": {"command": "b"}\r\n  }\r\n}\r\n',
    "BOM": '\ufeff{\n  "mcpServers": {}\n}\n',
}


@pytest.mark.parametrize("container", [["mcpServers"], ["servers"], ["mcp", "servers"]])
@pytest.mark.parametrize("original", FILES.values(), ids=FILES.keys())
def test_set_then_remove_gives_back_the_original_bytes(original, container):
    added = set_member(original, container, "docs-mcp", ENTRY)
    assert member_value(added, container, "docs-mcp") == ENTRY
    assert set_member(added, container, "docs-mcp", ENTRY) == added  # idempotent
    assert remove_member(added, container, "docs-mcp") == original
    if original:  # every other member is still there, with its value
        before, after = parse(original), parse(added)
        for key, value in before.items():
            if key != container[0]:
                assert after[key] == value


def test_the_new_member_follows_the_file_indentation():
    added = set_member(FILES["JSONC, tabs, comments, trailing commas"], ["servers"], "docs-mcp", ENTRY)
    assert (
        '\t\t"docs-mcp": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "docs-mcp",\n\t\t\t"args": ["serve", "--index", ".docs-mcp"]\n\t\t}'
        in added
    )
    assert "// keep me" in added and "/* inputs */" in added
    four = set_member(FILES["other settings, 4 spaces"], ["mcpServers"], "docs-mcp", ENTRY)
    assert '\n    "mcpServers": {\n        "docs-mcp": {\n            "type"' in four
    assert set_member(FILES["one line"], ["mcpServers"], "docs-mcp", ENTRY).count("\n") == 0


def test_a_changed_entry_is_replaced_in_place_and_other_members_keep_their_order():
    text = '{\n  "mcpServers": {\n    "docs-mcp": {"command": "old"},\n    "zeta": {}\n  }\n}\n'
    updated = set_member(text, ["mcpServers"], "docs-mcp", ENTRY)
    assert list(parse(updated)["mcpServers"]) == ["docs-mcp", "zeta"]
    assert member_value(updated, ["mcpServers"], "docs-mcp") == ENTRY


def test_a_member_the_user_added_after_ours_survives_our_removal():
    added = set_member(FILES["other server"], ["mcpServers"], "docs-mcp", ENTRY)
    theirs = set_member(added, ["mcpServers"], "later", {"command": "z"})
    left = remove_member(theirs, ["mcpServers"], "docs-mcp")
    assert set(parse(left)["mcpServers"]) == {"other", "later"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"mcpServers": [1, 2]}', "is not an object"),
        ('{"mcpServers": {', "expected a quoted key"),
        ('{"mcpServers": ', "ends early"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"a": 1} trailing', "unexpected text"),
        ('{"a": /* never closed', "never closed"),
    ],
)
def test_a_file_it_cannot_edit_safely_is_refused_with_the_reason(text, problem):
    with pytest.raises(ConfigFileError, match=problem):
        set_member(text, ["mcpServers", "x"], "docs-mcp", ENTRY, "cfg.json")


@pytest.mark.parametrize(
    "original",
    [
        "",
        '{\n  "enabledMcpjsonServers": ["x"]\n}\n',
        '{\n  "permissions": {"allow": []}\n}\n',
        '{\n  "enabledMcpjsonServers": [\n    "a",\n    "b"\n  ]\n}\n',
    ],
)
def test_an_approval_item_goes_in_and_out_exactly(original):
    added = add_item(original, "enabledMcpjsonServers", "docs-mcp")
    assert "docs-mcp" in parse(added)["enabledMcpjsonServers"]
    assert add_item(added, "enabledMcpjsonServers", "docs-mcp") == added
    assert remove_item(added, "enabledMcpjsonServers", "docs-mcp") == original


_KEYS = st.text(st.characters(codec="utf-8", exclude_characters='"\\\x00'), min_size=1, max_size=6)
_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
_DOCUMENTS = st.dictionaries(
    _KEYS,
    st.recursive(
        _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3), max_leaves=8
    ),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(
    document=_DOCUMENTS,
    indent=st.sampled_from([None, 2, 4, "\t"]),
    servers=st.dictionaries(_KEYS, st.just({"command": "x"}), max_size=3),
)
def test_any_document_round_trips(document, indent, servers):
    document = {k: v for k, v in document.items() if k != "mcpServers"}
    if servers is not None:
        document["mcpServers"] = servers
    original = json.dumps(document, indent=indent, ensure_ascii=False) + "\n"
    added = set_member(original, ["mcpServers"], "docs-mcp", ENTRY)
    assert parse(added)["mcpServers"]["docs-mcp"] == ENTRY
    assert remove_member(added, ["mcpServers"], "docs-mcp") == original
