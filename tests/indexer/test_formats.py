"""Every format docs-mcp reads, on real pages (tests/indexer/fixtures/formats/README.md says whose):
reStructuredText, HTML, Jupyter notebooks and MDX chunk by heading path with markdown's ID grammar."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from corpus_files import write_corpus

from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.corpus.formats import convert
from docs_mcp.indexer.corpus.formats.html import _Element
from docs_mcp.indexer.corpus.formats.notebook import OUTPUT_LINES
from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.records import Chunk

FORMATS = Path(__file__).parent / "fixtures" / "formats"
# filepath, or filepath#slug/slug...(-part-N): slugs keep [a-z0-9-], or are _preamble.
CHUNK_ID = re.compile(r"[^#]+(?:#(?:_preamble|_part-\d+|[a-z0-9-]+(?:/[a-z0-9-]+)*))?")


@pytest.fixture(scope="module")
def scan():
    return scan_corpus(FORMATS)


def chunks_of(scan, filepath: str) -> list[Chunk]:
    return [chunk for chunk in scan.chunks if chunk.filepath == filepath]


def outline(chunks: list[Chunk]) -> list[dict[str, object]]:
    """What the snapshots keep of a page's chunks: IDs, heading paths, and the start of what get_doc and search see."""
    return [
        {"id": c.chunk_id, "heading_path": list(c.heading_path), "content": c.content[:240], "text": c.text[:240]}
        for c in chunks
    ]


@pytest.mark.parametrize(
    "filepath",
    [
        "rst/authentication.rst",
        "rst/api.rst",
        "html/tutorial/venv.html",
        "html/library/bisect.html",
        "notebooks/Running Code.ipynb",
        "notebooks/Typesetting Equations.ipynb",
        "mdx/what-is-mdx.mdx",
        "zh/tutorial/background-tasks.md",
    ],
)
def test_each_format_chunks_by_heading_path(scan, snapshot, filepath: str) -> None:
    chunks = chunks_of(scan, filepath)
    assert chunks and all(CHUNK_ID.fullmatch(c.chunk_id) for c in chunks)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert outline(chunks) == snapshot


def test_the_real_folder_reads_every_page_without_a_problem(scan) -> None:
    assert scan.problems == ()
    assert set(scan.files) == {str(p.relative_to(FORMATS)) for p in FORMATS.rglob("*") if p.is_file()}


def test_restructuredtext_sections_code_and_sphinx_roles(scan) -> None:
    chunks = {c.chunk_id: c for c in chunks_of(scan, "rst/authentication.rst")}
    basic = chunks["rst/authentication.rst#authentication/basic-authentication"]
    assert basic.heading_path == ("Authentication", "Basic Authentication")
    assert "```\n>>> from requests.auth import HTTPBasicAuth" in basic.content  # a `::` literal block, fenced
    assert "netrc Authentication" in basic.headings  # the ~~~ subsection inside the h2 chunk
    custom = chunks["rst/authentication.rst#authentication/new-forms-of-authentication"]
    assert "subclass `AuthBase` and implement" in custom.content  # :class:`AuthBase <requests.auth.AuthBase>`
    # Hyperlink targets (`.. _OAuth: https://...`) leave no text; their references keep their words and address.
    assert ".. _" not in "".join(chunks[i].content for i in chunks)
    assert (
        "[OAuth](https://oauth.net/)" in chunks["rst/authentication.rst#authentication/oauth-1-authentication"].content
    )


def test_sphinx_object_descriptions_keep_their_signatures(scan) -> None:
    text = "\n".join(c.content for c in chunks_of(scan, "rst/api.rst"))
    assert "`requests.request`" in text and "`requests.Session`" in text  # .. autofunction:: / .. autoclass::
    assert "system_message" not in text and "Unknown directive" not in text


def test_rst_includes_stay_inside_the_docs_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    (tmp_path / "secret.rst").write_text("Secret\n======\n\nThe password is hunter2.\n", encoding="utf-8")
    (docs / "snippets" / "shared.rst").write_text("Shared words from an include.\n", encoding="utf-8")
    (docs / "snippets" / "example.py").write_text("print('included code')\n", encoding="utf-8")
    (docs / "page.rst").write_text(
        "Page\n====\n\n.. include:: snippets/shared.rst\n\n.. literalinclude:: snippets/example.py\n\n"
        ".. include:: ../secret.rst\n\n.. csv-table:: Data\n   :file: ../secret.rst\n\nEnd.\n",
        encoding="utf-8",
    )
    scan = scan_corpus(docs)
    content = "\n".join(c.content for c in scan.chunks)
    assert "Shared words from an include." in content
    assert "```python\nprint('included code')\n```" in content
    assert "hunter2" not in content and "End." in content
    (problem,) = scan.problems
    assert problem.severity == "warning" and problem.message.startswith(
        "../secret.rst is outside the docs folder: not included, by design"
    )


def test_sphinxs_standard_layout_says_its_root_includes_are_refused_by_design_and_how_to_include_them(
    tmp_path: Path,
) -> None:
    project = write_corpus(tmp_path / "flask", {
        "CHANGES.rst": "Version 3.0.0\n-------------\n\nReleased 2023-09-30.\n",
        "docs/index.rst": "Flask\n=====\n\nWelcome.\n",
        "docs/changes.rst": "Changes\n=======\n\n.. include:: ../CHANGES.rst\n",
    })  # fmt: skip
    (problem,) = scan_corpus(project / "docs").problems
    assert str(problem) == (
        "changes.rst: ../CHANGES.rst is outside the docs folder: not included, by design (a page reads only files inside the "
        "folder being indexed); indexed the rest of the page. To include the project's root files, index the project folder: "
        "docs-mcp index PROJECT --include 'docs/**' --include '*.rst'."
    )
    # What the advice says works: from the project folder, the page includes its root file.
    scan = scan_corpus(project, rules=FileRules(include=("docs/**", "*.rst")))
    assert scan.problems == () and "Released 2023-09-30." in "\n".join(
        c.content for c in scan.chunks if c.filepath == "docs/changes.rst"
    )


def test_html_keeps_the_main_content_and_code_languages(scan) -> None:
    chunks = chunks_of(scan, "html/tutorial/venv.html")
    content = "\n".join(c.content for c in chunks)
    assert chunks[0].title == "12. Virtual Environments and Packages"
    assert "¶" not in content and "Navigation" not in content and "Theme" not in content  # headerlinks, nav, switcher
    assert "```python3\npython3 -m venv tutorial-env\n```" in content  # the page's own label (highlight-python3)
    assert "```bash\n$ source ~/envs/tutorial-env/bin/activate" in content
    assert "12.2. Creating Virtual Environments" in [h for c in chunks for h in c.headings]


def test_notebook_cells_become_markdown_and_code_with_bounded_outputs(scan) -> None:
    chunks = chunks_of(scan, "notebooks/Running Code.ipynb")
    content = "\n".join(c.content for c in chunks)
    assert chunks[0].title == "Running Code"
    assert "```python\nprint(a)\n```\n\n```text\n10\n```" in content
    outputs = re.findall(r"```text\n(.*?)\n```", content, re.DOTALL)
    assert max(len(o.split("\n")) for o in outputs) == OUTPUT_LINES + 1  # the 50-line output: 12 lines, then "..."
    assert "2535301200456458802993406410751" not in content  # the long tail of a large output is not indexed


def test_notebook_json_errors_are_problems(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "ok.md").write_text("# Ok\n\nText.\n", encoding="utf-8")
    scan = scan_corpus(tmp_path)
    (problem,) = scan.problems
    assert problem.path == "broken.ipynb" and problem.message.startswith("invalid notebook JSON at line 1")


@pytest.mark.parametrize("levels", [330, 5_000])
def test_html_nested_deeper_than_the_converter_reads_is_a_problem_not_a_crash(tmp_path: Path, levels: int) -> None:
    """A page ~330 levels deep ended the conversion with a RecursionError (an INTERNAL_ERROR when fetched)."""
    text = "<p>Retries back off exponentially, with jitter, five times at most.</p>"
    (tmp_path / "deep.html").write_text(
        f"<html><body>{'<div>' * levels}{text}{'</div>' * levels}</body></html>", encoding="utf-8"
    )
    (tmp_path / "ok.md").write_text("# Ok\n\nText.\n", encoding="utf-8")
    scan = scan_corpus(tmp_path)
    (problem,) = scan.problems
    assert problem.path == "deep.html" and problem.message.startswith(
        f"its HTML nests {levels + 3} levels deep (at most 200 are converted)"
    )
    assert [chunk.filepath for chunk in scan.chunks] == ["ok.md"]


def test_mdx_keeps_esm_and_jsx_out_of_the_search_text(scan) -> None:
    chunks = chunks_of(scan, "mdx/what-is-mdx.mdx") + chunks_of(scan, "mdx/frontmatter.mdx")
    text = "\n".join(c.text for c in chunks)
    assert "export const info" not in text and "navSortSelf" not in text and "{/* more */}" not in text
    assert "import {Note}" not in text and "This article explains what the MDX format is." in text
    assert "export const info" in chunks[0].content  # get_doc shows the page as written


def test_a_format_page_round_trips_through_get_doc(tmp_path: Path) -> None:
    from mcp_session import serve_over_stdio

    from docs_mcp.indexer import build_index

    docs = tmp_path / "docs"
    shutil.copytree(FORMATS, docs)
    build_index(docs, tmp_path / "index", embeddings="none")
    scan = scan_corpus(docs)
    with serve_over_stdio(tmp_path / "index", tmp_path / "server.log") as session:
        for chunk in [
            chunks_of(scan, path)[1]
            for path in (
                "rst/authentication.rst",
                "html/library/bisect.html",
                "notebooks/Running Code.ipynb",
                "mdx/what-is-mdx.mdx",
            )
        ]:
            text = session.call("get_doc", {"chunk_id": chunk.chunk_id}).content[0].text
            header, _, body = text.partition("\n")
            assert header == f"--- Chunk: {chunk.chunk_id} (Chunk 2 of {chunk.file_chunk_count}) (Target) ---"
            assert body == chunk.content
        hits = session.search(query="HTTPDigestAuth")["hits"]
        assert hits[0]["chunk_id"] == "rst/authentication.rst#authentication/digest-authentication"


def test_markdown_json_is_not_a_page(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps({"cells": []}), encoding="utf-8")
    assert scan_corpus(tmp_path).other_files == {".json": 1}


def test_convert_refuses_an_unknown_suffix(tmp_path: Path) -> None:
    from docs_mcp.indexer.corpus.formats import FormatError

    with pytest.raises(FormatError, match="no reader for .txt"):
        convert("notes.txt", tmp_path / "notes.txt", tmp_path, "hi")


def test_api_objects_are_sections_named_by_their_qualified_names(scan) -> None:
    bisect = {c.heading_path[-1]: c for c in chunks_of(scan, "html/library/bisect.html") if c.heading_path}
    assert (
        bisect["bisect.insort_left"].chunk_id
        == "html/library/bisect.html#bisect-array-bisection-algorithm/bisectinsortleft"
    )
    assert bisect["bisect.insort_left"].content.startswith(
        "## `bisect.insort_left`\n\n`bisect.insort_left(a, x, lo=0, hi=len(a), *, key=None)`"
    )
    main = next(c for c in chunks_of(scan, "rst/api.rst") if c.heading == "Main Interface")
    assert main.headings[1:4] == (
        "requests.request",
        "requests.head",
        "requests.get",
    )  # .. autofunction:: in .. module:: requests


def test_the_converters_quick_parent_lookup_answers_as_bs4s_on_a_real_page() -> None:
    page = (FORMATS / "html" / "library" / "bisect.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(page, "html.parser", element_classes={Tag: _Element})
    tags = soup.find_all(True)
    assert any(tag.find_parent("pre") for tag in tags)  # the page has code, so both answers occur
    for tag in tags:
        for name in ("pre", "dl", "section", "html", "nothing"):
            assert tag.find_parent(name) is Tag.find_parent(tag, name), (tag.name, name)
