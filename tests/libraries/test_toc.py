"""Table-of-contents entries: descriptions from the first prose paragraph, sections from folders or globs."""

from __future__ import annotations

from docs_mcp.indexer.libraries.toc import DESCRIPTION_CHARS, ROOT_SECTION, describe, one_line, section_of, toc_entries
from docs_mcp.indexer.records import Chunk


def test_description_is_the_first_sentence_of_the_first_prose_paragraph() -> None:
    markdown = "# Title\n\n!!! note\n    An admonition.\n\n```py\ncode = 1\n```\n\nThe **first** [real](x.md) paragraph. Second sentence.\n"
    assert describe([markdown]) == "The first real paragraph."


def test_description_skips_chunks_without_prose() -> None:
    assert (
        describe(["# Only a title\n", "## Section\n\nProse lives in the second chunk here.\n"])
        == "Prose lives in the second chunk here."
    )
    assert describe(["# Title\n\n```\nx\n```\n"]) == ""


def test_a_long_sentence_is_cut_at_a_word_with_an_ellipsis() -> None:
    line = one_line("word " * 100)
    assert line.endswith("…")
    assert len(line) <= DESCRIPTION_CHARS + 1


def test_section_is_the_first_matching_glob_else_the_top_folder() -> None:
    globs = (("tutorial/advanced/**", "Advanced"), ("tutorial/**", "Tutorial"))
    assert section_of("tutorial/advanced/x.md", globs) == "Advanced"
    assert section_of("tutorial/y.md", globs) == "Tutorial"
    assert section_of("reference/z.md", globs) == "reference"
    assert section_of("index.md", globs) == ROOT_SECTION


def _chunk(path: str, index: int, content: str) -> Chunk:
    return Chunk(path + f"#c{index}", path, "", 0, path, index, 2, content, content, "")


def test_entries_are_one_per_document_in_path_order_under_the_mount() -> None:
    chunks = [
        _chunk("b/two.md", 0, "# Two\n\nSecond document text."),
        _chunk("a.md", 1, "## S\n\nLater text."),
        _chunk("a.md", 0, "# A\n\nFirst document text."),
    ]
    entries = toc_entries(chunks, {"a.md": "A", "b/two.md": "Two"}, (), "org/lib/")
    assert [(e.path, e.title, e.description, e.section) for e in entries] == [
        ("org/lib/a.md", "A", "First document text.", ROOT_SECTION),
        ("org/lib/b/two.md", "Two", "Second document text.", "b"),
    ]
