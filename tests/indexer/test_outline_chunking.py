"""Chunks that follow each page's own outline (issue 39), on real pages (fixtures/outline/README.md has their sources).

A page of ``###`` sections splits at ``###``, an H1 after an H2 starts a chunk, a chunk with no words
beyond its headings never ranks, and MDX exports, code includes, heading-id comments and Sphinx tab
labels are read as the site shows them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from docs_mcp.indexer import build_index
from docs_mcp.indexer.corpus.code_includes import MAX_INCLUDED_BYTES
from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.libraries.store import read_libraries
from docs_mcp.indexer.records import Chunk

FIXTURES = Path(__file__).parent / "fixtures"
OUTLINE = FIXTURES / "outline"


def chunks_of(root: Path, filepath: str) -> list[Chunk]:
    return [chunk for chunk in scan_corpus(root).chunks if chunk.filepath == filepath]


def shape(chunks: list[Chunk]) -> list[dict[str, object]]:
    """What the snapshots keep: IDs, heading paths, whether search sees the chunk, and how its content starts."""
    return [
        {"id": c.chunk_id, "heading_path": list(c.heading_path), "searched": c.searchable, "content": c.content[:120]}
        for c in chunks
    ]


def test_an_h1_after_h2_sections_starts_its_own_chunk_rich_readme(snapshot) -> None:
    chunks = chunks_of(OUTLINE / "rich", "README.md")
    by_id = {c.chunk_id: c for c in chunks}
    inspect, library = by_id["README.md#rich-inspect"], by_id["README.md#rich-library"]
    assert "<summary>Tables</summary>" not in inspect.content and inspect.content.endswith("for details.")
    assert library.heading_level == 1 and "<summary>Tables</summary>" in library.content
    assert [c.chunk_id for c in chunks if c.heading_level == 1] == [
        "README.md#rich-library",
        "README.md#rich-cli",
        "README.md#textual",
        "README.md#toad",
    ]
    assert shape(chunks) == snapshot


def test_a_page_of_h3_sections_splits_at_h3_and_drops_heading_id_comments_react_dev(snapshot) -> None:
    chunks = chunks_of(OUTLINE / "react", "server-components.md")
    assert [c.chunk_id for c in chunks] == [
        "server-components.md#_preamble",
        "server-components.md#server-components-without-a-server",
        "server-components.md#server-components-with-a-server",
        "server-components.md#adding-interactivity-to-server-components",
        "server-components.md#async-components-with-server-components",
    ]
    assert chunks[3].headings == (
        "Adding interactivity to Server Components",
        "There is no directive for Server Components.",
    )
    assert chunks[1].heading_path == ("Server Components", "Server Components without a Server")  # front matter title
    assert "{/*" not in " ".join(c.text for c in chunks)
    assert chunks[1].content.startswith(
        "### Server Components without a Server {/*server-components-without-a-server*/}"
    )
    assert shape(chunks) == snapshot


def test_sections_that_hold_only_autodoc_directives_have_no_search_text_requests_api(snapshot) -> None:
    chunks = chunks_of(FIXTURES / "formats" / "rst", "api.rst")
    empty = [c.chunk_id for c in chunks if not c.searchable]
    assert all(not c.text for c in chunks if not c.searchable)  # how the index stores them
    assert [c.chunk_id for c in chunks if c.searchable] == [
        "api.rst#_preamble",
        "api.rst#developer-interface/main-interface",
        "api.rst#developer-interface/migrating-to-1x",
        "api.rst#developer-interface/migrating-to-2x",
    ]
    assert len(empty) == 8  # Exceptions, Request Sessions ... Status Code Lookup: autodoc directives only
    sessions = next(c for c in chunks if c.chunk_id == "api.rst#developer-interface/request-sessions")
    assert "### `requests.Session`" in sessions.content  # get_doc still shows it
    assert shape(chunks) == snapshot


def test_an_empty_section_never_ranks_and_the_section_with_words_does(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURES / "formats" / "rst" / "api.rst", docs / "api.rst")
    build_index(docs, tmp_path / "index")  # the packaged model: full text and vectors
    for mode in ("bm25", "vector", "hybrid"):
        hits = _search(tmp_path / "index", "Session", mode)
        assert "api.rst#developer-interface/request-sessions" not in hits, mode
    assert _search(tmp_path / "index", "Session", "hybrid")[0] == "api.rst#developer-interface/migrating-to-1x"
    get = _cli("get", "api.rst#developer-interface/request-sessions", "--index", str(tmp_path / "index"))
    assert "requests.Session" in get
    # Read back from the index (as a build of several libraries reads the ones it keeps), they stay unsearchable.
    stored = read_libraries(tmp_path / "index", lambda _library, _entry: True).chunks
    assert [c.chunk_id for c in stored if not c.searchable] == [
        c.chunk_id for c in chunks_of(docs, "api.rst") if not c.searchable
    ]


def test_sphinx_tab_labels_and_code_tabs_are_kept_sphinx_tabs(snapshot) -> None:
    chunks = chunks_of(OUTLINE / "sphinx-tabs", "index.rst")
    group = next(c for c in chunks if c.heading == "Group Tabs")
    assert "**Linux**\n\nLinux tab content - tab set 1" in group.content
    assert "Mac OSX" in group.text.replace("Mac OSX tab content", "")
    code = next(c for c in chunks if c.heading == "Code Tabs")
    assert "**c**\n\n```c\nint main(const int argc, const char **argv) {" in code.content
    assert "**R**\n\n```r\nR Main Function\n```" in code.content  # `.. code-tab:: r R`: the label given
    assert shape(chunks) == snapshot


def test_fastapi_code_includes_show_the_code_they_name(snapshot) -> None:
    chunks = chunks_of(OUTLINE / "fastapi", "docs/en/docs/tutorial/background-tasks.md")
    text = "\n".join(c.content for c in chunks)
    assert "{*" not in text
    assert "```python\nfrom fastapi import BackgroundTasks, FastAPI\n" in text
    assert any('def write_notification(email: str, message=""):' in c.text for c in chunks)
    assert shape(chunks) == snapshot


def test_code_includes_outside_the_docs_folder_or_not_regular_files_stay_as_written(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(OUTLINE / "fastapi", docs)
    (tmp_path / "secret.py").write_text("TOKEN = 'not for the index'\n")
    (docs / "docs_src" / "out.py").symlink_to(tmp_path / "secret.py")
    (docs / "docs_src" / "big.py").write_text("x = 1\n" * (MAX_INCLUDED_BYTES // 6 + 1))
    (docs / "docs_src" / "folder.py").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(docs / "docs_src" / "pipe.py")  # reading it would wait for a writer forever
    lines = ["{* ../../secret.py *}", "{* ../../../../secret.py *}", "{* ../../docs_src/out.py *}", "{* /etc/hostname *}",
             "{* ../../docs_src/big.py *}", "{* ../../docs_src/folder.py *}", "{* ../../docs_src/pipe.py *}",
             "{* ../../docs_src/missing.py *}", "```", "{* ../../docs_src/background_tasks/tutorial001_py310.py *}", "```",
             "{* ../../docs_src/background_tasks/tutorial001_py310.py ln[1:2] hl[2] *}"]  # fmt: skip
    (docs / "docs" / "en" / "docs" / "page.md").write_text("# Page\n\n" + "\n\n".join(lines) + "\n")
    [chunk] = chunks_of(docs, "docs/en/docs/page.md")
    assert "not for the index" not in chunk.content
    assert chunk.content.count("{*") == 9  # all but the last stay as written; the one in a code fence too
    assert chunk.content.endswith("```python\nfrom fastapi import BackgroundTasks, FastAPI\n\n```")  # ln[1:2]


def test_an_mdx_page_takes_its_exported_title_and_keeps_its_description_searchable(tmp_path: Path) -> None:
    (tmp_path / "page.mdx").write_text(
        "import {Callout} from 'nextra/components'\n"
        "export const title = 'Rate limits'\n"
        'export const description = "How many requests a key may send per minute."\n\n'
        "<Callout>Limits apply per key.</Callout>\n\n"
        "## Raising a limit {/*raising-a-limit*/}\n\nAsk support.\n"
    )
    chunks = chunks_of(tmp_path, "page.mdx")
    assert [(c.chunk_id, c.title, c.breadcrumb) for c in chunks] == [
        ("page.mdx#_preamble", "Rate limits", "page.mdx"),
        ("page.mdx#raising-a-limit", "Rate limits", "page.mdx > Rate limits > Raising a limit"),
    ]
    assert chunks[0].text == "Rate limits\nHow many requests a key may send per minute.\n\nLimits apply per key."
    assert scan_corpus(tmp_path).files == {"page.mdx": "Rate limits"}


def _search(index: Path, query: str, mode: str) -> list[str]:
    out = _cli("search", query, "--index", str(index), "--mode", mode, "--limit", "10", "--json")
    return [hit["chunk_id"] for hit in json.loads(out)["hits"]]


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout
