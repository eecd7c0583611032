"""A library's table of contents: one entry per document with its title, section and a one-line description.

Computed once at index time and kept in metadata.json, so ``get_library_info`` answers
without reading chunk text.  The description is the first sentence of the document's
first prose paragraph (markdown parsed with mistune, not with regular expressions), so
admonitions, code, shortcodes and JSX never become a description.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from itertools import groupby
from typing import Any, cast

from docs_mcp.indexer.corpus.manifest import glob_regex
from docs_mcp.indexer.libraries.library import TocEntry
from docs_mcp.indexer.records import Chunk

DESCRIPTION_CHARS = 200
ROOT_SECTION = "Overview"
# Paragraphs that are markup of some site generator rather than prose.
_NOT_PROSE = ("!!!", "???", "///", ":::", "{{", "{%", "import ", "export ", "<", "|", "[!")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_\[(\"'])")
_SPACE = re.compile(r"\s+")


@cache
def _markdown_parser() -> Any:
    """mistune's parser, imported on first use: a server's start describes no document (30 ms)."""
    import mistune

    return mistune.create_markdown(renderer=None)


def toc_entries(
    chunks: Iterable[Chunk], files: dict[str, str], sections: tuple[tuple[str, str], ...], mount: str
) -> list[TocEntry]:
    """The TOC of one library from its (unmounted) chunks, in path order.

    ``files`` maps each path to its title; ``sections`` are (glob, section) pairs, first match wins.
    """
    entries = []
    for path, group in groupby(sorted(chunks, key=lambda c: (c.filepath, c.chunk_index)), key=lambda c: c.filepath):
        entries.append(
            TocEntry(
                path=mount + path,
                title=files.get(path) or path.rsplit("/", 1)[-1],
                description=describe(chunk.content for chunk in group),
                section=section_of(path, sections),
            )
        )
    return entries


def section_of(path: str, sections: tuple[tuple[str, str], ...]) -> str:
    """The section of the document at ``path`` (relative to its library): first matching glob, else its top folder."""
    for pattern, name in sections:
        if glob_regex(pattern).fullmatch(path):
            return name
    folder, slash, _ = path.partition("/")
    return folder if slash else ROOT_SECTION


def describe(contents: Iterable[str]) -> str:
    """One line about a document: the first sentence of its first prose paragraph ('' if it has none)."""
    for markdown in contents:
        for token in _tokens(markdown):
            if token.get("type") != "paragraph":
                continue
            text = _SPACE.sub(" ", _inline_text(token.get("children") or ())).strip()
            if len(text.split()) >= 3 and not text.startswith(_NOT_PROSE):
                return one_line(text)
    return ""


def _tokens(markdown: str) -> list[dict[str, Any]]:
    # Without a renderer mistune returns its tokens; its annotation also allows the rendered text.
    return cast(list[dict[str, Any]], _markdown_parser()(markdown))


def one_line(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """The first sentence of ``text``, cut at a word boundary with an ellipsis beyond ``limit`` characters."""
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(sentence) <= limit:
        return sentence
    cut = sentence.rfind(" ", 0, limit)
    return sentence[: cut if cut > limit // 2 else limit].rstrip(",;: ") + "…"


def _inline_text(children: Iterable[dict[str, Any]]) -> str:
    parts = []
    for child in children:
        kind = child.get("type")
        if kind in ("softbreak", "linebreak"):
            parts.append(" ")
        elif kind == "image":
            continue
        elif "children" in child:
            parts.append(_inline_text(child["children"]))
        else:
            parts.append(child.get("raw", ""))
    return "".join(parts)
