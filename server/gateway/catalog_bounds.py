"""Bounds on what an upstream server may hand the gateway: its catalog, each tool in it, each result.

An upstream is not trusted to be reasonable: 5,000 tools, one 4 MB description or input
schema, a schema nested 100 levels deep, the same tool name twice, a 50 MB result. Each is
cut to a bound here, and every cut is stated: in the tool's description or the result's text
(for the agent), in ``notes`` (for ``upstream_status`` and ``tool_discovery``) and in the log.

- at most ``max_tools`` tools per upstream (the first ones it lists);
- a description of at most ``max_description_chars`` characters (the rest cut, with a marker);
- an input or output schema of at most ``max_schema_bytes`` bytes as JSON and ``max_schema_depth``
  levels: a tool over either is left out (a cut schema would describe other arguments);
- a name listed twice: the first kept, the other left out (two tools with one key cannot both
  be called);
- a result of at most ``max_result_bytes`` bytes of text: text cut, a structured result over
  the bound dropped (the text still carries the answer), with a last text item saying so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import mcp_types as types
import orjson

from docs_mcp.server.gateway.gateway_config import CatalogBounds
from docs_mcp.server.gateway.records import ToolEntry

logger = logging.getLogger(__name__)

LISTED_NOTES = 5  # notes kept per upstream; the rest are counted


@dataclass(frozen=True)
class BoundedCatalog:
    """One upstream's tools within the bounds, and what was cut or left out."""

    tools: tuple[ToolEntry, ...]
    notes: tuple[str, ...]


def bound_catalog(server: str, tools: Sequence[ToolEntry], bounds: CatalogBounds) -> BoundedCatalog:
    """The tools of ``server`` that fit the bounds (descriptions cut to fit), in listed order, with a note per cut."""
    kept: dict[str, ToolEntry] = {}
    notes: list[str] = []
    for tool in tools:
        if tool.name in kept:
            notes.append(f"lists the tool '{_short(tool.name)}' twice: the first is offered, the other left out")
            continue
        problem = _schema_problem(tool, bounds)
        if problem:
            notes.append(f"tool '{_short(tool.name)}' left out: {problem}")
            continue
        if len(kept) == bounds.max_tools:
            notes.append(
                f"lists more than {bounds.max_tools} tools: the first {bounds.max_tools} are offered "
                "(gateway.max_tools_per_upstream)"
            )
            break
        if len(tool.description) > bounds.max_description_chars:
            cut = len(tool.description) - bounds.max_description_chars
            notes.append(
                f"tool '{_short(tool.name)}': description cut from {len(tool.description):,} to {bounds.max_description_chars:,} characters"
            )
            tool = replace(
                tool,
                description=f"{tool.description[: bounds.max_description_chars]}… [{cut:,} more characters cut by the gateway]",
            )
        kept[tool.name] = tool
    for note in notes:
        logger.warning("upstream %s %s", server, note)
    shown = notes[:LISTED_NOTES] + (
        [f"and {len(notes) - LISTED_NOTES} more such problems (see the server log)"]
        if len(notes) > LISTED_NOTES
        else []
    )
    return BoundedCatalog(tuple(kept.values()), tuple(shown))


def _schema_problem(tool: ToolEntry, bounds: CatalogBounds) -> str:
    for label, schema in (("input schema", tool.input_schema), ("output schema", tool.output_schema)):
        if schema is None:
            continue
        if json_depth(schema, bounds.max_schema_depth) > bounds.max_schema_depth:
            return f"its {label} nests more than {bounds.max_schema_depth} levels deep (gateway.max_schema_depth)"
        size = len(orjson.dumps(schema))
        if size > bounds.max_schema_bytes:
            return f"its {label} takes {size:,} bytes as JSON, more than {bounds.max_schema_bytes:,} (gateway.max_schema_bytes)"
    return ""


def json_depth(value: Any, limit: int) -> int:
    """How many levels of objects and arrays ``value`` nests, or ``limit + 1`` once past ``limit`` (walked with a
    stack: the value may nest deeper than Python's recursion limit)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            depth += 1
            if depth > limit:
                return limit + 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def bound_result(server: str, tool: str, result: types.CallToolResult, max_bytes: int) -> types.CallToolResult:
    """``result`` with its text cut to ``max_bytes`` in all and an oversized structured part dropped, saying so."""
    budget, content, cut = max_bytes, [], 0
    for item in result.content:
        if isinstance(item, types.TextContent):
            data = item.text.encode("utf-8")
            if len(data) > budget:
                cut += len(data) - budget
                item = types.TextContent(text=data[:budget].decode("utf-8", errors="ignore"))
            budget -= len(item.text.encode("utf-8"))
        else:
            size = len(orjson.dumps(item.model_dump(by_alias=True, exclude_none=True)))
            if size > budget:
                cut += size
                continue
            budget -= size
        content.append(item)
    structured = result.structured_content
    dropped = structured is not None and len(orjson.dumps(structured)) > max_bytes
    if not cut and not dropped:
        return result
    said = []
    if cut:
        said.append(f"{cut:,} bytes of its content were cut")
    if dropped:
        said.append("its structured content was left out")
    note = (
        f"[docs-mcp gateway: the result of {server}:{tool} is larger than {max_bytes:,} bytes (gateway.max_result_bytes): "
        f"{' and '.join(said)}. Ask the tool for less, e.g. a narrower query or a page of results.]"
    )
    logger.warning("upstream %s: result of %s cut (%s)", server, tool, "; ".join(said))
    return types.CallToolResult(
        content=[*content, types.TextContent(text=note)],
        structured_content=None if dropped else structured,
        is_error=result.is_error,
    )


def _short(name: str) -> str:
    return name if len(name) <= 80 else f"{name[:80]}…"
