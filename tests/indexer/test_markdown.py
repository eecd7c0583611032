"""Markdown parsing: top-level blocks with exact source spans, heading texts, and search text."""

from __future__ import annotations

import pytest

from docs_mcp.indexer.corpus.markdown import clean_heading, parse_blocks, plain_text


def headings(source: str) -> list[tuple[int, str]]:
    return [(b.level, b.title) for b in parse_blocks(source) if b.level]


def test_hash_lines_inside_code_fences_are_not_headings() -> None:
    source = "# Title\n\n```python\n# a comment\n## not a heading\n```\n\n~~~\n# nor this\n~~~\n\n## Real\n"
    assert headings(source) == [(1, "Title"), (2, "Real")]


def test_setext_headings_are_headings() -> None:
    assert headings("Big Title\n=========\n\nSection\n-------\n\ntext\n") == [(1, "Big Title"), (2, "Section")]


def test_attribute_list_is_not_part_of_the_heading() -> None:
    source = "## Use CORS { #use-cors }\n\n### Kramdown {: #k .cls }\n\n## Braces {kept} in text\n"
    assert headings(source) == [(2, "Use CORS"), (3, "Kramdown"), (2, "Braces {kept} in text")]


def test_a_heading_id_in_a_jsx_comment_is_not_part_of_the_heading() -> None:
    source = "## Usage {/*usage*/}\n\n### `useState(initial)` {/*usestate-initial*/}\n\n## Code `{/*x*/}` kept\n"
    assert headings(source) == [(2, "Usage"), (3, "useState(initial)"), (2, "Code {/*x*/} kept")]


def test_heading_text_drops_inline_markup_but_keeps_code_text() -> None:
    source = "## Use `client.send()` with [links](https://example.com) and *emphasis* <span>tag</span>\n"
    assert headings(source) == [(2, "Use client.send() with links and emphasis tag")]


def test_closing_hashes_are_not_part_of_the_heading() -> None:
    assert headings("## Closed ##\n") == [(2, "Closed")]


def test_block_spans_are_the_source_as_written() -> None:
    source = "# T\n\nA *para*\nline two.\n\n- item\n- item two\n\n```\ncode\n```\n"
    assert [source[b.start : b.end] for b in parse_blocks(source)] == [
        "# T",
        "A *para*\nline two.",
        "- item\n- item two",
        "```\ncode\n```",
    ]


def test_a_link_definition_stays_in_the_source_spans() -> None:
    source = "[ref]: https://example.com\n\n# T\n\nSee [ref].\n"
    spans = "\n\n".join(source[b.start : b.end] for b in parse_blocks(source))
    assert spans == source.strip()


def test_search_text_keeps_code_blocks_and_inline_code() -> None:
    text = plain_text(parse_blocks("Call `get_token()` first.\n\n```python\nclient = Client(retries=3)\n```\n"))
    assert text == "Call get_token() first.\n\nclient = Client(retries=3)"


def test_search_text_drops_link_urls_and_autolinks() -> None:
    text = plain_text(parse_blocks("Read [the guide](https://x.example/guide) or <https://x.example>.\n"))
    assert text == "Read the guide or ."


def test_search_text_drops_html_comments_and_tags() -> None:
    source = (
        "<!-- editor note\nspanning lines -->\n\nVisible <b>bold</b> text<!-- inline -->.\n\n<div>\nin a div\n</div>\n"
    )
    assert plain_text(parse_blocks(source)) == "Visible bold text.\n\nin a div"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('!!! note "Take care"\n    Body text.\n', "Take care\nBody text."),
        ("??? tip\n    Hidden.\n", "Hidden."),
        ("/// warning | Beware\nInside.\n///\n", "Beware\nInside."),
        ("//// tab | Python\nCode tab.\n////\n", "Python\nCode tab."),
        (":::note[Heads up]\nDocusaurus.\n:::\n", "Heads up\nDocusaurus."),
        (":::tip Title here\nBody.\n:::\n", "Title here\nBody."),
    ],
    ids=[
        "mkdocs-admonition",
        "mkdocs-details",
        "pymdownx-block",
        "pymdownx-nested",
        "docusaurus-bracket",
        "docusaurus",
    ],
)
def test_search_text_drops_admonition_markers_and_keeps_titles(source: str, expected: str) -> None:
    assert plain_text(parse_blocks(source)) == expected


def test_search_text_drops_hugo_shortcodes_and_template_actions() -> None:
    source = (
        '{{< tabpane text=true >}}\n{{% include "x.md" %}}\n{{<tab>}}Tab body{{</tab>}}\n\nFor {{ $lang }} users.\n'
    )
    assert plain_text(parse_blocks(source)) == "Tab body\n\nFor users."


def test_search_text_drops_mdx_imports_exports_and_jsx() -> None:
    source = (
        "import Tabs from '@theme/Tabs';\nimport '@site/x.css';\nexport const meta = {a: 1};\n\n"
        '<Tabs groupId="lang">\n<TabItem value="py">\nPython tab.\n</TabItem>\n</Tabs>\n\n'
        "Import the module before use.\n"
    )
    assert plain_text(parse_blocks(source)) == "Python tab.\n\nImport the module before use."


def test_mdx_search_text_keeps_the_exported_title_and_description_only() -> None:
    source = (
        "import {Callout} from 'nextra/components'\nexport const title = 'Rate limits'\n"
        'export const description = "Requests per minute."\nexport const meta = {a: 1}\n\nBody.\n'
    )
    assert plain_text(parse_blocks(source), mdx=True) == "Rate limits\nRequests per minute.\n\nBody."


def test_search_text_drops_include_directives() -> None:
    source = '{* ../../docs_src/app.py hl[2] *}\n\n--8<-- "snippets/note.md"\n\nKept.\n'
    assert plain_text(parse_blocks(source)) == "Kept."


def test_indented_code_and_block_quotes_get_their_own_spans() -> None:
    source = "Para.\n\n    indented code\n    more\n\n> quote\nlazy line\n\n- list\n"
    assert [source[b.start : b.end] for b in parse_blocks(source)] == [
        "Para.",
        "    indented code\n    more",
        "> quote\nlazy line",
        "- list",
    ]


def test_clean_heading_matches_what_the_chunker_records() -> None:
    assert clean_heading("Use `CORSMiddleware` { #use-corsmiddleware }") == "Use CORSMiddleware"
    assert clean_heading("Plain") == "Plain"


def test_inline_code_survives_the_markup_cleaners() -> None:
    source = "## `Map<K, V>` { #map }\n\nUse `List<String>` and `{{ .Values }}` but not <b>tags</b>.\n"
    blocks = parse_blocks(source)
    assert blocks[0].title == "Map<K, V>"
    assert plain_text(blocks) == "Map<K, V>\n\nUse List<String> and {{ .Values }} but not tags."
