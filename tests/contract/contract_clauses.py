"""The clauses of the tool contract (../shared/seeds/003: search_docs and get_doc), each with a stable ID.

Tests say which clauses they prove with ``@pytest.mark.contract("ID", ...)``;
tests/contract/test_coverage.py fails when a clause has no such test or a tag names no clause.
``quote`` is a phrase of the contract, verbatim, so a clause can be found in (and checked
against) the text it comes from.  IDs are stable: retire one rather than reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clause:
    """One promise of the contract: its ID, what it requires, and the contract phrase it rests on."""

    id: str
    requirement: str
    quote: str


CLAUSES: tuple[Clause, ...] = (
    # -- search_docs ---------------------------------------------------------------------------
    Clause(
        "SD-DESCRIPTION",
        "search_docs's description names the corpus_description of metadata.json.",
        "Search the ${corpus_description}. Use this to find relevant documentation, guides, or API references.",
    ),
    Clause(
        "SD-SCHEMA",
        "search_docs takes query (string, required), limit and cursor, as the contract words them.",
        '"required": ["query"]',
    ),
    Clause(
        "SD-NO-EXTRA-ARGS",
        "search_docs's schema has additionalProperties false and unknown arguments are refused.",
        '"additionalProperties": false',
    ),
    Clause(
        "SD-LIMIT-BOUNDS",
        "limit is an integer from 1 to 50; anything else is an error.",
        '"minimum": 1,\n      "maximum": 50',
    ),
    Clause(
        "SD-LIMIT-DEFAULT",
        "Without limit, a page holds at most 10 hits.",
        "Maximum number of results to return. Default is 10.",
    ),
    Clause(
        "SD-CURSOR-OPAQUE",
        "next_cursor is an opaque token that, passed back with the same search, gives the next page.",
        "Opaque pagination token returned from a previous search.",
    ),
    Clause("SD-CURSOR-END", "next_cursor is null when there are no more results.", "Null if no more results."),
    Clause(
        "SD-CURSOR-INVALID",
        "An invalid or malformed cursor is an error, not a first page.",
        "Returns an error if invalid or malformed.",
    ),
    Clause(
        "SD-TAXONOMY-ENUM",
        "One optional property per taxonomy key, whose enum is the exact values found while indexing.",
        "Values are the exact canonical strings discovered",
    ),
    Clause(
        "SD-TAXONOMY-DESCRIPTION",
        "A filter's description is taxonomy[key].description, else 'Filter results by {key}.'.",
        'If omitted, the server defaults to: "Filter results by {key}."',
    ),
    Clause(
        "SD-NO-SENTINEL",
        "No ANY/ALL values are injected; leaving a filter out means no filter on that facet.",
        "No sentinel values (ANY/ALL) are injected",
    ),
    Clause(
        "SD-FILTER", "A taxonomy filter restricts hits to chunks carrying that value.", "Filter results by language."
    ),
    Clause(
        "SD-SINGLE-TEXT",
        "A search_docs success is one TextContent block whose text is the JSON SearchResult, isError false.",
        "Returns a single `TextContent` block. The `text` field contains a JSON-serialized `SearchResult` string.",
    ),
    Clause(
        "SD-RESULT-SHAPE",
        "SearchResult has hits, next_cursor, hint; each hit has chunk_id, score, heading, breadcrumb, "
        "snippet, filepath and string-valued metadata.",
        "metadata: Record<string, string>;",
    ),
    Clause(
        "SD-CHUNK-ID-FOR-GET-DOC",
        "A hit's chunk_id fetches that very chunk with get_doc.",
        "chunk_id: string;      // Use this ID with get_doc",
    ),
    Clause(
        "SD-HINT",
        "With zero hits, hint is {message, suggested_filters: {key: [values]}}; with hits it is null.",
        "suggested_filters: Record<string, string[]>;",
    ),
    # -- get_doc -------------------------------------------------------------------------------
    Clause(
        "GD-DESCRIPTION",
        "get_doc's name and description are the contract's.",
        "Retrieve the full content of a specific documentation chunk using its chunk_id.",
    ),
    Clause(
        "GD-SCHEMA",
        "get_doc takes chunk_id (string, required) and context; additionalProperties false.",
        '"required": ["chunk_id"]',
    ),
    Clause(
        "GD-CONTEXT-BOUNDS",
        "context is an integer from 0 to 5; anything else is an error.",
        '"minimum": 0,\n      "maximum": 5',
    ),
    Clause("GD-CONTEXT-DEFAULT", "Without context, get_doc returns the target chunk alone.", "Default is 0."),
    Clause(
        "GD-SAME-FILE",
        "Context chunks are the adjacent chunks of the same file, clipped at the file's ends.",
        "retrieving adjacent chunks within the same file",
    ),
    Clause(
        "GD-RAW-MARKDOWN",
        "A get_doc success is one TextContent block of the chunks' markdown, isError false.",
        "The text is formatted as markdown so the agent can read it naturally.",
    ),
    Clause(
        "GD-DELIMITER",
        "Each chunk opens with '--- Chunk: {id} (Chunk N of M) (Target|Context: +N|-N) ---'.",
        "--- Chunk: {chunk_id} (Chunk {1-indexed position} of {file_total}) (Target|Context: {+N|-N}) ---",
    ),
    Clause(
        "GD-ONE-TARGET",
        "Exactly one delimiter per response is labelled Target, and it names the requested chunk.",
        "Exactly one delimiter per response carries this label.",
    ),
    Clause(
        "GD-POSITION",
        "Chunk N of M: N is the 1-indexed position within the file, M the file's chunk count.",
        "1-indexed position within the source file.",
    ),
    Clause(
        "GD-CONTEXT-OFFSET",
        "Context: +N is N chunks after the target, -N is N chunks before.",
        "`+1` means one chunk after the target, `-1` means one before.",
    ),
    Clause(
        "GD-NOT-FOUND",
        "An unknown chunk_id is an isError result with the contract's message.",
        "Chunk ID 'guides/retries.md#does-not-exist' not found. Use search_docs to discover valid chunk IDs.",
    ),
    Clause(
        "GD-INVALID-FORMAT",
        "A chunk_id outside '{filepath}' or '{filepath}#{heading-path}' is an invalid-format error; "
        "IDs inside it are accepted.",
        "does not match the expected `{filepath}` or `{filepath}#{heading-path}` pattern.",
    ),
    # -- both tools ----------------------------------------------------------------------------
    Clause(
        "ERR-ACTIONABLE",
        "Errors are isError results with one text block, human-readable, saying what to do next.",
        "The message should be human-readable and actionable.",
    ),
)
