"""Tool docs: a summary, notes and worked examples per tool, from files next to the config file.

Files in the tool-docs folder (``[gateway] tool_docs``, default ``tool-docs/``):

- ``*.yaml`` / ``*.yml``: one entry (``tool``, ``summary``, ``notes``, ``examples``) or a list of
  entries under ``tools``;
- ``*.md``: YAML frontmatter (``tool``, ``summary``, ``examples``) and the body as the notes.

Docs only add to what the upstream says about its tool; its schema stays the truth. Caps keep
an agent's context small, and they are enforced when the docs are loaded, so a bad file stops
the start with a message naming it rather than surprising an agent later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from docs_mcp.server.gateway.errors import ArgsTooLargeError, GatewayConfigError
from docs_mcp.server.gateway.gateway_config import check_table
from docs_mcp.server.gateway.records import split_tool_key

MAX_SUMMARY = 400  # characters
MAX_NOTES = 4_000  # characters
MAX_EXAMPLES = 5  # per tool
MAX_ARGS_DEPTH = 5  # nesting of objects and arrays in example (and tool_execute) arguments
MAX_ARGS_KEYS = 50  # keys per object
MAX_EXAMPLE_ARGS_BYTES = 4_096  # JSON size of one example's arguments
_ENTRY_KEYS = {"tool", "summary", "notes", "examples"}


@dataclass(frozen=True)
class ToolExample:
    """One worked call: what it does and the arguments to pass."""

    title: str
    args: Mapping[str, Any]
    description: str = ""


@dataclass(frozen=True)
class ToolDoc:
    """What the docs say of one tool."""

    tool_key: str
    summary: str = ""
    notes: str = ""
    examples: tuple[ToolExample, ...] = field(default_factory=tuple)


def check_arguments(arguments: Any, max_bytes: int, what: str) -> bytes:
    """The JSON of ``arguments`` after checking the depth, keys-per-object and size caps.

    Raises:
        ArgsTooLargeError: a cap is exceeded (the message says which).
    """
    _check_depth(arguments, 1, what)
    encoded = orjson.dumps(arguments)
    if len(encoded) > max_bytes:
        raise ArgsTooLargeError(
            f"{what} take {len(encoded)} bytes as JSON; at most {max_bytes} are accepted.",
            "Send smaller arguments (e.g. fewer items per call).",
        )
    return encoded


def _check_depth(value: Any, depth: int, what: str) -> None:
    if isinstance(value, (dict, list)) and depth > MAX_ARGS_DEPTH:
        raise ArgsTooLargeError(f"{what} nest deeper than {MAX_ARGS_DEPTH} levels.", "Flatten the arguments.")
    if isinstance(value, dict):
        if len(value) > MAX_ARGS_KEYS:
            raise ArgsTooLargeError(
                f"{what} have an object with {len(value)} keys; at most {MAX_ARGS_KEYS}.", "Send fewer keys per object."
            )
        for item in value.values():
            _check_depth(item, depth + 1, what)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1, what)


def load_tool_docs(folder: Path) -> dict[str, ToolDoc]:
    """Every tool doc in ``folder`` by tool key ({} when the folder does not exist).

    Raises:
        GatewayConfigError: a file that cannot be parsed, an entry over a cap, or a tool documented twice.
    """
    if not folder.is_dir():
        return {}
    docs: dict[str, ToolDoc] = {}
    problems: list[str] = []
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in (".yaml", ".yml", ".md") or not path.is_file():
            continue
        for where, raw in _raw_entries(path, problems):
            doc = _parse_entry(raw, where, problems)
            if doc is None:
                continue
            if doc.tool_key in docs:
                problems.append(f"{where}: {doc.tool_key} is documented twice")
            docs[doc.tool_key] = doc
    if problems:
        raise GatewayConfigError(
            "Invalid tool docs:\n  " + "\n  ".join(problems),
            "Fix these files (format and caps: corpus/guide/gateway.md).",
        )
    return docs


def _raw_entries(path: Path, problems: list[str]) -> list[tuple[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".md":
            return [(str(path), _markdown_entry(text))]
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError) as error:
        problems.append(f"{path}: {error}".replace("\n", " "))
        return []
    if isinstance(data, dict) and "tools" in data:
        items = data["tools"] if isinstance(data["tools"], list) else [data["tools"]]
        return [(f"{path} entry {n}", item) for n, item in enumerate(items, 1)]
    return [(str(path), data)]


def _markdown_entry(text: str) -> dict[str, Any]:
    if not text.startswith("---"):
        raise ValueError("a tool doc in markdown starts with YAML frontmatter (---) naming the tool")
    _, front, body = text.split("---", 2)
    entry = yaml.safe_load(front) or {}
    if not isinstance(entry, dict):
        raise ValueError("the frontmatter must be a mapping")
    return {**entry, "notes": body.strip()} if body.strip() else entry


def _parse_entry(raw: Any, where: str, problems: list[str]) -> ToolDoc | None:
    if not check_table(raw, _ENTRY_KEYS, where, problems):
        return None
    tool_key = raw.get("tool")
    if not isinstance(tool_key, str) or split_tool_key(tool_key) is None:
        problems.append(f"{where}: tool must be a tool key 'server:tool', got {tool_key!r}")
        return None
    summary, notes = (
        _text(raw, "summary", MAX_SUMMARY, where, problems),
        _text(raw, "notes", MAX_NOTES, where, problems),
    )
    examples = raw.get("examples") or []
    if not isinstance(examples, list):
        problems.append(f"{where}: examples must be a list")
        examples = []
    if len(examples) > MAX_EXAMPLES:
        problems.append(f"{where}: {len(examples)} examples; at most {MAX_EXAMPLES} per tool (keep the best)")
        examples = examples[:MAX_EXAMPLES]
    parsed = tuple(e for n, item in enumerate(examples, 1) if (e := _example(item, f"{where} example {n}", problems)))
    return ToolDoc(tool_key, summary, notes, parsed)


def _text(raw: dict[str, Any], key: str, cap: int, where: str, problems: list[str]) -> str:
    value = raw.get(key) or ""
    if not isinstance(value, str):
        problems.append(f"{where}: {key} must be text")
        return ""
    if len(value) > cap:
        problems.append(f"{where}: {key} has {len(value)} characters; at most {cap}")
    return value.strip()[:cap]


def _example(raw: Any, where: str, problems: list[str]) -> ToolExample | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("args", {}), dict):
        problems.append(f"{where}: expected a mapping with title and args (a mapping of arguments)")
        return None
    title, description = raw.get("title", ""), raw.get("description", "")
    if not isinstance(title, str) or not isinstance(description, str) or len(title) + len(description) > MAX_SUMMARY:
        problems.append(f"{where}: title and description must be text of at most {MAX_SUMMARY} characters together")
        return None
    args = raw.get("args", {})
    try:
        # Round-trip through JSON: a deep copy in MCP-native shapes (no YAML dates or tuples).
        args = orjson.loads(check_arguments(args, MAX_EXAMPLE_ARGS_BYTES, "the example's args"))
    except ArgsTooLargeError as error:
        problems.append(f"{where}: ARGS_TOO_LARGE: {error.message}")
        return None
    except TypeError as error:
        problems.append(f"{where}: args must be JSON-like values ({error})")
        return None
    return ToolExample(title.strip(), args, description.strip())
