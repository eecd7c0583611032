"""What agents send, beyond the plain shapes: the object form `libraries: [{"libraryId": ...}]` in
get_docs, a `language` for get_docs, and libraries whose languages only their sections' taxonomy tells."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from corpus_files import write_corpus
from library_corpora import ACME
from mcp_session import McpSession, serve_over_stdio

SDK = "acme/sdk"
LANGUAGES = ("go", "python", "typescript")
# One library, no --language: its sections say which language each one is about.
SDK_FILES = {
    "metadata.json": json.dumps({"taxonomy": {"language": {"description": "SDK language."}}}),
    "guides/limits.md": "# Limits\n\nThe API answers 429 when a caller sends too many requests.\n",
    **{
        f"{language}/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": language}})
        for language in LANGUAGES
    },
    **{
        f"{language}/errors.md": f"# {language.title()} errors\n\n## Handling RateLimitError\n\n"
        f"Catch `RateLimitError` in {language} code, wait for the retry delay, then send the request again.\n"
        for language in LANGUAGES
    },
}


@pytest.fixture(scope="module")
def sdk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    root = tmp_path_factory.mktemp("sdk")
    docs = write_corpus(root / "docs", SDK_FILES)
    build_index(docs, root / "index", library=requested_spec(docs, SDK, name="Acme SDK"))
    with serve_over_stdio(root / "index", root / "server.log") as session:
        yield session


@pytest.mark.parametrize(
    "libraries",
    [[{"libraryId": ACME}], [{"library_id": ACME}], [ACME], [{"libraryId": ACME}, ACME]],
)
def test_get_docs_takes_library_ids_as_strings_or_seed_objects(libraries_server, libraries: list) -> None:
    answer = libraries_server.json("get_docs", {"libraries": libraries, "topic": "deploy"})
    assert answer["libraries"] == [ACME]


@pytest.mark.parametrize("item", [{"id": ACME}, {"libraryId": 5}, 7, {"libraryId": ACME, "extra": 1}])
def test_get_docs_shows_both_forms_for_another_shape(libraries_server, item) -> None:
    shape = libraries_server.error_shape("get_docs", {"libraries": [item], "topic": "deploy"})
    assert shape["code"] == "INVALID_INPUT"
    assert "libraries=['" in shape["suggestion"] and 'libraries=[{"libraryId": "' in shape["suggestion"]


def test_get_docs_puts_the_asked_language_first(sdk_server) -> None:
    answer = sdk_server.json("get_docs", {"libraries": [SDK], "topic": "RateLimitError", "language": "python"})
    paths = [chunk["path"] for chunk in answer["chunks"]]
    assert paths and all(not path.startswith(("acme/sdk/go/", "acme/sdk/typescript/")) for path in paths), paths
    assert paths[0] == "acme/sdk/python/errors.md"


def test_get_docs_language_must_be_one_the_index_tags(sdk_server) -> None:
    shape = sdk_server.error_shape("get_docs", {"libraries": [SDK], "topic": "RateLimitError", "language": "cobol"})
    assert shape["code"] == "INVALID_INPUT" and "go, python, typescript" in shape["suggestion"]
    assert sdk_server.json("get_docs", {"libraries": [SDK], "topic": "RateLimitError", "language": "Python"})["chunks"]


def test_resolve_by_language_counts_the_sections_taxonomy(sdk_server) -> None:
    results = sdk_server.json("resolve_library", {"query": "acme", "language": "python"})["results"]
    assert [r["library_id"] for r in results] == [SDK]
    assert results[0]["languages"] == list(LANGUAGES)
    assert sdk_server.json("resolve_library", {"query": "acme", "language": "rust"})["results"] == []
