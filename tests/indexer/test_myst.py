"""MyST markdown (Sphinx's markdown) read as the site shows it, on real pages (fixtures/outline/README.md has their sources).

Roles read as the code they mark, a target label gives its words to no section, a directive fence shows its
argument and its body (markdown as prose, code as code, a table of contents nothing), and every page keeps its
chunk IDs and its content as written.
"""

from __future__ import annotations

from pathlib import Path

from docs_mcp.indexer.corpus import myst
from docs_mcp.indexer.corpus.markdown import parse_blocks, plain_text
from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.records import Chunk

OUTLINE = Path(__file__).parent / "fixtures" / "outline"


def chunks_by_heading(root: Path, filepath: str) -> dict[str, Chunk]:
    return {chunk.heading or "_preamble": chunk for chunk in scan_corpus(root).chunks if chunk.filepath == filepath}


def test_roles_read_as_the_code_they_mark_and_an_explicit_title_as_its_title_click() -> None:
    chunks = chunks_by_heading(OUTLINE / "click", "arguments.md")
    basic = chunks["Basic Arguments"]
    assert "{class}`click.Argument`" in basic.content  # the page as written
    assert "A minimal click.Argument solely takes" in basic.text
    # {ref}`parameter type <parameter-types>` and {data}`STRING`: the reader sees "parameter type" and STRING.
    assert "assigned a parameter type.\n" in basic.text and "parameter-types" not in basic.text
    assert "otherwise STRING is used" in basic.text
    assert not any(f"{{{role}}}" in chunk.text for chunk in chunks.values() for role in ("ref", "class", "data"))
    # A role whose explicit title runs over two lines.
    assert "or be documented in the command docstring." in " ".join(chunks["_preamble"].text.split())


def test_a_target_label_gives_its_words_to_no_section_click() -> None:
    chunks = chunks_by_heading(OUTLINE / "click", "arguments.md")
    before = chunks["Argument Escape Sequences"]  # the label (environment-variables)= ends this section's source
    assert before.content.endswith("(environment-variables)=")
    assert "environment" not in before.text and "variables" not in before.text
    assert chunks["Environment Variables"].text.startswith("Environment Variables\n\nArguments can use environment")


def test_a_directive_shows_its_argument_and_body_not_its_options_click() -> None:
    chunks = chunks_by_heading(OUTLINE / "click", "arguments.md")
    preamble, multiple = chunks["_preamble"], chunks["Multiple Arguments"]
    assert "currentmodule" not in preamble.text and "```{currentmodule} click" in preamble.content
    # ```{admonition} Note on Handling Files / :class: note / the note, with a role in it.
    assert "Note on Handling Files\nThis is not how you should handle files" in multiple.text
    assert ":class:" not in multiple.text and "See handling-files to learn" in multiple.text
    # eval-rst stays code, as before: the example's source is what a search for it finds.
    assert "@click.argument('dsts', nargs=-1)" in multiple.text


def test_a_label_before_the_title_leaves_the_title_alone_and_terms_read_as_their_titles_attrs() -> None:
    chunks = chunks_by_heading(OUTLINE / "attrs", "how-does-it-work.md")
    preamble = chunks["_preamble"]
    assert preamble.content == "(how)=\n\n# How Does It Work?" and preamble.text == "How Does It Work?"
    boilerplate = chunks["Boilerplate"]
    # {term}`dict <dict classes>`, {term}`slotted <slotted classes>`, {doc}`types`
    assert "whether you wish to have a dict or slotted class" in boilerplate.text
    assert "possible to define them using types." in boilerplate.text


def test_a_colon_fence_shows_its_body_and_its_nested_fences_argument_attrs() -> None:
    [glossary] = chunks_by_heading(OUTLINE / "attrs", "glossary.md").values()
    assert glossary.content.startswith("# Glossary\n\n:::{glossary}")
    assert ":::" not in glossary.text and "{glossary}" not in glossary.text and "{note}" not in glossary.text
    assert "dunder methods\n" in glossary.text
    assert "attribute of every single instance" in glossary.text and "{attr}" not in glossary.text


def test_a_colon_fence_body_indented_four_spaces_reads_as_markdown_not_code_structlog() -> None:
    # A glossary's definitions indented by four spaces after a blank line: CommonMark makes them code blocks.
    [glossary] = chunks_by_heading(OUTLINE / "structlog", "glossary.md").values()
    assert "\n    It's the result of the values bound to the {term}`bound logger`'s context" in glossary.content
    assert "It's the result of the values bound to the bound logger's context" in glossary.text
    assert "bound-loggers" in glossary.text and "`" not in glossary.text and ":::" not in glossary.text


def test_fences_nested_hundreds_deep_are_read_to_a_bound_not_recursed_without_one(tmp_path: Path) -> None:
    # A hostile page: each fence needs one backtick more than the one inside it; colon fences nest by indenting.
    depth = 400
    fenced = [("`" * (3 + depth - level)) + "{note}" for level in range(depth)]
    fenced += ["deep fenced words"] + [("`" * (3 + depth - level)) for level in reversed(range(depth))]
    (tmp_path / "fenced.md").write_text("# Fenced\n\n" + "\n".join(fenced) + "\n")
    body = "deep colon words"
    for _ in range(300):
        body = ":::{note}\n\n" + "\n".join("    " + line for line in body.split("\n")) + "\n:::"
    (tmp_path / "colon.md").write_text("# Colon\n\n" + body + "\n")
    texts: dict[str, str] = {}
    for chunk in scan_corpus(tmp_path).chunks:  # a page this large is cut into parts between its blocks
        texts[chunk.filepath] = texts.get(chunk.filepath, "") + chunk.text
    assert "deep fenced words" in texts["fenced.md"] and "deep colon words" in texts["colon.md"]
    assert "{note}" in texts["fenced.md"]  # below MAX_NESTED_DIRECTIVES the fences stay as written


def test_long_runs_of_spaces_in_roles_and_colon_fences_are_read_in_one_pass() -> None:
    # A lazy match before trailing spaces backtracked once per space: quadratic, hours for these 2,000,000 (0.6 s
    # for 8,000 with b185032's patterns); the role's title and the fence's argument are now found in one pass.
    many = " " * 2_000_000
    assert myst.role_text("see {ref}", f"{many}<x") == ("see ", f"{many}<x")
    assert myst.role_text("see {ref}", f"the title{many}<target>") == ("see ", "the title")
    assert myst.colon_fence_argument(f":::{{note}} A{many}B") == f"A{many}B"
    spaces = " " * 200_000
    source = f"Use {{ref}}`{spaces}<x` here.\n\n:::{{note}} A{spaces}B\nbody\n:::\n"
    text = plain_text(parse_blocks(source))
    assert text.startswith("Use ") and "<x here." in text and "body" in text
    assert " ".join(text.split()) == "Use <x here. A B body"


def test_a_heading_keeps_its_role_so_its_chunk_id_does_not_move(tmp_path: Path) -> None:
    # Click's utils.md: a heading's text makes its chunk ID, as the reference server makes it.
    (tmp_path / "utils.md").write_text("# Utilities\n\n## {kbd}`Ctrl+C` in the pager\n\nIt stops the program.\n")
    [_, section] = scan_corpus(tmp_path).chunks
    assert section.chunk_id == "utils.md#utilities/kbdctrlc-in-the-pager"
    assert section.text == "{kbd}Ctrl+C in the pager\n\nIt stops the program."


def test_fences_myst_does_not_define_stay_code() -> None:
    # R Markdown's and Quarto's chunks, MkDocs' attribute lists and a role-like word inside a path.
    source = (
        "```{r setup}\nx <- 1\n```\n\n```{ .dockerfile .annotate }\nFROM python\n```\n\n"
        "```{python}\n:not-an-option: 1\n```\n\nThe route /items/{item_id}`x` stays.\n"
    )
    assert plain_text(parse_blocks(source)) == (
        "x <- 1\n\nFROM python\n\n:not-an-option: 1\n\nThe route /items/{item_id}x stays."
    )
