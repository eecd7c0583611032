"""Properties checked on generated inputs (hypothesis), with the expected exceptions declared.

- A page (front matter + markdown) chunks without raising anything but ``IndexerError``; its
  chunk IDs are unique and its chunks number 1..N of N (what ``Chunk X of Y`` shows).
- Every chunk ID the indexer makes is one that get_doc accepts.
- A cursor carries its offset back for any search, and any change to it is refused with
  ``InvalidCursorError`` (and nothing else).

Runs are derandomized: the suite gives the same answer every time.  Pages as tests/indexer's
own property test sees them (pieces of markdown) are checked there; here the generator builds
whole documents: front matter, nested headings that repeat, fences, lists, hints.
"""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.corpus import chunk_ids
from docs_mcp.indexer.corpus.chunking import Page, chunk_page
from docs_mcp.indexer.corpus.frontmatter import read_front_matter
from docs_mcp.indexer.errors import IndexerError
from docs_mcp.indexer.records import CHUNK_STRATEGIES, Chunk, Strategy
from docs_mcp.server.contract.cursor import MAX_CURSOR_CHARS, CursorCodec, SearchBinding
from docs_mcp.server.errors import InvalidCursorError
from docs_mcp.server.tools.get_doc import parse_get_doc_args

PROPERTY = settings(derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

# -- documents ---------------------------------------------------------------------------------

# A small pool makes headings repeat under one parent (-2, -3...) and collide with -part-N suffixes.
_titles = st.one_of(
    st.sampled_from(
        ["Usage", "Usage 2", "Usage-part-2", "usage", "", "   ", "`code`", "Ünïcödé", "C# & F#", "🚀", "a/b"]
    ),
    st.text(max_size=20).filter(lambda t: "\n" not in t and "\r" not in t),
)
_words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


@st.composite
def _heading(draw: st.DrawFn) -> str:
    level = draw(st.integers(1, 7))  # 7 hashes is a paragraph, not a heading
    attribute = draw(st.sampled_from(["", " {#custom-id}", " { .class }", " #"]))
    return f"{'#' * level} {draw(_titles)}{attribute}"


@st.composite
def _block(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(["heading", "heading", "text", "fence", "list", "quote", "table", "html", "setext", "hint"])
    )
    if kind == "heading":
        return draw(_heading())
    if kind == "fence":
        closed = draw(st.booleans())
        return f"```{draw(st.sampled_from(['', 'python', 'md']))}\n{draw(_heading())}\n{draw(_words)}" + (
            "\n```" if closed else ""
        )
    if kind == "list":
        items = draw(st.lists(st.tuples(st.integers(0, 3), _words), min_size=1, max_size=5))
        return "\n".join(f"{'  ' * depth}{draw(st.sampled_from(['-', '*', '1.']))} {text}" for depth, text in items)
    if kind == "quote":
        return f"> {draw(_heading())}\n> {draw(_words)}"
    if kind == "table":
        return f"| {draw(_titles)} | b |\n|---|---|\n| {draw(_words)} | 2 |"
    if kind == "html":
        return draw(
            st.sampled_from(["<div>\n\n## inside html\n\n</div>", "<!-- unclosed comment", "<!-- c -->", "<br/>"])
        )
    if kind == "setext":
        return f"{draw(_titles) or 'Title'}\n{draw(st.sampled_from(['===', '---']))}"
    if kind == "hint":
        return f'<!-- mcp_chunking_hint: {{"chunk_by": "{draw(st.sampled_from([*CHUNK_STRATEGIES, "h9"]))}"}} -->'
    return draw(_words)


@st.composite
def _front_matter(draw: st.DrawFn) -> str:
    fields = draw(
        st.lists(
            st.sampled_from(
                [
                    "title: Guide",
                    "title: [unclosed",
                    "mcp_chunking_hint: h3",
                    "mcp_chunking_hint: 7",
                    "mcp_strategy: {chunk_by: file, max_chunk_size: 40}",
                    "mcp_strategy: {chunk_by: h1, max_chunk_size: -1}",
                    "metadata: {language: python}",
                    "metadata: [1, 2]",
                    "key: value: with colon",
                ]
            ),
            max_size=4,
        )
    )
    fence = draw(st.sampled_from(["---", "+++"]))
    return (
        f"{fence}\n" + "".join(f"{line}\n" for line in fields) + f"{fence}\n" if fields or draw(st.booleans()) else ""
    )


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A markdown page as a docs folder holds it, line ends included."""
    blocks = draw(st.lists(_block(), max_size=16))
    separator = draw(st.sampled_from(["\n\n", "\n", "\r\n\r\n"]))
    return draw(_front_matter()) + separator.join(blocks)


def chunk_document(filepath: str, text: str, strategy: Strategy) -> tuple[Chunk, ...]:
    """One page through the indexer's page pipeline (as scan_corpus runs it): line ends, front matter, chunks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    front = read_front_matter(text)
    if front.chunk_by_hint:
        strategy = Strategy(front.chunk_by_hint, strategy.max_chunk_size)
    return chunk_page(Page(filepath, front.strategy or strategy, dict(front.metadata), front.title), front.body)


@settings(PROPERTY, max_examples=300)
@given(
    text=documents(),
    chunk_by=st.sampled_from(CHUNK_STRATEGIES),
    max_size=st.sampled_from([1, 30, 200, 20_000]),
)
def test_a_page_chunks_into_unique_ids_numbered_one_to_n(text: str, chunk_by: str, max_size: int) -> None:
    try:
        chunks = chunk_document("guides/page.md", text, Strategy(chunk_by, max_size))
    except IndexerError as error:  # the one exception a page may raise, and it must say what to do
        assert error.message and error.hint
        return
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids))
    assert all(i == "guides/page.md" or i.startswith("guides/page.md#") for i in ids)
    assert [(c.chunk_index, c.file_chunk_count) for c in chunks] == [(i, len(chunks)) for i in range(len(chunks))]
    assert all(c.content.strip() for c in chunks)


# -- chunk IDs vs get_doc ----------------------------------------------------------------------

# No '#': the indexer skips such files with a problem (tests/indexer/test_corpus.py), since '#'
# separates the file path from the heading path.
_path_segments = st.text(alphabet=st.sampled_from("abcXYZ019 -_.()+&'@~ü日"), min_size=1, max_size=12).filter(
    lambda s: s.strip(" .") == s and s not in (".", "..")
)


@pytest.mark.contract("SD-CHUNK-ID-FOR-GET-DOC", "GD-INVALID-FORMAT")
@PROPERTY
@given(
    folders=st.lists(_path_segments, max_size=2), stem=_path_segments, slugs=st.lists(_titles, min_size=1, max_size=3)
)
@example(folders=["sdk"], stem="c++", slugs=["Usage"])
@example(folders=[], stem="a  b", slugs=["Usage"])
def test_every_chunk_id_the_indexer_makes_is_accepted_by_get_doc(
    folders: list[str], stem: str, slugs: list[str]
) -> None:
    filepath = "/".join([*folders, f"{stem}.md"])
    registry = chunk_ids.SlugRegistry()
    path = tuple(registry.claim((), title) for title in slugs)
    for chunk_id in (
        chunk_ids.file_id(filepath),
        chunk_ids.file_id(filepath, 2),
        chunk_ids.preamble_id(filepath),
        chunk_ids.section_id(filepath, path),
        chunk_ids.section_id(filepath, path, 3),
    ):
        assert parse_get_doc_args({"chunk_id": chunk_id}).chunk_id == chunk_id


# -- cursors -----------------------------------------------------------------------------------

_bindings = st.builds(
    SearchBinding,
    query=st.text(min_size=1, max_size=80),
    filters=st.dictionaries(st.sampled_from(["language", "scope", "library"]), st.text(max_size=12), max_size=3),
    limit=st.integers(1, 50),
    mode=st.sampled_from(["hybrid", "bm25", "vector"]),
)
_codecs = st.builds(CursorCodec, generation=st.text(min_size=1, max_size=30), secret=st.binary(max_size=16))
_offsets = st.integers(0, 10**9)


@pytest.mark.contract("SD-CURSOR-OPAQUE")
@PROPERTY
@given(codec=_codecs, binding=_bindings, offset=_offsets)
def test_a_cursor_round_trips_for_any_search(codec: CursorCodec, binding: SearchBinding, offset: int) -> None:
    cursor = codec.encode(binding, offset)
    assert len(cursor) <= MAX_CURSOR_CHARS and re.fullmatch(r"[A-Za-z0-9_-]+", cursor)
    assert codec.decode(cursor, binding) == offset


def _raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


@pytest.mark.contract("SD-CURSOR-INVALID")
@PROPERTY
@given(codec=_codecs, binding=_bindings, offset=_offsets, data=st.data())
def test_any_change_to_a_cursors_bytes_is_refused(codec, binding, offset, data) -> None:
    raw = bytearray(_raw(codec.encode(binding, offset)))
    position = data.draw(st.integers(0, len(raw) - 1), label="position")
    raw[position] ^= data.draw(st.integers(1, 255), label="xor")
    with pytest.raises(InvalidCursorError):
        codec.decode(_text(bytes(raw)), binding)


@pytest.mark.contract("SD-CURSOR-INVALID")
@PROPERTY
@given(codec=_codecs, binding=_bindings, offset=_offsets, data=st.data())
def test_a_cut_or_extended_cursor_is_refused(codec, binding, offset, data) -> None:
    cursor = codec.encode(binding, offset)
    cut = data.draw(st.integers(0, len(cursor) - 1), label="keep")
    extra = data.draw(st.text(alphabet=BASE64URL, min_size=1, max_size=8), label="extra")
    for changed in (cursor[:cut], cursor + extra):
        with pytest.raises(InvalidCursorError):
            codec.decode(changed, binding)


@pytest.mark.contract("SD-CURSOR-INVALID")
@settings(PROPERTY, max_examples=5)
@given(binding=_bindings, offset=_offsets)
@example(binding=SearchBinding("q", {}, 10, "hybrid"), offset=98)
def test_any_one_character_change_to_a_cursor_is_refused(binding: SearchBinding, offset: int) -> None:
    codec = CursorCodec("generation")
    cursor = codec.encode(binding, offset)
    accepted = []
    for position, original in enumerate(cursor):
        for replacement in BASE64URL.replace(original, ""):
            changed = cursor[:position] + replacement + cursor[position + 1 :]
            try:
                codec.decode(changed, binding)
            except InvalidCursorError:
                continue
            accepted.append(changed)
    assert accepted == []


@pytest.mark.contract("SD-CURSOR-INVALID")
@PROPERTY
@given(text=st.one_of(st.text(max_size=600), st.text(alphabet=BASE64URL, max_size=200)), binding=_bindings)
def test_any_text_is_an_offset_or_an_invalid_cursor_error(text: str, binding: SearchBinding) -> None:
    codec = CursorCodec("generation")
    try:
        offset = codec.decode(text, binding)
    except InvalidCursorError as error:
        assert error.hint
        return
    assert isinstance(offset, int) and offset >= 0  # only a genuine cursor gets here


def test_redacting_a_megabyte_of_letters_takes_one_pass_not_one_per_letter():
    """Unbounded repetitions rescanned a run of letters from each of its positions: hours for a megabyte."""
    import subprocess
    import sys

    code = (
        "from docs_mcp.redact import redact\n"
        "for text in ('n' * 1_000_000, 'x://' + 'a' * 1_000_000 + '@', '?' + 'k' * 1_000_000 + '=1'):\n"
        "    assert len(redact(text)) >= 1_000_000\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )  # a hang guard, not a benchmark
    assert done.returncode == 0, done.stderr
