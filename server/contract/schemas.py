"""The tools' names, descriptions and input JSON Schemas, with the taxonomy injected (pure).

search_docs gets one optional string property per taxonomy key of the index's
metadata.json, whose ``enum`` is the exact values discovered while indexing.
"""

from __future__ import annotations

from typing import Any, Mapping

from mcp_types import Tool

from docs_mcp.server.core.facets import SEARCH_ARGUMENTS, filter_values

SEARCH_DOCS = "search_docs"
GET_DOC = "get_doc"

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
DEFAULT_CONTEXT = 0
MAX_CONTEXT = 5
DEFAULT_CORPUS_DESCRIPTION = "documentation"

GET_DOC_DESCRIPTION = (
    "Retrieve the full content of a specific documentation chunk using its chunk_id. "
    "You can optionally request surrounding context within the same file."
)

_SEARCH_PROPERTIES: dict[str, Any] = {
    "query": {
        "type": "string",
        "description": "The search query (e.g., 'how to paginate', 'RateLimitError').",
    },
    "limit": {
        "type": "integer",
        "description": "Maximum number of results to return. Default is 10.",
        "minimum": 1,
        "maximum": MAX_LIMIT,
        "default": DEFAULT_LIMIT,
    },
    "cursor": {
        "type": "string",
        "description": (
            "Opaque pagination token returned from a previous search. "
            "Omit for the first page. Returns an error if invalid or malformed."
        ),
    },
}

_GET_DOC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "chunk_id": {
            "type": "string",
            "description": (
                "The exact ID of the chunk to retrieve, as returned by search_docs "
                "(e.g., 'guides/retries.md#backoff-strategy')."
            ),
        },
        "context": {
            "type": "integer",
            "description": (
                "Number of adjacent chunks to include before and after the target chunk. "
                "Default is 0. Use this to read the surrounding file context."
            ),
            "minimum": 0,
            "maximum": MAX_CONTEXT,
            "default": DEFAULT_CONTEXT,
        },
    },
    "required": ["chunk_id"],
}


def search_docs_schema(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The search_docs input schema: the contract's properties plus one per taxonomy key."""
    taxonomy = metadata.get("taxonomy") or {}
    properties = dict(_SEARCH_PROPERTIES)
    for key, values in filter_values(metadata).items():
        description = (taxonomy[key] or {}).get("description") or f"Filter results by {key}."
        properties[key] = {"type": "string", "description": description, "enum": list(values)}
    return {"type": "object", "additionalProperties": False, "properties": properties, "required": ["query"]}


def search_docs_description(metadata: Mapping[str, Any]) -> str:
    """The search_docs description, naming the corpus as metadata.json describes it."""
    # A trailing period would end the sentence twice.
    corpus = (metadata.get("corpus_description") or "").strip().rstrip(".") or DEFAULT_CORPUS_DESCRIPTION
    return f"Search the {corpus}. Use this to find relevant documentation, guides, or API references."


def search_docs_tool(metadata: Mapping[str, Any]) -> Tool:
    """search_docs as listed for an index described by ``metadata``."""
    return Tool(name=SEARCH_DOCS, description=search_docs_description(metadata), input_schema=search_docs_schema(metadata))


def get_doc_tool(metadata: Mapping[str, Any]) -> Tool:
    """get_doc as listed (the same for every index)."""
    return Tool(name=GET_DOC, description=GET_DOC_DESCRIPTION, input_schema=_GET_DOC_SCHEMA)


def contract_tools(metadata: Mapping[str, Any]) -> list[Tool]:
    """The contract's two tools (search_docs, get_doc) for an index described by ``metadata``."""
    return [search_docs_tool(metadata), get_doc_tool(metadata)]
