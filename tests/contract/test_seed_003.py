"""The contract's own examples, read from ../shared/seeds/003 and reproduced by our code: the two
input schemas, the tool descriptions, the get_doc example response and the not-found message.
(Skipped, with the reason shown, when ../shared is absent.)"""

from __future__ import annotations

import json
import re

import pytest

from docs_mcp.server.app import tool_list
from docs_mcp.server.contract.render import render_chunk_window
from docs_mcp.server.errors import ChunkNotFoundError
from docs_mcp.server.search.records import StoredChunk
from docs_mcp.server.tools.get_doc import NAME as GET_DOC
from docs_mcp.server.tools.search_docs import NAME as SEARCH_DOCS

# The enum values and descriptions of the contract's example taxonomy, as metadata.json holds them.
EXAMPLE_METADATA = {
    "corpus_description": "${corpus_description}",
    "taxonomy": {
        "language": {"description": "", "values": ["go", "java", "python", "typescript"]},
        "scope": {"description": "", "values": ["global-guide", "sdk-specific"]},
    },
}
DELIMITER = re.compile(r"^--- Chunk: (\S+) \(Chunk (\d+) of (\d+)\) \((?:Target|Context: [+-]\d+)\) ---$", re.M)


@pytest.fixture(scope="module")
def seed(shared_dir) -> str:
    return next((shared_dir / "seeds").glob("003_*.txt")).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def examples(seed) -> list:
    """The contract's JSON blocks, in order, with its `//` comment lines dropped."""
    blocks = re.findall(r"```json\n(.*?)```", seed, re.S)
    return [
        json.loads("\n".join(line for line in block.splitlines() if not line.strip().startswith("//")))
        for block in blocks
    ]


def _tools():
    return {tool.name: tool for tool in tool_list(EXAMPLE_METADATA)}


@pytest.mark.contract("SD-SCHEMA", "SD-NO-EXTRA-ARGS", "SD-LIMIT-BOUNDS", "SD-TAXONOMY-ENUM", "SD-TAXONOMY-DESCRIPTION")
def test_search_docs_schema_is_the_contracts_example(examples):
    assert _tools()[SEARCH_DOCS].input_schema == examples[0]


@pytest.mark.contract("GD-SCHEMA", "GD-CONTEXT-BOUNDS")
def test_get_doc_schema_is_the_contracts(examples):
    assert _tools()[GET_DOC].input_schema == examples[2]


@pytest.mark.contract("SD-DESCRIPTION", "GD-DESCRIPTION")
def test_tool_descriptions_are_the_contracts(seed):
    described = re.findall(r"\*\*Tool Description:\*\* `([^`]*)`", seed)
    tools = _tools()
    assert [tools[SEARCH_DOCS].description, tools[GET_DOC].description] == described


@pytest.mark.contract("GD-DELIMITER", "GD-POSITION", "GD-CONTEXT-OFFSET", "GD-ONE-TARGET")
def test_the_get_doc_example_renders_byte_for_byte(examples):
    expected = examples[3]["content"][0]["text"]
    heads = list(DELIMITER.finditer(expected))
    bodies = [expected[head.end() + 1 : following.start() - 2] for head, following in zip(heads, heads[1:])]
    bodies.append(expected[heads[-1].end() + 1 :])
    window = [
        StoredChunk(
            chunk_id=head[1],
            filepath=head[1].split("#")[0],
            heading="",
            chunk_index=int(head[2]) - 1,
            file_chunk_count=int(head[3]),
            content=body,
        )
        for head, body in zip(heads, bodies)
    ]
    assert render_chunk_window(window, "guides/retries.md#backoff-strategy") == expected


@pytest.mark.contract("GD-NOT-FOUND")
def test_the_not_found_example_is_our_message(examples):
    example = examples[4]
    assert example["isError"] is True
    assert str(ChunkNotFoundError("guides/retries.md#does-not-exist")) == example["content"][0]["text"]
