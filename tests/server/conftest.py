"""Server test fixtures: a small corpus written for these tests, its real index, and a real
`docs-mcp serve` subprocess driven through the MCP SDK's stdio client from plain sync tests.

The corpus is ours (not corpus/) so that filters, collapse, hints and windows have
known answers however the sample corpus evolves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_files import write_corpus
from mcp_session import McpSession, serve_over_stdio

from docs_mcp.indexer import build_index

LANGUAGES = ("go", "python", "typescript")

# The same "Retries" section in every language: near-identical twins for vector_collapse.
_RETRIES = (
    "## Retries\n\n"
    "The client retries a failed request up to three times, waiting longer after each attempt "
    "(exponential backoff with jitter). Set `max_retries` to change the number of attempts.\n"
)

TINY_CORPUS: dict[str, str] = {
    "metadata.json": json.dumps(
        {
            "corpus_description": "Acme API guides and client SDK docs",
            "taxonomy": {
                "language": {
                    "description": "Client SDK language.",
                    "vector_collapse": True,
                    "filter_keeps_unset": True,
                    "filter_keeps": {"scope": "global*"},
                },
                "scope": {"description": "global-guide or sdk-specific."},
            },
        }
    ),
    ".docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "guides/pagination.md": "# Pagination\n\nEvery list endpoint pages its results.\n\n"
    + "".join(
        f"## Page topic {n}\n\nPaging detail number {n}: the cursor walks the collection pages in order.\n\n"
        for n in range(1, 8)
    ),
    "guides/errors.md": (
        "# Errors\n\nHow the API reports failures.\n\n"
        "## Status codes\n\nA 429 status means the rate limit was exceeded.\n\n"
        "## Error bodies\n\nEvery error body has a code and a message.\n\n"
        "## Support\n\nContact support with the request ID.\n"
    ),
    **{
        f"sdk/{language}/.docs-mcp.json": json.dumps(
            {"version": "1", "metadata": {"language": language, "scope": "sdk-specific"}}
        )
        for language in LANGUAGES
    },
    **{
        f"sdk/{language}/client.md": (
            f"# {language.title()} client\n\nInstall the {language} client package.\n\n"
            + _RETRIES
            + f"\n## Handling RateLimitError\n\nCatch `RateLimitError` in {language} and wait before retrying.\n"
        )
        for language in LANGUAGES
    },
    "sdk/python/helpers.md": "# Helpers\n\n## snake_case_helper\n\nThe `snake_case_helper` function converts field names.\n",
}


@pytest.fixture(scope="session")
def tiny_index(tmp_path_factory) -> Path:
    """A real index (default embedding model) of TINY_CORPUS."""
    root = tmp_path_factory.mktemp("tiny")
    docs = write_corpus(root / "docs", TINY_CORPUS)
    build_index(docs, root / "index")
    return root / "index"


@pytest.fixture(scope="session")
def text_only_index(tmp_path_factory) -> Path:
    """A real full-text-only index (no model) of one small page: for servers started many times over."""
    root = tmp_path_factory.mktemp("text-only")
    docs = write_corpus(root / "docs", {"a.md": "# Alpha\n\n## Setup\n\nThe alpha guide explains the setup.\n"})
    build_index(docs, root / "index", embeddings="none")
    return root / "index"


@pytest.fixture(scope="session")
def stdio_server():
    """``serve_over_stdio`` for tests that start their own server: ``with stdio_server(index, log) as session``."""
    return serve_over_stdio


@pytest.fixture(scope="session")
def tiny_server(tiny_index, tmp_path_factory) -> Iterator[McpSession]:
    """One `docs-mcp serve` subprocess over the tiny index, shared by the tests that only read."""
    log = tmp_path_factory.mktemp("logs") / "tiny-server.log"
    with serve_over_stdio(tiny_index, log) as session:
        yield session
