"""The server's instructions lead with when to search, which tool first and how to read a hit, from the index."""

from __future__ import annotations

import json

import pytest

from docs_mcp.server.instructions import LEAD_CHARS, IndexSummary, agent_rule, CommandLine, server_instructions

FASTAPI = {"corpus_description": "FastAPI documentation", "libraries": {"local/fastapi": {"name": "fastapi", "implicit": True}}}
BUNDLED = {
    "corpus_description": (
        "docs-mcp user guide (installing, indexing markdown, chunk IDs, manifests and taxonomy, the search_docs and "
        "get_doc MCP tools, ranking, evaluation, troubleshooting) and the docs-mcp client SDK guides for Python, TypeScript and Go"
    ),
    "libraries": {"local/corpus": {"name": "corpus", "implicit": True}},
}
SEVERAL = {
    "corpus_description": "Web stack documentation",
    "libraries": {f"org/{name}": {"name": name} for name in ("fastapi", "pydantic", "starlette", "httpx", "uvicorn")},
}
BARE: dict = {}


@pytest.mark.parametrize("metadata", [FASTAPI, BUNDLED, SEVERAL, BARE], ids=["fastapi", "bundled", "several", "bare"])
def test_the_first_500_characters_say_when_which_tool_and_how_to_read_a_hit(metadata):
    lead = server_instructions(IndexSummary.from_metadata(metadata))[:LEAD_CHARS]
    assert lead.startswith("This server holds ")
    assert "Search it before writing or changing" in lead and "whenever unsure" in lead  # when
    assert "First call search_docs_expanded" in lead  # which tool first
    assert "A hit's snippet shows where it matched: read the section with get_doc(chunk_id)." in lead  # how to read a hit


def test_instructions_name_what_the_index_holds(snapshot):
    built = {name: server_instructions(IndexSummary.from_metadata(m)) for name, m in
             (("fastapi", FASTAPI), ("bundled", BUNDLED), ("several", SEVERAL), ("bare", BARE))}  # fmt: skip
    built["fastapi, with a gateway"] = server_instructions(IndexSummary.from_metadata(FASTAPI), gateway=True)
    assert built == snapshot


def test_an_implicit_library_is_named_only_when_its_description_uses_the_name():
    assert IndexSummary.from_metadata(FASTAPI).code == "code that uses fastapi"
    assert IndexSummary.from_metadata(BUNDLED).code == "code these docs cover"
    assert IndexSummary.from_metadata(SEVERAL).code == "code that uses fastapi, pydantic, starlette, httpx and 1 more"


def test_the_agent_rule_says_when_and_how_without_mcp():
    rule = agent_rule(IndexSummary.from_metadata(FASTAPI), server="docs-mcp",
                      cli=CommandLine("docs-mcp search --index .docs-mcp", "docs-mcp get --index .docs-mcp"))  # fmt: skip
    assert "Search it before you write or change code that uses fastapi" in rule
    assert '`docs-mcp search --index .docs-mcp --json "QUERY"`' in rule and "`docs-mcp get --index .docs-mcp CHUNK_ID`" in rule
    assert json.dumps(rule)  # plain text, no surprises
