"""Why a tool was found: which query words its name, description or parameters hold, and whether
the meaning matched (the vector signal ranked it) — from the hit's per-signal ranks."""

from __future__ import annotations

from docs_mcp.server.gateway.catalog_index import tool_chunk
from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.tooldocs import ToolDoc
from docs_mcp.server.search.lexical import tokenize
from docs_mcp.server.search.records import Hit

MIN_PREFIX = 4  # "issues" matches "issue", "repositories" matches "repository"
# Words too common to explain anything (the index's stopwords never score either).
_COMMON = frozenset(
    "a an and are as at be by for from how i in into is it me my of on or our the this to what when which with".split()
)


def _same_word(query_word: str, text_word: str) -> bool:
    if query_word == text_word:
        return True
    shortest = min(len(query_word), len(text_word))
    if shortest < MIN_PREFIX:
        return False
    prefix = max(MIN_PREFIX, shortest - 2)
    return query_word[:prefix] == text_word[:prefix]


def matched_words(query: str, text: str) -> list[str]:
    """The distinct query words (in query order) that a word of ``text`` matches, plurals and tenses alike."""
    words = set(tokenize(text))
    found: list[str] = []
    for word in tokenize(query):
        if word not in found and word not in _COMMON and any(_same_word(word, w) for w in words):
            found.append(word)
    return found


def explain(query: str, entry: ToolEntry, doc: ToolDoc | None, hit: Hit) -> str:
    """One line: the fields that matched words of ``query``, then the meaning match if any."""
    chunk = tool_chunk(entry, doc)
    parts = []
    for label, text in (
        ("name", f"{chunk.title} {entry.server}"),
        ("description", chunk.heading),
        ("parameters/docs", chunk.text),
    ):
        words = matched_words(query, text)
        if words:
            parts.append(f"{label} matches {', '.join(words)}")
    if hit.vector_rank is not None:
        parts.append(f"close in meaning (rank {hit.vector_rank} by similarity)")
    return "; ".join(parts) or "ranked by similarity to the query"
