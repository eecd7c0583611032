"""The chunk-ID grammar: slugs, de-duplication, preamble, file and part IDs."""

from __future__ import annotations

import pytest

from docs_mcp.indexer.corpus.chunk_ids import SlugRegistry, file_id, make_unique, preamble_id, section_id, slugify


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Client Basics", "client-basics"),
        ("get_token() and OAuth 2.0", "gettoken-and-oauth-20"),
        ("C++ & C# Über Clients!", "c-c-ber-clients"),
        ("Title  with   spaces", "title-with-spaces"),
        ("tab\tis dropped", "tabis-dropped"),  # as in the reference: only ' ' survives the filter
        ("--leading and trailing--", "leading-and-trailing"),
        ("a - b", "a-b"),
        ("!!!", "section"),
        ("", "section"),
        ("日本語", "section"),
    ],
)
def test_slugify_keeps_lowercase_letters_digits_and_single_dashes(heading: str, slug: str) -> None:
    assert slugify(heading) == slug


def test_repeated_heading_under_the_same_parent_is_numbered() -> None:
    registry = SlugRegistry()
    assert [registry.claim(("api",), "Create") for _ in range(3)] == ["create", "create-2", "create-3"]


def test_same_heading_under_another_parent_keeps_its_slug() -> None:
    registry = SlugRegistry()
    assert registry.claim(("links",), "Create") == "create"
    assert registry.claim(("domains",), "Create") == "create"


def test_a_numbered_duplicate_never_takes_a_slug_already_used() -> None:
    # "Usage 2" already holds usage-2, so the second "Usage" moves on instead of colliding.
    registry = SlugRegistry()
    slugs = [registry.claim((), text) for text in ("Usage", "Usage 2", "Usage")]
    assert slugs == ["usage", "usage-2", "usage-3"]


def test_section_ids_join_ancestor_slugs_and_number_parts() -> None:
    assert section_id("guides/retries.md", ("retries-guide", "backoff-strategy")) == (
        "guides/retries.md#retries-guide/backoff-strategy"
    )
    assert section_id("a.md", ("guide", "big"), part=3) == "a.md#guide/big-part-3"


def test_preamble_and_file_ids() -> None:
    assert preamble_id("a/b.md") == "a/b.md#_preamble"
    assert preamble_id("a/b.md", part=2) == "a/b.md#_preamble-part-2"
    assert file_id("a/b.md") == "a/b.md"
    assert file_id("a/b.md", part=2) == "a/b.md#_part-2"


def test_make_unique_renames_later_repeats_only() -> None:
    assert make_unique(["a#x", "a#y", "a#x", "a#x"]) == ["a#x", "a#y", "a#x-2", "a#x-3"]
