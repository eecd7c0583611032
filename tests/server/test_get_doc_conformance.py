"""../shared/conformance/get-doc/expected.json reproduced byte for byte by get_doc, over stdio,
on a real index of ../shared/conformance/chunk-ids/corpus/ (skipped when ../shared is absent).

guides/two-h1.md is chunked by its own outline (its second H1 starts a chunk: see
tests/indexer/test_conformance.py), so the one case that reads it is left out."""

import json

import pytest

from docs_mcp.indexer import build_index

RESHAPED = "guides/two-h1.md#"


@pytest.fixture(scope="module")
def conformance(shared_dir):
    return shared_dir / "conformance"


@pytest.fixture(scope="module")
def conformance_server(conformance, tmp_path_factory, stdio_server):
    root = tmp_path_factory.mktemp("conformance")
    build_index(conformance / "chunk-ids" / "corpus", root / "index")
    with stdio_server(root / "index", root / "server.log") as session:
        yield session


def _cases(conformance):
    return json.loads((conformance / "get-doc" / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.contract("GD-DELIMITER", "GD-RAW-MARKDOWN", "GD-POSITION")
def test_every_successful_case_matches_byte_for_byte(conformance, conformance_server):
    cases = [case for case in _cases(conformance) if not case["is_error"]]
    assert [case["chunk_id"] for case in cases if case["chunk_id"].startswith(RESHAPED)] == [
        "guides/two-h1.md#part-a/setup"
    ]
    cases = [case for case in cases if not case["chunk_id"].startswith(RESHAPED)]
    assert len(cases) >= 7
    for case in cases:
        result = conformance_server.call("get_doc", {"chunk_id": case["chunk_id"], "context": case["context"]})
        assert not result.is_error, result.content[0].text
        assert [block.type for block in result.content] == ["text"]
        assert result.content[0].text == case["text"], f"{case['chunk_id']} context={case['context']}"


@pytest.mark.contract("GD-NOT-FOUND", "GD-INVALID-FORMAT")
def test_the_failing_cases_are_errors_worded_like_the_reference(conformance, conformance_server):
    cases = [case for case in _cases(conformance) if case["is_error"]]
    assert len(cases) == 2
    for case in cases:
        text = conformance_server.error("get_doc", {"chunk_id": case["chunk_id"], "context": case["context"]})
        # The reference's sentence first; ours may add what to do next.
        assert text.startswith(case["text"]), text
