"""Tool schemas: the contract's shapes, with the taxonomy of metadata.json injected."""

import pytest

from docs_mcp.server.app import tool_list
from docs_mcp.server.core.facets import filter_values
from docs_mcp.server.tools.search_docs import search_docs_description

METADATA = {
    "corpus_description": "docs-mcp user guide and SDK documentation",
    "taxonomy": {
        "language": {"description": "", "values": ["go", "python", "typescript"], "vector_collapse": True},
        "scope": {
            "description": "Whether a page is a global guide or SDK-specific.",
            "values": ["global-guide", "sdk-specific"],
        },
        "empty": {"description": "no values yet", "values": []},
        "limit": {"description": "clashes with an argument", "values": ["x"]},
    },
}


def _tools():
    return {tool.name: tool for tool in tool_list(METADATA)}


@pytest.mark.contract("SD-SCHEMA", "GD-SCHEMA", "GD-DESCRIPTION")
def test_the_contract_tools_come_first_and_match_the_contract(snapshot):
    tools = tool_list(METADATA)
    assert [tool.name for tool in tools[:2]] == ["search_docs", "get_doc"]
    assert [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools[:2]] == snapshot


@pytest.mark.contract("SD-TAXONOMY-ENUM", "SD-TAXONOMY-DESCRIPTION")
def test_each_taxonomy_key_with_values_becomes_an_enum_property():
    properties = _tools()["search_docs"].input_schema["properties"]
    assert list(properties) == ["query", "limit", "cursor", "language", "scope"]
    assert properties["language"] == {
        "type": "string",
        "description": "Filter results by language.",
        "enum": ["go", "python", "typescript"],
    }
    assert properties["scope"]["description"] == "Whether a page is a global guide or SDK-specific."


@pytest.mark.contract("SD-NO-EXTRA-ARGS", "SD-SCHEMA", "GD-SCHEMA")
def test_schemas_forbid_unknown_properties_and_require_their_key_argument():
    tools = _tools()
    assert tools["search_docs"].input_schema["additionalProperties"] is False
    assert tools["search_docs"].input_schema["required"] == ["query"]
    assert tools["get_doc"].input_schema["additionalProperties"] is False
    assert tools["get_doc"].input_schema["required"] == ["chunk_id"]


@pytest.mark.contract("SD-DESCRIPTION")
def test_the_description_embeds_the_corpus_description():
    assert search_docs_description(METADATA) == (
        "Search the docs-mcp user guide and SDK documentation. "
        "Use this to find relevant documentation, guides, or API references."
    )
    assert search_docs_description({"corpus_description": "FastAPI docs."}).startswith("Search the FastAPI docs. Use")
    assert search_docs_description({}).startswith("Search the documentation. Use")


def test_keys_without_values_or_named_like_arguments_are_not_filters():
    assert filter_values(METADATA) == {
        "language": ("go", "python", "typescript"),
        "scope": ("global-guide", "sdk-specific"),
    }


@pytest.mark.contract("SD-TAXONOMY-ENUM")
def test_an_index_without_taxonomy_has_only_the_contract_properties():
    assert list(_search_docs({})["properties"]) == ["query", "limit", "cursor"]


def _search_docs(metadata):
    return next(tool for tool in tool_list(metadata) if tool.name == "search_docs").input_schema
