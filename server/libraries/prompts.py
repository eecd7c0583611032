"""MCP prompts: the workflows naming our tools (corpus/guide/libraries.md#prompts), plus the corpus's ``*.template.md`` files.

Templates use a Mustache subset: ``{{name}}`` inserts an argument, ``{{#name}}..{{/name}}``
keeps its body when the argument is given, ``{{^name}}..{{/name}}`` when it is not.  A
corpus template with a built-in prompt's name replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from docs_mcp.server.errors import quoted

_SECTION = re.compile(r"\{\{([#^])\s*([\w.-]+)\s*\}\}(.*?)\{\{/\s*\2\s*\}\}", re.DOTALL)
_VARIABLE = re.compile(r"\{\{\s*([\w.-]+)\s*\}\}")


@dataclass(frozen=True)
class PromptSpec:
    """A prompt: its arguments as (name, description, required) and its template."""

    name: str
    description: str
    arguments: tuple[tuple[str, str, bool], ...]
    template: str
    title: str = ""


_LIBRARY_ARG = ("libraryId", "Library ID from resolve_library (e.g. 'fastapi/fastapi').", True)
_CODE_ARG = ("codeSnippet", "The code in question.", False)

BUILT_IN = (
    PromptSpec(
        "migrate-code",
        "Plan a migration of code from one version of a library to another, from its documentation.",
        (_LIBRARY_ARG, ("fromVersion", "Current version.", True), ("toVersion", "Target version.", True), _CODE_ARG),
        "You are helping migrate code from {{libraryId}} version {{fromVersion}} to {{toVersion}}.\n\n"
        "Steps:\n1. Call get_library_info(library_id='{{libraryId}}') for its table of contents.\n"
        '2. Look for changelog, migration guide or "what\'s new" pages in the TOC.\n'
        "3. Read them with read_page.\n"
        "4. For specific APIs in the code, call get_docs(libraries=['{{libraryId}}'], topic=...) or search_docs.\n"
        "{{#codeSnippet}}\nMigrate this code:\n```\n{{codeSnippet}}\n```\n{{/codeSnippet}}\n"
        "Provide:\n1. The breaking changes between {{fromVersion}} and {{toVersion}} that affect this code.\n"
        "2. The migrated code, explaining each change.\n3. New features of {{toVersion}} that could improve it.",
    ),
    PromptSpec(
        "debug-with-docs",
        "Debug an error using the library's current documentation.",
        (_LIBRARY_ARG, ("errorMessage", "The error message or a description of the problem.", True), _CODE_ARG),
        "You are debugging an issue with {{libraryId}}.\n\nError: {{errorMessage}}\n"
        "{{#codeSnippet}}\nCode:\n```\n{{codeSnippet}}\n```\n{{/codeSnippet}}\n"
        "Steps:\n1. Call search_docs with the error message or the APIs involved (and library='{{libraryId}}' "
        "when the server holds several libraries).\n2. Read the most relevant results with read_page or get_doc.\n"
        "3. If needed, browse get_library_info(library_id='{{libraryId}}') for related topics.\n\n"
        "From the documentation, give:\n1. The root cause.\n2. The correct API usage, citing the page.\n3. A fixed version of the code.",
    ),
    PromptSpec(
        "explain-api",
        "Explain an API of a library with its current documentation and examples.",
        (_LIBRARY_ARG, ("apiName", "The class, function or module to explain.", True)),
        "Explain the {{apiName}} API of {{libraryId}}.\n\n"
        "Steps:\n1. Call get_docs(libraries=['{{libraryId}}'], topic='{{apiName}}').\n"
        "2. If its confidence is below 0.5 or the answer is incomplete, read its related_pages, or find pages in "
        "get_library_info(library_id='{{libraryId}}'), with read_page.\n"
        "3. If needed, use search_docs to find related APIs or usage patterns.\n\n"
        "Provide:\n1. What {{apiName}} does and when to use it.\n2. Its parameters.\n3. Its return value.\n"
        "4. At least two practical examples from the documentation.\n5. Common pitfalls.",
    ),
)


def prompt_specs(metadata: Mapping[str, Any]) -> dict[str, PromptSpec]:
    """Every prompt of an index: built-ins, then the corpus's templates (which win on a name clash)."""
    specs = {spec.name: spec for spec in BUILT_IN}
    for entry in metadata.get("prompts") or ():
        specs[entry["name"]] = PromptSpec(
            name=entry["name"],
            title=entry.get("title") or "",
            description=entry.get("description") or f"Prompt template {entry.get('path', entry['name'])}.",
            arguments=tuple(
                (a["name"], a.get("description", ""), bool(a.get("required"))) for a in entry.get("arguments") or ()
            ),
            template=entry["template"],
        )
    return specs


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill a Mustache-subset template; missing variables are empty."""

    def section(match: re.Match[str]) -> str:
        given = bool((values.get(match.group(2)) or "").strip())
        return match.group(3) if given == (match.group(1) == "#") else ""

    return _VARIABLE.sub(lambda m: values.get(m.group(1)) or "", _SECTION.sub(section, template))


def get_prompt(
    specs: Mapping[str, PromptSpec], name: str, arguments: Mapping[str, str] | None
) -> types.GetPromptResult:
    """The prompt ``name`` filled with ``arguments``.

    Raises:
        MCPError: no such prompt, an unknown argument, or a required one missing.
    """
    spec = specs.get(name)
    if spec is None:
        raise MCPError(
            types.INVALID_PARAMS, f"Unknown prompt {quoted(name)}. Available prompts: {', '.join(sorted(specs))}."
        )
    values = dict(arguments or {})
    known = {arg for arg, _, _ in spec.arguments}
    unknown = sorted(set(values) - known)
    missing = [arg for arg, _, required in spec.arguments if required and not (values.get(arg) or "").strip()]
    if unknown or missing:
        what = (
            f"unknown argument(s) {', '.join(unknown)}"
            if unknown
            else f"missing required argument(s) {', '.join(missing)}"
        )
        raise MCPError(
            types.INVALID_PARAMS, f"Prompt {quoted(name)}: {what}. Its arguments: {', '.join(sorted(known)) or 'none'}."
        )
    text = render(spec.template, values)
    return types.GetPromptResult(
        description=spec.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
    )


def list_prompts(specs: Mapping[str, PromptSpec]) -> list[types.Prompt]:
    """The prompts as prompts/list shows them, by name."""
    return [
        types.Prompt(
            name=spec.name,
            title=spec.title or None,
            description=spec.description,
            arguments=[types.PromptArgument(name=a, description=d or None, required=r) for a, d, r in spec.arguments],
        )
        for spec in sorted(specs.values(), key=lambda s: s.name)
    ]


async def on_list_prompts(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    """The prompts/list handler."""
    index = await anyio.to_thread.run_sync(ctx.lifespan_context.live.current)
    return types.ListPromptsResult(prompts=list_prompts(prompt_specs(index.engine.metadata)))


async def on_get_prompt(
    ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    """The prompts/get handler."""
    index = await anyio.to_thread.run_sync(ctx.lifespan_context.live.current)
    return get_prompt(prompt_specs(index.engine.metadata), params.name, params.arguments)
