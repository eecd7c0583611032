"""Each library keeps its own taxonomy settings in an index of several (indexer/libraries/key_settings.py).

Two small libraries carry a ``language`` key: the SDK guide configures it (description,
vector_collapse, and a language filter that keeps untagged pages and shared guides), the
tracing docs do not. Whatever the order they are indexed in, re-indexed or removed, the
guide's settings stay the guide's, and apply to its pages alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer import build_index, open_index
from docs_mcp.indexer.libraries.ops import remove_library
from docs_mcp.indexer.libraries.spec import requested_spec
from docs_mcp.server.search.engine import open_engine
from docs_mcp.server.search.modes import Mode

GUIDE, TRACES = "acme/sdk", "acme/traces"
GUIDE_DESCRIPTION = "Language of the SDK page; shared guides are still returned when you set this."
GUIDE_SETTINGS = {
    "description": GUIDE_DESCRIPTION,
    "vector_collapse": True,
    "filter_keeps_unset": True,
    "filter_keeps": {"scope": "global*"},
}
GUIDE_FILES = {
    "metadata.json": json.dumps({"taxonomy": {"language": GUIDE_SETTINGS}}),
    "overview.md": "# Overview\n\nRetries with backoff are configured once for every client.\n",
    "shared/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "shared/limits.md": "# Limits\n\nRetries stop after five attempts in every client.\n",
    "go/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "go", "scope": "sdk-specific"}}),
    "go/retries.md": "# Retries in Go\n\nCall client.WithRetries to enable retries.\n",
    "python/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "python", "scope": "sdk-specific"}}),
    "python/retries.md": "# Retries in Python\n\nPass retries=3 to enable retries.\n",
}
TRACES_FILES = {
    "intro.md": "# Tracing\n\nRetries show up as spans of their own.\n",
    "common/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "common/sampling.md": "# Sampling\n\nRetries are sampled like any other span.\n",
    "go/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "go"}}),
    "go/setup.md": "# Setup in Go\n\nRetries of exports are on by default.\n",
    "java/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "java"}}),
    "java/setup.md": "# Setup in Java\n\nRetries of exports are on by default.\n",
}


@pytest.fixture
def docs(tmp_path: Path) -> dict[str, Path]:
    return {GUIDE: write_corpus(tmp_path / "sdk", GUIDE_FILES), TRACES: write_corpus(tmp_path / "traces", TRACES_FILES)}


def _index(docs: dict[str, Path], index: Path, *library_ids: str) -> None:
    for library_id in library_ids:
        build_index(docs[library_id], index, library=requested_spec(docs[library_id], library_id), embeddings="none")


def _language(index: Path) -> dict:
    with open_index(index) as reader:
        return dict(reader.metadata["taxonomy"]["language"])


def _go_paths(index: Path) -> set[str]:
    engine = open_engine(index)
    try:
        return {hit.filepath for hit in engine.search("retries", {"language": "go"}, mode=Mode.bm25, limit=20).hits}
    finally:
        engine.close()


@pytest.mark.parametrize("order", [(GUIDE, TRACES), (TRACES, GUIDE)], ids=["guide-first", "guide-last"])
def test_each_library_keeps_its_settings_whatever_the_order(docs, tmp_path: Path, order: tuple[str, str]) -> None:
    index = tmp_path / "index"
    _index(docs, index, *order)
    language = _language(index)
    assert language["by_library"] == {GUIDE: GUIDE_SETTINGS}
    assert language["vector_collapse"] is True
    # The one description names whose it is: the tracing docs carry the key without describing it.
    assert language["description"] == f"{GUIDE}: {GUIDE_DESCRIPTION}"
    assert "filter_keeps_unset" not in language and "filter_keeps" not in language  # per library only


@pytest.mark.parametrize("order", [(GUIDE, TRACES), (TRACES, GUIDE)], ids=["guide-first", "guide-last"])
def test_a_language_filter_keeps_shared_pages_of_the_library_that_asks_for_it_only(
    docs, tmp_path: Path, order: tuple[str, str]
) -> None:
    index = tmp_path / "index"
    _index(docs, index, *order)
    assert _go_paths(index) == {
        f"{GUIDE}/go/retries.md",
        f"{GUIDE}/overview.md",  # untagged: kept by the guide's filter_keeps_unset
        f"{GUIDE}/shared/limits.md",  # scope global-guide: kept by the guide's filter_keeps
        f"{TRACES}/go/setup.md",  # the tracing docs' untagged and global pages stay out: they set nothing
    }


def test_reindexing_or_removing_another_library_leaves_the_settings_as_their_library_set_them(
    docs, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    _index(docs, index, GUIDE, TRACES, TRACES)  # the tracing docs indexed again
    assert _language(index)["by_library"] == {GUIDE: GUIDE_SETTINGS}
    remove_library(index, GUIDE)
    language = _language(index)  # one library left: its own (empty) settings, none of the guide's
    assert (language["description"], language["vector_collapse"]) == ("", False)
    assert "by_library" not in language and "filter_keeps_unset" not in language
    _index(docs, index, GUIDE)
    assert _language(index)["by_library"] == {GUIDE: GUIDE_SETTINGS}
