"""What full-text search and the embedding model see of a chunk."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.records import Chunk
from docs_mcp.indexer.search_text import (
    MIN_BODY_PIECES,
    WINDOW_OVERLAP,
    WINDOW_PIECES,
    context_line,
    embedding_windows,
    identifier_splits,
    search_fields,
)

PIECE = re.compile(r"\w+|[^\w\s]")


def chunk(
    text: str = "Body.",
    *,
    heading_path: tuple[str, ...] = ("Retries guide", "Backoff"),
    title: str = "Retries guide",
    searchable: bool = True,
) -> Chunk:
    return Chunk(
        chunk_id="guides/retries.md#retries-guide/backoff",
        filepath="guides/http_client/retries.md",
        heading=heading_path[-1] if heading_path else "",
        heading_level=len(heading_path),
        breadcrumb="guides/http_client/retries.md > " + " > ".join(heading_path),
        chunk_index=1,
        file_chunk_count=3,
        content=text,
        text=text,
        title=title,
        heading_path=heading_path,
        searchable=searchable,
    )


def test_search_fields(snapshot) -> None:
    body = (
        "Backoff\n\nCatch RateLimitError and HTTPException, then call get_token() again; "
        "RateLimitError is raised once more after next_cursor runs out. OAuth2Client retries too."
    )
    assert search_fields(chunk(body, heading_path=("Retries guide", "Handling RateLimitError"))) == snapshot


def test_search_fields_of_a_preamble(snapshot) -> None:
    assert search_fields(chunk("Intro text.", heading_path=())) == snapshot


def test_identifier_splits() -> None:
    assert identifier_splits("RateLimitError") == ["rate limit error"]
    assert identifier_splits("HTTPException getHTTPResponse") == ["http exception", "get http response"]
    assert identifier_splits("OAuth2Client") == ["o auth2 client"]
    # DuckDB's tokenizer already splits these on '_': nothing to add.
    assert identifier_splits("get_token next_cursor token README v1") == []
    assert identifier_splits("RateLimitError, again RateLimitError") == ["rate limit error"]


def test_context_line_does_not_repeat_the_title() -> None:
    assert context_line(chunk()) == "Retries guide > Backoff"
    assert context_line(chunk(heading_path=("Usage",), title="Retries guide")) == "Retries guide > Usage"
    assert context_line(chunk(heading_path=(), title="Retries guide")) == "Retries guide"
    assert context_line(chunk(heading_path=(), title="")) == ""


def test_short_chunk_is_one_window_with_its_context() -> None:
    assert embedding_windows(chunk("Use exponential backoff.")) == ["Retries guide > Backoff\nUse exponential backoff."]


def test_windows_of_a_long_chunk(snapshot) -> None:
    text = " ".join(f"word{i}" for i in range(400))
    windows = embedding_windows(chunk(text))
    # (context, first word, last word) of each window
    assert [(w.split("\n")[0], w.split("\n")[1].split()[0], w.split()[-1]) for w in windows] == snapshot


def _covered(text: str, windows: list[str], context: str) -> None:
    pieces = PIECE.findall(text)
    bodies = [w[len(context) + 1 :] if context else w for w in windows]
    assert all(w.startswith(context) for w in windows)
    # Every piece of the text is in some window, in order, and consecutive windows overlap.
    joined: list[str] = []
    for number, body in enumerate(bodies):
        body_pieces = PIECE.findall(body)
        assert len(body_pieces) <= max(WINDOW_PIECES - len(PIECE.findall(context)), MIN_BODY_PIECES)
        if number:
            assert joined[-WINDOW_OVERLAP:] == body_pieces[:WINDOW_OVERLAP]
            body_pieces = body_pieces[WINDOW_OVERLAP:]
        joined.extend(body_pieces)
    assert joined == pieces


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z_9.-\n\t(")), max_size=3000))
def test_windows_cover_all_text(text: str) -> None:
    item = chunk(text)
    windows = embedding_windows(item)
    assert windows  # a searchable chunk always has one, its context at least
    if len(PIECE.findall(text)) > WINDOW_PIECES:
        _covered(text, windows, context_line(item))


def test_windows_cover_a_long_real_text() -> None:
    text = "\n\n".join(
        f"Paragraph {i}: call client.retry(max_attempts={i}) and catch RateLimitError." for i in range(120)
    )
    item = chunk(text)
    windows = embedding_windows(item)
    assert len(windows) > 3
    _covered(text, windows, context_line(item))


def test_a_chunk_that_is_not_searchable_is_neither_matched_nor_embedded() -> None:
    # A heading alone (corpus/chunking.py decides); the stored form of one has an empty text.
    bare = chunk("", heading_path=("Retries guide", "RateLimitError"), searchable=False)
    assert search_fields(bare) == ("", "", "")
    assert embedding_windows(bare) == []


def test_a_searchable_chunk_without_body_text_is_found_by_its_title_and_headings() -> None:
    # A tool the gateway knows only by name and description: no body, but its headings say what it does.
    tool = chunk("", heading_path=("Create an issue in a repository",), title="create_issue")
    title, heading, body = search_fields(tool)
    assert title.startswith("create_issue") and heading == "Create an issue in a repository" and body == ""
    assert embedding_windows(tool) == [context_line(tool)]
