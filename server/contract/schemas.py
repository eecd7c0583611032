"""The tools' names, descriptions and input JSON Schemas, with the taxonomy injected (pure).

search_docs gets one optional string property per taxonomy key of the index's
metadata.json, whose ``enum`` is the exact values discovered while indexing.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from mcp_types import Tool


logger = logging.getLogger(__name__)

SEARCH_DOCS = "search_docs"
GET_DOC = "get_doc"

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
DEFAULT_CONTEXT = 0
MAX_CONTEXT = 5
SEARCH_ARGUMENTS = ("query", "limit", "cursor")
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


def filter_values(metadata: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each filterable taxonomy key with its values, in metadata.json order.

    Keys without values cannot be filtered on, and a key named like a search
    argument would shadow it: both are left out (the latter with a warning).
    """
    filters: dict[str, tuple[str, ...]] = {}
    for key, entry in (metadata.get("taxonomy") or {}).items():
        values = tuple(str(value) for value in (entry or {}).get("values") or ())
        if key in SEARCH_ARGUMENTS:
            logger.warning("taxonomy key %r clashes with a search_docs argument and cannot be filtered on", key)
        elif values:
            filters[key] = values
    return filters


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


def contract_tools(metadata: Mapping[str, Any]) -> list[Tool]:
    """The contract's two tools (search_docs, get_doc) for an index described by ``metadata``."""
    return [
        Tool(
            name=SEARCH_DOCS,
            description=search_docs_description(metadata),
            input_schema=search_docs_schema(metadata),
        ),
        Tool(name=GET_DOC, description=GET_DOC_DESCRIPTION, input_schema=_GET_DOC_SCHEMA),
    ]
