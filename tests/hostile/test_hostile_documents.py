"""A hostile docs folder: reStructuredText, notebooks and HTML pages built to read files, fetch URLs, import modules,
hang the build, exhaust memory or the stack, or plant sections. Each is indexed by the real `docs-mcp index` (a
subprocess with a planted secret in its environment) or the real scan; every page is its own problem only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_http import Answer, serve_loopback

from docs_mcp.indexer.corpus.formats.rst_includes import MAX_INCLUDES
from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.duckdb_store import open_store

SECRET = "zorblaxplantedsecret"
GOOD_PAGE = "# Good\n\nRetries back off exponentially, five times at most.\n"


def _index(docs: Path, out: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`docs-mcp index DOCS` as a subprocess whose environment holds the planted secret (a GitHub token)."""
    env = {**os.environ, "GITHUB_TOKEN": SECRET}
    command = [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(out), "--embeddings", "none"]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=docs, timeout=timeout, check=False)


def _indexed_text(index: Path, *pages: str) -> str:
    store = open_store(index)
    try:
        return "\n".join(text for page in pages for text in store.page_contents(page))
    finally:
        store.close()


@pytest.fixture
def loopback_url() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every path asked and would answer with the secret."""
    with serve_loopback(lambda _path: Answer(f"a,{SECRET}\n".encode())) as server:
        yield server.url, server.asked


def test_an_include_parsed_as_rst_reads_no_file_outside_and_fetches_no_url(tmp_path: Path, loopback_url) -> None:
    """`.. include:: :parser: rst` parsed the fragment with file insertion on: csv-table :file: /proc/self/environ
    put the process environment (the planted GITHUB_TOKEN) into the index."""
    url, asked = loopback_url
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "outside.txt").write_text(f"outside,{SECRET}\n", encoding="utf-8")
    (docs / "inner.txt").write_text(
        "Inner\n-----\n\nInner words stay.\n\n"
        ".. csv-table:: Environment\n   :file: /proc/self/environ\n\n"
        ".. csv-table:: Outside\n   :file: ../outside.txt\n\n"
        f".. csv-table:: Fetched\n   :url: {url}/table.csv\n\n"
        ".. raw:: html\n   :file: ../outside.txt\n\n"
        f".. raw:: html\n   :url: {url}/raw.html\n\n"
        ".. include:: ../outside.txt\n   :literal:\n\n"
        ".. include:: /proc/self/environ\n   :code: text\n\n"
        ".. figure:: ../outside.txt\n   :figwidth: image\n\n   A caption.\n",
        encoding="utf-8",
    )
    (docs / "page.rst").write_text(
        "Page\n====\n\nOwn words.\n\n.. include:: inner.txt\n   :parser: rst\n", encoding="utf-8"
    )
    (docs / "literal.rst").write_text(
        "Literal\n=======\n\n.. literalinclude:: ../outside.txt\n\n.. include:: inner.txt\n   :parser: restructuredtext\n",
        encoding="utf-8",
    )
    done = _index(docs, tmp_path / "index")
    assert done.returncode == 0, done.stderr
    text = _indexed_text(tmp_path / "index", "page.rst", "literal.rst")
    assert "Own words." in text and "Inner words stay." in text and "A caption." in text
    assert SECRET not in text and "PATH=" not in text
    assert asked == []
    assert SECRET not in done.stdout + done.stderr
    assert '"csv-table": :file: and :url: are not read' in done.stderr


@pytest.mark.parametrize("parser", ["this", "venv.__main__", "docutils.parsers.null", "markdown"])
def test_a_parser_option_imports_nothing(tmp_path: Path, parser: str) -> None:
    """`:parser: NAME` imported any module: `this` printed to stdout, `venv.__main__` made virtualenvs and its
    SystemExit ended the build with exit 0 and no index."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "inner.txt").write_text("Inner words.\n", encoding="utf-8")
    (docs / "page.rst").write_text(
        f"Page\n====\n\nOwn words.\n\n.. include:: inner.txt\n   :parser: {parser}\n", encoding="utf-8"
    )
    (docs / "code.rst").write_text(
        f"Code\n====\n\nCode words.\n\n.. literalinclude:: inner.txt\n   :parser: {parser}\n", encoding="utf-8"
    )
    (docs / "good.md").write_text(GOOD_PAGE, encoding="utf-8")
    before = set(tmp_path.rglob("*"))
    done = _index(docs, tmp_path / "index")
    assert done.returncode == 0, done.stderr
    assert "Zen of Python" not in done.stdout + done.stderr
    assert {p for p in tmp_path.rglob("*") if not p.is_relative_to(tmp_path / "index")} == before  # no virtualenv made
    assert "Own words." in _indexed_text(tmp_path / "index", "page.rst")
    assert "Retries back off" in _indexed_text(tmp_path / "index", "good.md")
    for page in ("page.rst", "code.rst"):
        assert f'warning: {page}: reStructuredText markup error at line 6: Error in "' in done.stderr
    assert done.stderr.count(f'only the reStructuredText parser is used; "{parser}" is not imported') == 2


def test_includes_of_a_fifo_a_directory_and_a_symlink_out_are_refused_with_their_reason(tmp_path: Path) -> None:
    """An include of a FIFO hung `index` (opening it waits for a writer)."""
    docs = tmp_path / "docs"
    (docs / "folder").mkdir(parents=True)
    os.mkfifo(docs / "pipe.txt")
    (docs / "out.txt").symlink_to("/etc/hostname")
    (docs / "null.txt").symlink_to("/dev/null")
    (docs / "a.rst").write_text("A\n=\n\nA words.\n\n.. include:: pipe.txt\n", encoding="utf-8")
    (docs / "b.rst").write_text("B\n=\n\nB words.\n\n.. literalinclude:: pipe.txt\n", encoding="utf-8")
    (docs / "c.rst").write_text("C\n=\n\nC words.\n\n.. include:: folder\n", encoding="utf-8")
    (docs / "d.rst").write_text("D\n=\n\nD words.\n\n.. include:: out.txt\n   :literal:\n", encoding="utf-8")
    (docs / "e.rst").write_text(
        "E\n=\n\nE words.\n\n.. include:: <../../../../../../../../etc/hostname>\n", encoding="utf-8"
    )
    done = _index(docs, tmp_path / "index", timeout=120)  # the old code never returned
    assert done.returncode == 0, done.stderr
    for page, reason in [("a.rst", "pipe.txt is a FIFO, not a file"), ("b.rst", "pipe.txt is a FIFO, not a file"),
                         ("c.rst", "folder is a directory, not a file")]:  # fmt: skip
        assert f'warning: {page}: reStructuredText markup error at line 6: "' in done.stderr
        assert f"{reason}; not included" in done.stderr
    # A way out of the folder is a refusal by design, said as such (not a markup error to fix).
    for page, target in [("d.rst", "out.txt"), ("e.rst", "<../../../../../../../../etc/hostname>")]:
        assert f"warning: {page}: {target} is outside the docs folder: not included, by design" in done.stderr
    for page in ("a.rst", "b.rst", "c.rst", "d.rst", "e.rst"):
        assert f"{page[0].upper()} words." in _indexed_text(tmp_path / "index", page)


def test_includes_cannot_multiply_a_page(tmp_path: Path) -> None:
    """Files each including the next ten times made one page of 1,000 copies of the last (a billion laughs of includes)."""
    for level in (1, 2, 3):
        (tmp_path / f"level{level}.txt").write_text(f".. include:: level{level + 1}.txt\n\n" * 10, encoding="utf-8")
    (tmp_path / "level4.txt").write_text("laugh\n", encoding="utf-8")
    (tmp_path / "page.rst").write_text("Page\n====\n\n.. include:: level1.txt\n", encoding="utf-8")
    scan = scan_corpus(tmp_path)
    content = "\n".join(chunk.content for chunk in scan.chunks)
    assert 0 < content.count("laugh") < MAX_INCLUDES
    (problem,) = scan.problems
    assert problem.path == "page.rst"
    assert (
        f"level4.txt is past the page's include budget ({MAX_INCLUDES} files, 4,000,000 bytes in all); not included"
        in problem.message
    )


def test_rst_nested_past_the_bound_is_that_pages_problem(tmp_path: Path) -> None:
    (tmp_path / "deep.rst").write_text(
        "Deep\n====\n\n" + "".join("  " * level + "- item\n\n" for level in range(400)), encoding="utf-8"
    )
    (tmp_path / "nested.rst").write_text(
        "Nested\n======\n\n" + "".join("  " * level + "- item\n\n" for level in range(70)), encoding="utf-8"
    )
    (tmp_path / "good.md").write_text(GOOD_PAGE, encoding="utf-8")
    scan = scan_corpus(tmp_path)
    problems = {problem.path: problem.message for problem in scan.problems}
    assert problems == {"deep.rst": "its reStructuredText nests too many levels deep (at most 120 are converted); skipped it. Fix the file or exclude it (--exclude).",
                        "nested.rst": "its reStructuredText nests 142 levels deep (at most 120 are converted); skipped it. Fix the file or exclude it (--exclude)."}  # fmt: skip
    assert sorted({chunk.filepath for chunk in scan.chunks}) == ["good.md"]


def _notebook(cells: list[object], **extra: object) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, **extra})


def test_malformed_notebooks_are_each_their_own_problem(tmp_path: Path) -> None:
    """`"level": "abc"`, `[1]`, a 100,000-deep nesting each aborted the whole `index` with a traceback;
    `"level": 100000000` wrote a 100 MB heading."""
    docs = tmp_path / "docs"
    docs.mkdir()
    heading = {"cell_type": "heading", "source": "Heading words"}
    pages = {
        "level-text.ipynb": _notebook([{**heading, "level": "abc"}]),
        "level-list.ipynb": _notebook([{**heading, "level": [1]}]),
        "level-superscript.ipynb": _notebook([{**heading, "level": "²"}]),  # a digit to str.isdigit, not to int()
        "level-huge.ipynb": _notebook([{**heading, "level": 100_000_000}]),
        "worksheets.ipynb": json.dumps(
            {"worksheets": [{"cells": 5}, {"cells": [{"cell_type": "markdown", "source": "# Sheet\n\nSheet words."}]}]}
        ),
        "source-lists.ipynb": _notebook(
            [{"cell_type": "markdown", "source": ["# Lists\n\nList words. ", [[["nested"]]], 7]}]
        ),
        "deep.ipynb": '{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "deeper-than-read.ipynb": _notebook([], metadata=json.loads("[" * 150 + "]" * 150)),
        "good.md": GOOD_PAGE,
    }
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    done = _index(docs, tmp_path / "index")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (
        "error: deep.ipynb: its JSON nests too many levels deep (at most 100 are converted); skipped it." in done.stderr
    )
    assert (
        "error: deeper-than-read.ipynb: its JSON nests 150 levels deep (at most 100 are converted); skipped it."
        in done.stderr
    )
    assert "problems:     2 (listed above)" in done.stdout
    index = tmp_path / "index"
    for name in ("level-text.ipynb", "level-list.ipynb", "level-superscript.ipynb"):
        assert _indexed_text(index, name).startswith("# Heading words")
    assert _indexed_text(index, "level-huge.ipynb").startswith("###### Heading words")
    assert _indexed_text(index, "worksheets.ipynb").startswith("# Sheet\n\nSheet words.")
    assert _indexed_text(index, "source-lists.ipynb") == "# Lists\n\nList words."


def test_a_reader_that_raises_anything_fails_its_page_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader's SystemExit (a module a page made docutils import ran its main) passed the page-level catch."""
    from docs_mcp.indexer.corpus.formats import notebook

    def failing(text: str) -> tuple[str, str]:
        raise {"exit.ipynb": SystemExit(0), "memory.ipynb": MemoryError(), "stack.ipynb": RecursionError("deep")}[
            json.loads(text)["name"]
        ]

    monkeypatch.setattr(notebook, "notebook_to_markdown", failing)
    for name in ("exit.ipynb", "memory.ipynb", "stack.ipynb"):
        (tmp_path / name).write_text(json.dumps({"name": name}), encoding="utf-8")
    (tmp_path / "good.md").write_text(GOOD_PAGE, encoding="utf-8")
    scan = scan_corpus(tmp_path)
    assert {problem.path: problem.message.split(";")[0] for problem in scan.problems} == {
        "exit.ipynb": "the Jupyter notebook reader failed on it (SystemExit: 0)",
        "memory.ipynb": "the Jupyter notebook reader failed on it (MemoryError)",
        "stack.ipynb": "the Jupyter notebook reader failed on it (RecursionError: deep)",
    }
    assert [chunk.filepath for chunk in scan.chunks] == ["good.md"]


def test_page_text_cannot_plant_sections_or_tags(tmp_path: Path) -> None:
    """A `<pre><code>` holding a line of three backticks ended markdownify's fence, so the next `## X` line was a
    section; escaped `&lt;script&gt;` came back as a literal `<script>` line; text lines starting `## ` (HTML or
    reStructuredText) were headings."""
    (tmp_path / "page.rst").write_text(
        "Rst page\n========\n\nRst words\n## Rst plant\n\n## Second plant\n", encoding="utf-8"
    )
    (tmp_path / "page.html").write_text(
        "<html><head><title>Page\n## Title plant</title></head><body><main><h1>Page</h1><p>Intro words.</p>"
        "<pre><code>print('a')\n```\n## Fence plant\nprint('b')</code></pre>"
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p><p>\\&lt;b&gt;bold\\&lt;/b&gt;</p>"
        "<p>Line one\n## Text plant</p><p>## Paragraph plant</p><p><code>inline\n## Code plant</code></p>"
        "<h2>Real section</h2><p>Real words.</p></main></body></html>",
        encoding="utf-8",
    )
    (tmp_path / "notitle.html").write_text(
        "<html><head><title>Untitled\n## Title plant</title></head><body><p>Words without a heading.</p></body></html>",
        encoding="utf-8",
    )
    scan = scan_corpus(tmp_path)
    assert scan.problems == ()
    headings = sorted({heading for chunk in scan.chunks for heading in chunk.headings})
    assert headings == ["Page", "Real section", "Rst page", "Untitled ## Title plant"]
    content = "\n".join(chunk.content for chunk in scan.chunks if chunk.filepath == "page.html")
    assert "````\nprint('a')\n```\n## Fence plant\nprint('b')\n````" in content
    assert "\\<script>alert(1)\\</script>" in content and "\\\\\\<b>bold\\\\\\</b>" in content
    assert not any(line.startswith("<") for line in content.split("\n"))
