"""search_docs_expanded: search_docs plus the typed parts an agent writes (keywords, its question, a hypothetical answer).

search_docs keeps its contract (corpus/guide/search-docs.md) to the letter; this tool takes the same arguments and answers
in the same SearchResult text, and adds three optional strings that the engine routes to the
signals they suit (server/search/expansion.py).  Without them it answers exactly as search_docs.
Its description is what an agent learns to write them from: the development sets' expansions were
written following it alone (corpus/guide/ranking.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_types import Tool

from docs_mcp.server.contract.sizing import SearchAnswer
from docs_mcp.server.core.arguments import string, visible_text
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolCall, ToolSpec, internal_error_text, leased
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.search.expansion import MAX_ANSWER_CHARS, MAX_KEYWORDS_CHARS, MAX_QUESTION_CHARS, Expansions
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.tools import search_docs
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.search_docs import SearchArgs, parse_search_args

NAME = "search_docs_expanded"
EXPANSION_LIMITS = {
    "keywords": MAX_KEYWORDS_CHARS,
    "question": MAX_QUESTION_CHARS,
    "hypothetical_answer": MAX_ANSWER_CHARS,
}

DESCRIPTION = (
    "Use it first when you ask in your own words (a question, a task, a symptom) rather than with the exact names "
    "the documentation uses, and whenever search_docs's hits miss. It searches like search_docs, plus with the words "
    "you expect the documentation to contain, which you write yourself; each part is searched on the side of the index "
    "it suits and the results are fused. Fill in:\n"
    "- keywords: 3-12 terms the answering section would literally contain: API, function, class, parameter, option, "
    "command, error and setting names, the library's own vocabulary, and synonyms of your words. No filler words. "
    "Matched by full-text search.\n"
    "- question: your need restated as one complete question in the documentation's terms.\n"
    "- hypothetical_answer: 1-3 sentences (about 60 words at most) the ideal documentation section might say, in its own "
    "style and with the names it would use. A plausible guess is fine: it is only used to find similar text (vector "
    "search) and is never shown.\n"
    "Leave out a part you have nothing for. Hits, filters and pagination are search_docs's (chunk_id, heading, snippet, "
    "score; read one with get_doc)."
)

_PROPERTIES: dict[str, dict[str, Any]] = {
    "keywords": {
        "type": "string",
        "maxLength": MAX_KEYWORDS_CHARS,
        "description": "Terms the answering section would contain (API and option names, error names, the library's "
        "vocabulary, synonyms), space-separated. Full-text side.",
    },
    "question": {
        "type": "string",
        "maxLength": MAX_QUESTION_CHARS,
        "description": "Your need as one complete question in the documentation's terms. Vector side.",
    },
    "hypothetical_answer": {
        "type": "string",
        "maxLength": MAX_ANSWER_CHARS,
        "description": "1-3 sentences the ideal documentation section might say, in its style and names; a guess is fine, "
        "it is never shown. Vector side.",
    },
}


def schema(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """search_docs's input schema (with the index's taxonomy filters) plus the three expansion parts."""
    base = search_docs.schema(metadata)
    properties = dict(base["properties"])
    query = dict(properties["query"])
    query["description"] = "Your question or the words to search for, as you would ask search_docs."
    properties["query"] = query
    for name, part in _PROPERTIES.items():
        properties[name] = part
    return {**base, "properties": properties}


def tool(metadata: Mapping[str, Any]) -> Tool:
    return Tool(name=NAME, description=DESCRIPTION, input_schema=schema(metadata))


def parse_expansions(arguments: Mapping[str, Any] | None) -> Expansions:
    """The three optional parts, checked (strings within their length; control characters read as spaces).

    Raises:
        InvalidArgumentError: a part is not a string, or is too long.
    """
    given = arguments if isinstance(arguments, Mapping) else {}
    parts = {}
    for name, limit in EXPANSION_LIMITS.items():
        value = visible_text(string({name: given.get(name)}, name) or "")
        if len(value) > limit:
            raise InvalidArgumentError(
                f"Argument '{name}' is {len(value)} characters long; the limit is {limit}.",
                "Keep keywords to a dozen terms and the hypothetical answer to a few sentences.",
            )
        parts[name] = value
    return Expansions(**parts)


def parse(arguments: Mapping[str, Any] | None, filters: Mapping[str, tuple[str, ...]]) -> tuple[SearchArgs, Expansions]:
    """search_docs's arguments and the expansions, checked.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
    """
    args = parse_search_args(arguments, filters, tool=NAME, more=tuple(EXPANSION_LIMITS))
    return args, parse_expansions(arguments)


def run(index: ServedIndex, parsed: tuple[SearchArgs, Expansions], mode: Mode) -> SearchAnswer:
    """search_docs's search with the expansions joined (exactly search_docs's without them)."""
    return search_docs.run(index, parsed[0], mode, parsed[1])


def spec(context: ToolContext) -> ToolSpec[tuple[SearchArgs, Expansions]]:
    return ToolSpec(
        NAME,
        describe=tool,
        parse=lambda arguments, index: parse(arguments, leased(index).filters),
        run=lambda parsed, call: run(leased(call.index), parsed, context.mode),
        render=SearchAnswer.text,
        structured=lambda answer, call: search_docs.structured(answer, call, _expansions_of(call)),
        error_text=internal_error_text,
    )


def _expansions_of(call: ToolCall) -> Expansions | None:
    """The expansions of a search that ran (its arguments were checked already)."""
    return parse_expansions(call.arguments) or None
