"""Tool docs files: YAML and markdown, and the caps enforced when they are loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.server.gateway.errors import ArgsTooLargeError, GatewayConfigError
from docs_mcp.server.gateway.tooldocs import (
    MAX_ARGS_DEPTH,
    MAX_ARGS_KEYS,
    MAX_EXAMPLES,
    MAX_NOTES,
    MAX_SUMMARY,
    ToolExample,
    check_arguments,
    load_tool_docs,
)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_yaml_and_markdown_docs_load_by_tool_key(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "docs",
        "a.yaml",
        "tool: db:query\nsummary: Run SQL.\nexamples:\n  - title: One\n    args: {sql: SELECT 1}\n",
    )
    write(folder, "b.md", "---\ntool: chat:post\nsummary: Post.\n---\nUse mrkdwn.\n")
    docs = load_tool_docs(folder)
    assert docs["db:query"].examples == (ToolExample("One", {"sql": "SELECT 1"}),)
    assert (docs["chat:post"].summary, docs["chat:post"].notes) == ("Post.", "Use mrkdwn.")
    assert load_tool_docs(tmp_path / "absent") == {}


def test_caps_are_enforced_at_load_and_every_problem_is_named(tmp_path: Path) -> None:
    deep = "{a: " * (MAX_ARGS_DEPTH + 1) + "1" + "}" * (MAX_ARGS_DEPTH + 1)
    examples = "".join(f"  - title: e{n}\n    args: {{}}\n" for n in range(MAX_EXAMPLES + 1))
    folder = write(
        tmp_path / "docs",
        "long.yaml",
        f"tool: a:long\nsummary: {'x' * (MAX_SUMMARY + 1)}\nnotes: {'y' * (MAX_NOTES + 1)}\n",
    )
    write(folder, "many.yaml", f"tool: a:many\nexamples:\n{examples}")
    write(folder, "deep.yaml", f"tool: a:deep\nexamples:\n  - title: deep\n    args: {deep}\n")
    write(
        folder,
        "wide.yaml",
        "tool: a:wide\nexamples:\n  - title: wide\n    args: {"
        + ", ".join(f"k{n}: 1" for n in range(MAX_ARGS_KEYS + 1))
        + "}\n",
    )
    write(folder, "bad.yaml", "tool: no-server\n")
    write(folder, "twice.md", "---\ntool: a:long\n---\n")
    with pytest.raises(GatewayConfigError) as caught:
        load_tool_docs(folder)
    message = caught.value.message
    for expected in (
        f"summary has {MAX_SUMMARY + 1} characters",
        f"notes has {MAX_NOTES + 1} characters",
        f"{MAX_EXAMPLES + 1} examples; at most {MAX_EXAMPLES}",
        "ARGS_TOO_LARGE: the example's args nest deeper",
        f"ARGS_TOO_LARGE: the example's args have an object with {MAX_ARGS_KEYS + 1} keys",
        "tool must be a tool key 'server:tool'",
        "a:long is documented twice",
    ):
        assert expected in message, expected


def test_argument_caps_by_size_and_depth() -> None:
    assert check_arguments({"a": [1, {"b": 2}]}, 100, "The arguments") == b'{"a":[1,{"b":2}]}'
    with pytest.raises(ArgsTooLargeError, match="take 12 bytes as JSON; at most 10"):
        check_arguments({"a": "1234"}, 10, "The arguments")
    nested: object = 1
    for _ in range(MAX_ARGS_DEPTH + 1):
        nested = [nested]
    with pytest.raises(ArgsTooLargeError, match=f"nest deeper than {MAX_ARGS_DEPTH} levels"):
        check_arguments(nested, 10_000, "The arguments")
