"""The text each search signal sees of a chunk: full-text fields and embedding windows (pure).

Full text: three fields (title, heading path, body) so headings can weigh more than body
text. DuckDB's tokenizer splits on every character that is no letter or digit, so ``get_token``
already matches ``get`` and ``token``; camel case does not split, so we append the parts of
``RateLimitError`` (``rate limit error``) once per distinct identifier. Chinese, Japanese and
Korean runs are cut into character bigrams first (segmentation.py), in the fields and in queries.

Vectors: MiniLM reads at most 256 word pieces, so a long chunk is embedded as several
overlapping windows; each starts with the chunk's title and heading path for context.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from docs_mcp.indexer.records import Chunk
from docs_mcp.indexer.segmentation import CJK_CLASS, segment

# Windows are counted in "pieces" (a run of word characters, or one punctuation mark),
# which is ~1.2-1.3 model word pieces on our corpora (p90 ~1.45): 180 pieces stay under
# 256 word pieces for most windows, and well under fastembed's 512-piece truncation for all.
WINDOW_PIECES = 180
WINDOW_OVERLAP = 30
# A heading path so long it would crowd out the text is cut to leave at least this much room.
MIN_BODY_PIECES = 100

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# Camel-case humps: an acronym before a capitalised word, a capitalised or lower-case word, digits stay attached.
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")
_PATH_SEPARATORS = re.compile(r"[/_.\-]+")
_PAGE_SUFFIX = re.compile(r"\.(md|mdx|markdown|rst|rest|html?|ipynb)$", re.IGNORECASE)
# schema.FTS_IGNORE in Python's re: every character that is no letter or digit (checked equal on every code point).
_FTS_SEPARATORS = re.compile(r"[\W_]+")
_MARKS = frozenset(("Mn", "Mc", "Me"))


def tokenize(text: str) -> list[str]:
    """Split text into words the way the index does: CJK bigrams, then DuckDB's fts ``tokenize`` (lower-case, accents stripped)."""
    return [word for word in _FTS_SEPARATORS.sub(" ", _strip_accents(segment(text).lower())).split() if word]


def search_fields(chunk: Chunk) -> tuple[str, str, str]:
    """The (fts_title, fts_heading, fts_body) texts of ``chunk``, identifiers split, CJK text in bigrams.

    A chunk that is not searchable (a heading alone: see corpus/chunking.py) gets none: it is never matched.
    """
    if not chunk.searchable:
        return "", "", ""
    path_words = _PATH_SEPARATORS.sub(" ", _PAGE_SUFFIX.sub("", chunk.filepath)).strip()
    title = _with_splits(" ".join(part for part in (chunk.title, path_words) if part))
    heading = _with_splits(" > ".join(chunk.heading_path or (chunk.heading,)))
    return segment(title), segment(heading), segment(_with_splits(chunk.text))


def identifier_splits(text: str) -> list[str]:
    """The camel-case parts of each distinct identifier in ``text``, lower-cased, in order of appearance.

    ``RateLimitError`` gives ``rate limit error``, ``HTTPException`` gives ``http exception``;
    words that do not split (``token``, ``get_token``) give nothing.
    """
    seen: set[str] = set()
    splits: list[str] = []
    for word in _WORD.findall(text):
        if word in seen:
            continue
        seen.add(word)
        humps = _HUMP.findall(word)
        if len(humps) > 1:
            splits.append(" ".join(hump.lower() for hump in humps))
    return splits


def embedding_windows(chunk: Chunk) -> list[str]:
    """The texts the embedding model sees for ``chunk``: one, or several overlapping windows.

    Every window starts with the chunk's context (title > heading path), then a slice of its
    text; together the windows cover all of the text. A chunk that is not searchable (a heading alone:
    see corpus/chunking.py) has no window, so it never ranks by similarity either.
    """
    if not chunk.searchable:
        return []
    context = context_line(chunk)
    piece = _piece()
    context_pieces = len(piece.findall(context))
    budget = max(WINDOW_PIECES - context_pieces, MIN_BODY_PIECES)
    pieces = list(piece.finditer(chunk.text))
    if len(pieces) <= budget:
        return [_join(context, chunk.text.strip())]
    windows = []
    start = 0
    while True:
        end = min(start + budget, len(pieces))
        windows.append(_join(context, chunk.text[pieces[start].start() : pieces[end - 1].end()]))
        if end == len(pieces):
            return windows
        start = end - WINDOW_OVERLAP


def context_line(chunk: Chunk) -> str:
    """``title > heading > subheading``: where the chunk sits, without repeating a title that is also the H1."""
    path = list(chunk.heading_path or ((chunk.heading,) if chunk.heading else ()))
    if chunk.title and (not path or path[0] != chunk.title):
        path.insert(0, chunk.title)
    return " > ".join(part for part in path if part)


@cache
def _piece() -> re.Pattern[str]:
    """A CJK character is a piece of its own (MiniLM reads each as one word piece), other word characters run
    together. Compiled when an index is first built, not when a server starts (segmentation._cjk_pattern)."""
    return re.compile(rf"{CJK_CLASS}|(?:(?!{CJK_CLASS})\w)+|[^\w\s]")


def _strip_accents(text: str) -> str:
    """DuckDB's ``strip_accents``: decompose, drop the marks, compose again (Hangul syllables stay whole)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) not in _MARKS))


def _with_splits(text: str) -> str:
    splits = identifier_splits(text)
    return "\n".join([text, " ".join(splits)]) if splits else text


def _join(context: str, text: str) -> str:
    return "\n".join(part for part in (context, text) if part)
