"""Resolving relevant entries against an index's chunks: chunk IDs, whole files, sections by heading."""

from __future__ import annotations

import pytest

from docs_mcp.eval.errors import GoldenResolveError
from docs_mcp.eval.golden import GoldenQuery, RelevantEntry
from docs_mcp.eval.judgments import IndexedChunk, heading_key, resolve_judgments
from docs_mcp.eval.metrics import Judgment

# A file chunked at h2: the h3 sections live inside their parent chunk; "Recap" appears twice.
CHUNKS = [
    IndexedChunk("guide.md#_preamble", "guide.md", (), ("Guide",)),
    IndexedChunk("guide.md#guide/setup", "guide.md", ("Guide", "Setup"), ("Setup", "Install `pkg`", "Recap")),
    IndexedChunk("guide.md#guide/usage", "guide.md", ("Guide", "Usage"), ("Usage", "Recap")),
    IndexedChunk("other.md#_preamble", "other.md", (), ("Other",)),
]


def resolve(*entries: RelevantEntry) -> tuple[Judgment, ...]:
    return resolve_judgments([GoldenQuery("q1", "query", entries, where="line 1")], CHUNKS)[0]


@pytest.mark.parametrize(
    ("heading", "key"),
    [
        ("Use `CORSMiddleware` { #use-corsmiddleware }", "use corsmiddleware"),
        ("**FastAPI**'s `OAuth2PasswordBearer`", "fastapi s oauth2passwordbearer"),
        (
            "Include the `APIRouter`s for `users` and `items` { #include-the-apirouters }",
            "include the apirouters for users and items",
        ),
        ("The `response_model_exclude_unset` parameter", "the responsemodelexcludeunset parameter"),
        ("See [the guide](guide.md) <abbr title='x'>now</abbr>", "see the guide now"),
        ("Path `{item_id}` values", "path itemid values"),  # braces that are not an attribute list stay text
        ("Done.", "done"),
        ("C++ & C# Über Clients!", "c c über clients"),
    ],
)
def test_heading_key_ignores_markup_and_attribute_lists(heading, key):
    assert heading_key(heading) == key


def test_a_chunk_id_and_a_whole_file():
    assert resolve(RelevantEntry(chunk_id="guide.md#guide/usage", grade=2)) == (
        Judgment(frozenset({"guide.md#guide/usage"}), 2.0),
    )
    whole = frozenset({"guide.md#_preamble", "guide.md#guide/setup", "guide.md#guide/usage"})
    assert resolve(RelevantEntry(chunk_id="guide.md")) == (Judgment(whole, 1.0),)
    assert resolve(RelevantEntry(filepath="guide.md", heading=None)) == (Judgment(whole, 1.0),)


def test_a_section_resolves_to_the_chunk_holding_its_heading():
    [inner] = resolve(
        RelevantEntry(
            filepath="guide.md", heading="Install `pkg` { #install }", heading_path=("Guide", "Setup", "Install pkg")
        )
    )
    assert inner.ids == {"guide.md#guide/setup"}
    [title] = resolve(RelevantEntry(filepath="guide.md", heading="Guide", heading_path=("Guide",)))
    assert title.ids == {"guide.md#_preamble"}
    [preamble] = resolve(RelevantEntry(filepath="other.md", heading="_preamble"))
    assert preamble.ids == {"other.md#_preamble"}


def test_a_duplicate_heading_is_told_apart_by_its_path():
    [recap] = resolve(RelevantEntry(filepath="guide.md", heading="Recap", heading_path=("Guide", "Usage", "Recap")))
    assert recap.ids == {"guide.md#guide/usage"}
    [either] = resolve(RelevantEntry(filepath="guide.md", heading="Recap"))
    assert either.ids == {"guide.md#guide/setup", "guide.md#guide/usage"}


def test_every_unresolvable_entry_is_listed_at_once():
    with pytest.raises(GoldenResolveError) as caught:
        resolve(
            RelevantEntry(chunk_id="guide.md#guide/gone"),
            RelevantEntry(chunk_id="missing.md"),
            RelevantEntry(filepath="guide.md", heading="No such heading"),
            RelevantEntry(filepath="missing.md", heading="Setup"),
            RelevantEntry(filepath="guide.md#x", heading="_preamble"),
        )
    assert caught.value.problems == (
        "q1 (line 1): guide.md#guide/gone: no chunk has this ID",
        "q1 (line 1): missing.md: the file is not in the index",
        "q1 (line 1): guide.md § No such heading: no chunk of the file holds this heading",
        "q1 (line 1): missing.md § Setup: the file is not in the index",
        "q1 (line 1): guide.md#x § _preamble: the file is not in the index",
    )
    assert caught.value.message.startswith("5 relevant entries match nothing in the index:")
    assert "--index was built from the corpus" in caught.value.hint
