"""Splitting one page into chunks: levels, IDs, size bounds, and the fields each chunk carries."""

from __future__ import annotations

import re
from dataclasses import asdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.corpus.chunking import Page, chunk_page
from docs_mcp.indexer.errors import IndexerError
from docs_mcp.indexer.records import Chunk, Strategy


def chunk(source: str, chunk_by: str = "h2", max_size: int = 20_000, front_title: str = "") -> tuple[Chunk, ...]:
    return chunk_page(Page("doc.md", Strategy(chunk_by, max_size), {"scope": "guide"}, front_title), source)


def ids(source: str, **kwargs: object) -> list[str]:
    return [c.chunk_id for c in chunk(source, **kwargs)]  # type: ignore[arg-type]


def test_h1_title_prefixes_section_ids() -> None:
    assert ids("# Retries Guide\n\n## Backoff Strategy\n\nText.\n") == [
        "doc.md#_preamble",
        "doc.md#retries-guide/backoff-strategy",
    ]


def test_text_before_the_first_split_heading_is_the_preamble() -> None:
    chunks = chunk("Lead text.\n\n## Alpha\n\nA.\n")
    assert [(c.chunk_id, c.content) for c in chunks] == [
        ("doc.md#_preamble", "Lead text."),
        ("doc.md#alpha", "## Alpha\n\nA."),
    ]


def test_a_page_without_split_level_headings_splits_at_the_highest_level_it_uses_below() -> None:
    chunks = chunk(
        "# Only Title\n\nBody.\n\n#### Deepest\n\nIntro.\n\n### Deeper\n\nOwn section.\n\n#### Inside\n\nStays.\n"
    )
    assert [(c.chunk_id, c.heading, c.headings) for c in chunks] == [
        ("doc.md#_preamble", "", ("Only Title", "Deepest")),
        ("doc.md#only-title/deeper", "Deeper", ("Deeper", "Inside")),
    ]
    assert ids("# Only Title\n\nBody.\n\n### Deeper\n\nText.\n", chunk_by="h3") == [
        "doc.md#_preamble",
        "doc.md#only-title/deeper",
    ]


def test_a_page_with_no_heading_below_the_split_level_is_one_preamble() -> None:
    assert ids("# One\n\nA.\n\n# Two\n\nB.\n") == ["doc.md#_preamble"]
    assert ids("Lead.\n\n## A\n\nA.\n", chunk_by="h3") == ["doc.md#_preamble"]


def test_no_preamble_when_the_page_starts_with_a_split_heading() -> None:
    assert ids("## First\n\nA.\n\n## Second\n\nB.\n") == ["doc.md#first", "doc.md#second"]


def test_duplicate_headings_are_numbered_and_descendants_use_the_new_slug() -> None:
    source = "# API\n\n## Links\n\n### Create\n\n### Create\n\n## Links\n\n### Create\n"
    assert ids(source, chunk_by="h3") == [
        "doc.md#_preamble",
        "doc.md#api/links/create",
        "doc.md#api/links/create-2",
        "doc.md#api/links-2/create",
    ]


def test_an_h1_after_an_h2_starts_a_chunk_with_its_intro() -> None:
    chunks = chunk("# Part A\n\n## Setup\n\nA.\n\n# Part B\n\nB intro.\n\n## Setup\n\nB.\n")
    assert [(c.chunk_id, c.heading_level, c.content) for c in chunks] == [
        ("doc.md#_preamble", 0, "# Part A"),
        ("doc.md#part-a/setup", 2, "## Setup\n\nA."),
        ("doc.md#part-b", 1, "# Part B\n\nB intro."),
        ("doc.md#part-b/setup", 2, "## Setup\n\nB."),
    ]


def test_a_bare_heading_above_the_split_level_stays_at_the_end_of_the_section_before() -> None:
    chunks = chunk("# Part A\n\n## Setup\n\nA.\n\n# Part B\n\n## Setup\n\nB.\n")
    assert [c.chunk_id for c in chunks] == ["doc.md#_preamble", "doc.md#part-a/setup", "doc.md#part-b/setup"]
    assert chunks[1].content == "## Setup\n\nA.\n\n# Part B"  # the reference's chunk, kept


def test_a_section_with_no_words_beyond_its_headings_has_no_search_text() -> None:
    chunks = chunk(
        "# Title\n\n## Sessions\n\n### `requests.Session`\n\n`Session`\n\n## Use\n\nSessions persist cookies.\n"
    )
    assert [(c.chunk_id, c.text) for c in chunks] == [
        ("doc.md#_preamble", "Title"),  # the title alone names the page: it still ranks
        ("doc.md#title/sessions", ""),
        ("doc.md#title/use", "Use\n\nSessions persist cookies."),
    ]
    assert chunks[1].content == "## Sessions\n\n### `requests.Session`\n\n`Session`"  # get_doc still shows it


def test_h1_and_h3_strategies() -> None:
    source = "Lead.\n\n# One\n\n## Sub\n\n### Deep\n\n# Two\n"
    assert ids(source, chunk_by="h1") == ["doc.md#_preamble", "doc.md#one", "doc.md#two"]
    assert ids(source, chunk_by="h3") == ["doc.md#_preamble", "doc.md#one/sub/deep"]


def test_file_strategy_gives_one_chunk_with_the_bare_path() -> None:
    chunks = chunk("# Errors\n\n## NotFound\n\nText.\n", chunk_by="file")
    assert [(c.chunk_id, c.heading, c.breadcrumb, c.content) for c in chunks] == [
        ("doc.md", "", "doc.md", "# Errors\n\n## NotFound\n\nText.")
    ]


def test_hash_lines_in_code_do_not_split() -> None:
    source = "# Code\n\n```bash\n# comment\n## also a comment\n```\n\n## Real\n\nText.\n"
    assert ids(source) == ["doc.md#_preamble", "doc.md#code/real"]


def test_setext_headings_split() -> None:
    assert ids("Title\n=====\n\nSection\n-------\n\nBody.\n") == ["doc.md#_preamble", "doc.md#title/section"]


def test_attribute_list_headings_split_on_their_text() -> None:
    chunks = chunk("# Guide { #guide }\n\n## Use CORS { #use-cors }\n\nText.\n")
    assert [(c.chunk_id, c.heading) for c in chunks][1] == ("doc.md#guide/use-cors", "Use CORS")
    assert chunks[1].content.startswith("## Use CORS { #use-cors }")


def test_oversized_section_splits_at_its_sub_headings_first() -> None:
    body = "word " * 30
    source = f"# G\n\n## Big\n\nIntro.\n\n### One\n\n{body}\n\n### Two\n\n{body}\n\n## Small\n\nTail.\n"
    chunks = chunk(source, max_size=200)
    assert [(c.chunk_id, c.heading_level, c.breadcrumb) for c in chunks] == [
        ("doc.md#_preamble", 0, "doc.md"),
        ("doc.md#g/big", 2, "doc.md > G > Big"),
        ("doc.md#g/big/one", 3, "doc.md > G > Big > One"),
        ("doc.md#g/big/two", 3, "doc.md > G > Big > Two"),
        ("doc.md#g/small", 2, "doc.md > G > Small"),
    ]
    assert chunks[1].content == "## Big\n\nIntro."


def test_oversized_section_without_sub_headings_splits_between_blocks_into_parts() -> None:
    para = "word " * 20
    code = "```\n" + "x = 1\n" * 30 + "```"
    source = f"## Big\n\n{para}\n\n{code}\n\n{para}\n\n- item one\n- item two\n"
    chunks = chunk(source, max_size=150)
    assert [c.chunk_id for c in chunks] == ["doc.md#big", "doc.md#big-part-2", "doc.md#big-part-3"]
    assert len(code) > 150 and chunks[1].content == code  # larger than the limit, yet never cut
    assert chunks[2].content == f"{para}\n\n- item one\n- item two"
    assert {c.heading_level for c in chunks} == {2}  # parts keep the section's own level
    assert [c.headings for c in chunks[1:]] == [("Big",)] * 2


def test_an_oversized_list_splits_between_items_never_inside_one() -> None:
    item = "- " + "word " * 20 + "\n  continued line of the same item"  # 136 characters
    fenced = "- item with code\n\n  ```\n  - not an item\n  ```"
    source = "## Changes\n\n" + "\n".join([item, item, fenced, item]) + "\n"
    chunks = chunk(source, max_size=120)
    assert [c.chunk_id for c in chunks] == ["doc.md#changes"] + [f"doc.md#changes-part-{n}" for n in range(2, 6)]
    assert [c.content for c in chunks] == ["## Changes", item, item, fenced, item]


def test_oversized_preamble_parts() -> None:
    para = "word " * 20
    assert ids(f"{para}\n\n{para}\n", max_size=120) == ["doc.md#_preamble", "doc.md#_preamble-part-2"]


def test_front_matter_title_stands_in_for_a_missing_h1_in_breadcrumbs_not_ids() -> None:
    chunks = chunk("Intro.\n\n## Alpha\n\nA.\n", front_title="Page Title")
    assert [(c.chunk_id, c.breadcrumb, c.heading_path, c.title) for c in chunks] == [
        ("doc.md#_preamble", "doc.md", (), "Page Title"),
        ("doc.md#alpha", "doc.md > Page Title > Alpha", ("Page Title", "Alpha"), "Page Title"),
    ]


def test_title_is_the_h1_then_the_front_matter_title_then_the_file_stem() -> None:
    assert chunk("# Heading One\n\nx\n", front_title="FM")[0].title == "Heading One"
    assert chunk("text\n", front_title="FM")[0].title == "FM"
    assert chunk("text\n")[0].title == "doc"


def test_chunk_fields(snapshot) -> None:  # type: ignore[no-untyped-def]
    source = (
        "# Client Guide\n\nIntro with `code`.\n\n## Install { #install }\n\n"
        '!!! note "Versions"\n    Python 3.11+.\n\n```bash\npip install client\n```\n\n'
        "### From source\n\nClone [the repo](https://example.com).\n\n## Usage\n\n<!-- hidden -->\nCall `Client()`.\n"
    )
    assert [asdict(c) for c in chunk(source)] == snapshot


def test_an_empty_page_has_no_chunks() -> None:
    assert chunk("") == ()
    assert chunk("\n  \n") == ()


_markdown_pieces = st.sampled_from(
    [
        "# Title",
        "## Section",
        "### Sub",
        "## Section",
        "#",
        "Setext\n===",
        "Under\n---",
        "plain text",
        "```\n# not a heading\n```",
        "```unclosed\n## x",
        "- a\n- b",
        "- x\n\n  ```\n  - y\n  ```\n- z\n  1. n",
        "> quote\n> ## inner",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "<!-- c -->",
        "<div>\n## x\n</div>",
        "!!! note",
        "{{< x >}}",
        "[r]: http://x",
        "    indented",
        "\t# tab",
        "***",
        "## `code` *em* [l](u)",
        "## { #only-attr }",
        "Ünïcödé ## text",
        "\r\n",
    ]
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    pieces=st.lists(st.one_of(_markdown_pieces, st.text(max_size=40)), max_size=14),
    seps=st.sampled_from(["\n", "\n\n", ""]),
    chunk_by=st.sampled_from(["h1", "h2", "h3", "file"]),
    max_size=st.sampled_from([20, 80, 20_000]),
)
def test_chunking_never_fails_keeps_ids_unique_and_covers_the_page(
    pieces: list[str], seps: str, chunk_by: str, max_size: int
) -> None:
    source = seps.join(pieces).replace("\r\n", "\n").replace("\r", "\n")
    try:
        chunks = chunk(source, chunk_by=chunk_by, max_size=max_size)
    except IndexerError:
        return
    chunk_ids = [c.chunk_id for c in chunks]
    assert len(chunk_ids) == len(set(chunk_ids))
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    # Each chunk is the page's own text, in order, with only whitespace left between chunks.
    position = 0
    for c in chunks:
        found = source.find(c.content, position)
        assert found >= 0 and not source[position:found].strip()
        position = found + len(c.content)
    assert not source[position:].strip()
    assert all(re.fullmatch(r"doc\.md(#.+)?", i) for i in chunk_ids)
