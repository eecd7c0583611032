"""An npm-style library (indexed as javascript) asked for in TypeScript, and get_docs filling its budget, through a
real `docs-mcp serve` over a real index of a small library of our own (a schema validator, Vald)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from library_corpora import write_corpus
from mcp_session import McpSession, serve_over_stdio

VALD = "vald/vald"
EMAIL_LINE = 'const Email = v.string().email({ message: "not an email" });'
# The answer sits past the first 1,200 characters of a long section whose opening names every word of the topic.
_FILLER = "\n\n".join(
    f"Note {n}: a schema is immutable, so each method returns a new schema and leaves the old one as it was."
    for n in range(1, 24)
)
VALD_FILES = {
    "index.md": "# Vald\n\nVald declares schemas and validates values against them in TypeScript and JavaScript.\n",
    "strings.md": (
        "# Strings\n\n## String validation\n\n"
        "Vald validates strings: their length, their pattern, and formats such as email, URL and UUID.\n\n"
        f"{_FILLER}\n\nTo validate an email string:\n\n```ts\n{EMAIL_LINE}\n```\n"
    ),
    "numbers.md": "# Numbers\n\n## Number validation\n\nUse `v.number().int().min(0)` for counts.\n",
}


@pytest.fixture(scope="module")
def vald_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    root = tmp_path_factory.mktemp("vald")
    docs = write_corpus(root / "docs", VALD_FILES)
    spec = requested_spec(docs, VALD, name="Vald", description="Schema validation.", languages=["javascript"])
    build_index(docs, root / "index", library=spec, embeddings="none")
    with serve_over_stdio(root / "index", root / "server.log") as session:
        yield session


def test_a_javascript_library_is_found_and_answered_for_typescript(vald_server: McpSession) -> None:
    for language in ("typescript", "TS", "javascript"):
        found = vald_server.json("resolve_library", {"query": "vald", "language": language})
        assert [r["library_id"] for r in found["results"]] == [VALD], language
    assert vald_server.json("resolve_library", {"query": "vald", "language": "python"})["results"] == []
    answer = vald_server.json(
        "get_docs", {"libraries": [VALD], "topic": "number validation", "language": "typescript", "max_tokens": 500}
    )
    assert answer["chunks"][0]["path"] == f"{VALD}/numbers.md"


def test_an_unknown_language_names_the_languages_there_are(vald_server: McpSession) -> None:
    shape = vald_server.error_shape("get_docs", {"libraries": [VALD], "topic": "strings", "language": "cobol"})
    assert shape["code"] == "INVALID_INPUT" and "'cobol'" in shape["message"]
    assert shape["suggestion"] == "Languages here: javascript; pass one of them as 'language', or leave 'language' out."


def test_get_docs_fills_its_budget_and_keeps_the_lines_that_answer(vald_server: McpSession) -> None:
    answer = vald_server.json(
        "get_docs", {"libraries": [VALD], "topic": "validate an email string", "max_tokens": 1500}
    )
    assert answer["chunks"][0]["heading"].endswith("String validation")
    assert EMAIL_LINE in answer["content"]
    assert answer["chunks"][0]["passage"] is False  # the whole section fits: a 1,200-character window of it was sent
    assert answer["tokens"] <= 1500
