"""Identifiers in queries, and which headings and texts name them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.server.search.identifiers import (
    Name,
    _name_patterns,
    is_identifier,
    is_lookup,
    query_identifiers,
    query_words,
)

CODE_SHAPED = ["next_cursor", "OTEL_EXPORTER_OTLP_ENDPOINT", "service.version", "dub.links.create", "std::vec::Vec",
               "nextCursor", "APIRouter", "HTTPException", "oauth2", "E0502", "Get-ChildItem", "-Recurse", "about_Splatting"]  # fmt: skip
WORDS = ["Depends", "retry", "API", "SDKs", "URLs", "e.g", "S3", "next(err)", "2018"]


@pytest.mark.parametrize("word", CODE_SHAPED)
def test_code_shaped_words_are_identifiers(word):
    assert is_identifier(word)


@pytest.mark.parametrize("word", WORDS)
def test_words_and_acronyms_are_not(word):
    assert not is_identifier(word)


def test_wrapping_punctuation_and_a_call_suffix_are_not_part_of_a_word():
    assert query_words("`Depends()` (next_cursor), what?") == ["Depends", "next_cursor", "what"]
    assert query_identifiers("use `lifespan` with next_cursor") == ("next_cursor", "lifespan")


def test_a_lookup_is_one_word_or_a_few_identifiers():
    assert is_lookup("Depends") and is_lookup("Invoke-RestMethod -FollowRelLink") and is_lookup("dub.links.create")
    assert not is_lookup("how to retry") and not is_lookup("Form OAuth2PasswordRequestForm")
    assert not is_lookup("a_b c_d e_f g_h")  # four names read as a sentence of them


def test_a_capitalised_name_is_matched_in_its_case_and_a_lower_case_one_in_any():
    assert Name.of("Depends").named_in("Dependencies - Depends() and Security()")
    assert not Name.of("Depends").named_in("it depends on the version")
    assert Name.of("next_cursor").named_in("Pages and NextCursor")  # the same name in Go's spelling
    assert Name.of("-Recurse").named_in("-Recurse") and not Name.of("-Recurse").named_in("recurse into folders")


def test_a_dotted_name_is_named_by_a_heading_under_its_parent():
    name = Name.of("dub.links.create")
    assert name.named_in("const result = await dub.links.create();")
    assert not name.named_in("dub.links.createMany()")
    assert name.path_named_in("create", "sdks/typescript/docs/sdks/links/README.md > Links")
    assert not name.path_named_in("create", "sdks/typescript/docs/sdks/tags/README.md > Tags")


# Texts made of name letters, joiners, word boundaries and the name itself (as written, or by its letters): where a
# fast scan could disagree with the whole pattern.
_FRAGMENTS = list("aAbB1_-.:/$ x(`")
_NAME_WRITTEN = st.from_regex(r"-?[aAbB1]{1,4}(?:[_.:/-][aAbB1]{1,3}){0,2}", fullmatch=True)


@settings(max_examples=3000, deadline=None)
@given(written=_NAME_WRITTEN, data=st.data())
def test_named_in_finds_exactly_what_the_whole_pattern_finds(written, data):
    # named_in scans for the name's letters first, then tries the whole pattern there: the same answer as searching the
    # text with the whole pattern at every position.
    name = Name.of(written)
    pieces = st.sampled_from([*_FRAGMENTS, written, name.key, name.key.upper(), f"-{name.key}"])
    text = "".join(data.draw(st.lists(pieces, max_size=12), label="text"))
    whole, _ = _name_patterns(name.key, name.exact_case, bool(name.parts))
    assert name.named_in(text) == (bool(name.key) and whole.search(text) is not None)
