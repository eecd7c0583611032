"""Front matter: fields read, hints, and pages whose front matter strict parsers reject."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.corpus.frontmatter import read_front_matter
from docs_mcp.indexer.records import Strategy


def test_yaml_title_metadata_and_body() -> None:
    front = read_front_matter("---\ntitle: '  My Page '\nmetadata:\n  language: python\n  version: 3\n---\n# Body\n")
    assert (front.title, dict(front.metadata), front.body, front.warnings) == (
        "My Page",
        {"language": "python", "version": "3"},
        "# Body\n",
        (),
    )


def test_mcp_metadata_wins_over_metadata() -> None:
    front = read_front_matter("---\nmetadata: {language: python, scope: a}\nmcp_metadata: {language: go}\n---\nx\n")
    assert dict(front.metadata) == {"language": "go", "scope": "a"}


def test_mcp_strategy_and_chunking_hint() -> None:
    assert read_front_matter("---\nmcp_strategy: {chunk_by: h3, max_chunk_size: 500}\n---\nx\n").strategy == Strategy(
        "h3", 500
    )
    # A bare hint replaces the whole strategy, as in the reference: the size limit returns to its default.
    assert read_front_matter("---\nmcp_chunking_hint: file\n---\nx\n").strategy == Strategy("file")
    assert read_front_matter("---\nmcp_strategy: {chunk_by: h1}\nmcp_chunking_hint: h3\n---\n").strategy == Strategy(
        "h1"
    )


def test_html_comment_hint_sets_chunk_by_only() -> None:
    front = read_front_matter('<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n# Hinted\n')
    assert (front.chunk_by_hint, front.strategy, front.body) == (
        "h3",
        None,
        '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n# Hinted\n',
    )


def test_invalid_hints_are_ignored_with_a_warning_naming_the_valid_values() -> None:
    front = read_front_matter('---\nmcp_chunking_hint: h9\n---\n<!-- mcp_chunking_hint: {"chunk_by": 2} -->\n')
    assert front.strategy is None and front.chunk_by_hint is None
    assert len(front.warnings) == 2 and all("h1, h2, h3, file" in w for w in front.warnings)
    sized = read_front_matter("---\nmcp_strategy: {chunk_by: h2, max_chunk_size: -1}\n---\n")
    assert sized.strategy is None and "max_chunk_size must be a positive whole number" in sized.warnings[0]


def test_invalid_metadata_values_are_dropped_with_a_warning() -> None:
    front = read_front_matter("---\nmetadata:\n  language: [a, b]\n  scope: guide\n---\n")
    assert dict(front.metadata) == {"scope": "guide"}
    assert front.warnings == ("front matter `metadata.language` must be a non-empty text value; ignored it.",)


def test_yaml_that_strict_parsers_reject_still_gives_its_body_and_title() -> None:
    # The shape found in PowerShell-Docs: an unquoted value that starts with '%'.
    text = "---\nschema: 2.0.0\naliases:\n  - %\n  - foreach\ntitle: ForEach-Object\n---\n# ForEach-Object\n"
    front = read_front_matter(text)
    assert (front.title, front.body) == ("ForEach-Object", "# ForEach-Object\n")
    assert len(front.warnings) == 1 and front.warnings[0].startswith("front matter is not valid YAML (line 4)")


def test_front_matter_that_is_not_a_mapping_is_ignored_with_a_warning() -> None:
    front = read_front_matter("---\n- a\n- b\n---\nBody\n")
    assert (front.title, front.body) == ("", "Body\n")
    assert "not a YAML mapping" in front.warnings[0]


def test_toml_front_matter() -> None:
    front = read_front_matter('+++\ntitle = "Hugo Page"\n[metadata]\nlanguage = "go"\n+++\nBody\n')
    assert (front.title, dict(front.metadata), front.body) == ("Hugo Page", {"language": "go"}, "Body\n")


def test_no_front_matter_leaves_the_text_alone() -> None:
    text = "# Title\n\n---\n\nA thematic break above is not front matter.\n"
    assert read_front_matter(text).body == text


def test_empty_front_matter_block() -> None:
    front = read_front_matter("---\n---\nBody\n")
    assert (front.body, front.title, front.warnings) == ("Body\n", "", ())


def test_impossible_scalar_values_are_reported_not_raised() -> None:
    front = read_front_matter("---\ntitle: Dated\ndate: 2020-13-45\n---\nBody\n")
    assert (front.title, front.body) == ("Dated", "Body\n")
    assert front.warnings[0].startswith("front matter is not valid YAML (month must be in 1..12)")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.sampled_from(["---\n", "+++\n"]), st.text(max_size=80))
def test_front_matter_never_raises(block: str, fence: str, body: str) -> None:
    front = read_front_matter(f"{fence}{block}\n{fence}{body}")
    assert isinstance(front.title, str) and all(isinstance(v, str) for v in front.metadata.values())
