"""describe_tool and list_tool_examples: progressive detail over the live tool and its docs (corpus/guide/gateway.md#the-meta-tools).

- summary: works from the docs alone or the live tool alone; NOT_FOUND when both are missing;
- schema: the live tool's input/output schemas and annotations, plus a parameter list derived
  from the schema (best effort: what it cannot read stays empty); NO_TOOL when the tool is not live;
- full: schema plus the docs' notes and examples.

The upstream's schema is the truth: docs add a summary, notes and examples, never a schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docs_mcp.server.gateway.errors import NoToolError, ToolNotFoundError
from docs_mcp.server.gateway.records import ToolEntry, split_tool_key
from docs_mcp.server.gateway.tooldocs import MAX_SUMMARY, ToolDoc


def describe(tool_key: str, detail: str, tool: ToolEntry | None, doc: ToolDoc | None) -> dict[str, Any]:
    """The description of ``tool_key`` at ``detail`` (summary, schema or full).

    Raises:
        ToolNotFoundError: neither a live tool nor docs.
        NoToolError: schema or full asked for a tool that is documented but not live.
    """
    if tool is None and doc is None:
        raise ToolNotFoundError(tool_key)
    server, name = split_tool_key(tool_key) or ("", tool_key)
    answer: dict[str, Any] = {
        "tool_key": tool_key,
        "server_name": server,
        "tool_name": name,
        "detail": detail,
        "live": tool is not None,
        "summary": summary(tool, doc),
    }
    if detail == "summary":
        return answer
    if tool is None:
        raise NoToolError(tool_key)
    answer.update(
        description=tool.description,
        parameters=parameters(tool.input_schema),
        input_schema=dict(tool.input_schema),
        output_schema=tool.output_schema,
        annotations=tool.annotations,
    )
    if detail == "full":
        answer.update(notes=doc.notes if doc else "", examples=[_example(e) for e in (doc.examples if doc else ())])
    return answer


def examples(tool_key: str, maximum: int, tool: ToolEntry | None, doc: ToolDoc | None) -> dict[str, Any]:
    """Up to ``maximum`` examples of ``tool_key`` from its docs.

    Raises:
        ToolNotFoundError: neither a live tool nor docs.
    """
    if tool is None and doc is None:
        raise ToolNotFoundError(tool_key)
    shown = [_example(e) for e in (doc.examples if doc else ())][:maximum]
    answer: dict[str, Any] = {"tool_key": tool_key, "examples": shown}
    if not shown:
        answer["hint"] = "No examples are documented for this tool; describe_tool(detail='schema') shows its arguments."
    return answer


def summary(tool: ToolEntry | None, doc: ToolDoc | None) -> str:
    """The docs' summary, else the description's first paragraph, capped."""
    text = doc.summary if doc and doc.summary else (tool.description if tool else "")
    first = text.strip().split("\n\n", 1)[0].strip()
    return first if len(first) <= MAX_SUMMARY else first[: MAX_SUMMARY - 1].rstrip() + "…"


def parameters(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """name, type, required and description of each top-level property; empty when the schema has none."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = set(schema.get("required") or ())
    listed = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        kind = spec.get("type", "")
        listed.append(
            {
                "name": name,
                "type": "|".join(kind) if isinstance(kind, list) else str(kind),
                "required": name in required,
                "description": str(spec.get("description", "")),
            }
        )
    return listed


def _example(example: Any) -> dict[str, Any]:
    shown = {"title": example.title, "args": dict(example.args)}
    if example.description:
        shown["description"] = example.description
    return shown
