"""The server's instructions lead with when to search, which tool first and how to read a hit, from the index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.indexer.corpus.readable_name import documentation_of, readable_name
from docs_mcp.server.instructions import LEAD_CHARS, CommandLine, IndexSummary, agent_rule, server_instructions

FASTAPI = {
    "corpus_description": "FastAPI documentation",
    "libraries": {"local/fastapi": {"name": "fastapi", "implicit": True}},
}
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
    assert (
        "A hit's snippet shows where it matched: read the section with get_doc(chunk_id)." in lead
    )  # how to read a hit


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
    assert (
        '`docs-mcp search --index .docs-mcp --json "QUERY"`' in rule
        and "`docs-mcp get --index .docs-mcp CHUNK_ID`" in rule
    )
    assert json.dumps(rule)  # plain text, no surprises


# --- the library named as its configuration says, or a readable name: never "docs", never "documentation" twice ---


def _indexed_summary(docs: Path, index: Path) -> IndexSummary:
    """The summary of the index `docs-mcp index DOCS` builds (no embedding model: the metadata is what matters)."""
    done = subprocess.run([sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index), "--embeddings", "none", "-q"],
                          capture_output=True, text=True, check=False, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return IndexSummary.from_metadata(json.loads((index / "metadata.json").read_text(encoding="utf-8")))


def _page(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "index.md").write_text("# Quickstart\n\nInstall it, then create an app.\n", encoding="utf-8")
    return folder


def test_a_sphinx_docs_folder_is_named_as_its_conf_py_says(tmp_path: Path) -> None:
    docs = _page(tmp_path / "flask" / "docs")
    (docs / "conf.py").write_text('import os\n\nproject = "Flask"\ncopyright = "2010 Pallets"\n', encoding="utf-8")
    summary = _indexed_summary(docs, tmp_path / "index")
    assert (summary.holdings, summary.code) == ("the Flask documentation", "code that uses Flask")
    rule = agent_rule(summary, server="docs-mcp", cli=CommandLine("docs-mcp search", "docs-mcp get"))
    assert "indexed locally: the Flask documentation." in rule and "change code that uses Flask," in rule
    assert "docs documentation" not in rule and "uses docs" not in rule


def test_a_folder_named_docs_is_named_after_the_project_folder_above_it(tmp_path: Path) -> None:
    summary = _indexed_summary(_page(tmp_path / "billing-api" / "docs"), tmp_path / "index")
    assert (summary.holdings, summary.code) == ("the billing-api documentation", "code that uses billing-api")


def test_a_translation_is_named_as_the_mkdocs_site_it_inherits(tmp_path: Path) -> None:
    (tmp_path / "fastapi" / "docs" / "en").mkdir(parents=True)
    (tmp_path / "fastapi" / "docs" / "en" / "mkdocs.yml").write_text(
        "site_name: FastAPI\nsite_url: https://fastapi.tiangolo.com/\n"
    )
    docs = _page(tmp_path / "fastapi" / "docs" / "zh" / "docs")
    (docs.parent / "mkdocs.yml").write_text("INHERIT: ../en/mkdocs.yml\ntheme:\n  language: zh\n")
    summary = _indexed_summary(docs, tmp_path / "index")
    assert (summary.holdings, summary.code) == ("the FastAPI documentation", "code that uses FastAPI")


def test_a_name_that_says_documentation_is_not_doubled() -> None:
    crawled = {
        "corpus_description": "Python 3.11.2 documentation",
        "libraries": {"python/docs": {"name": "Python 3.11.2 documentation"}},
    }
    assert (IndexSummary.from_metadata(crawled).holdings, IndexSummary.from_metadata(crawled).code) == (
        "the Python 3.11.2 documentation", "code that uses Python 3.11.2")  # fmt: skip
    built_before = {
        "corpus_description": "Python 3.11.2 documentation documentation",
        "libraries": {"local/docs": {"name": "docs", "implicit": True}},
    }
    before = IndexSummary.from_metadata({**built_before, "corpus_description": "docs documentation"})
    assert before.code == "code these docs cover"  # an index built before: its folder's name is no library
    assert IndexSummary.from_metadata(built_before).holdings == "the Python 3.11.2 documentation"
    assert (
        documentation_of("Python 3.11.2 documentation") == "Python 3.11.2 documentation"
        and documentation_of("httpx") == "httpx documentation"
    )


def test_an_inherited_mkdocs_yml_is_read_only_beside_the_translation(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "mkdocs.yml").write_text("site_name: Private Wiki\n")
    docs = _page(tmp_path / "project" / "site-a" / "zh" / "docs")
    (docs.parent / "mkdocs.yml").write_text("INHERIT: ../../../elsewhere/mkdocs.yml\n")
    assert readable_name(docs) == "site-a"  # the folder name, not the name of a site outside the project
