"""Answers sized for a context window: what the search and get_doc tools add in structured content.

The contract's text stays exactly the contract's; beside it, in ``structuredContent``, each search
hit carries the passage of its chunk that matched best (server/search/passages.py) and the token
count of the whole chunk, so an agent can answer from the passage or decide that the chunk is
worth a get_doc; get_doc reports the tokens of each chunk it returned and of the whole answer.
Tokens are counted as every tool counts them (server/search/tokens.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.index_store import StoredChunk
from docs_mcp.server.contract.render import render_chunk_window
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import render_json
from docs_mcp.server.search.expansion import Expansions
from docs_mcp.server.search.passages import PassageWords
from docs_mcp.server.search.records import Hit
from docs_mcp.server.search.tokens import count_tokens


@dataclass(frozen=True)
class SearchAnswer:
    """What search_docs ran to: the contract's SearchResult, and the page's hits that the structured content sizes."""

    result: dict[str, Any]  # hits, next_cursor, hint: the tool's text is exactly this
    hits: tuple[Hit, ...]

    def text(self) -> str:
        return render_json(self.result)


def sized_hits(
    index: ServedIndex, answer: SearchAnswer, query: str, expansions: Expansions | None = None
) -> dict[str, Any]:
    """The SearchResult with ``passage`` and ``tokens`` added to each hit (the chunks' markdown read by row)."""
    result = answer.result
    if not result.get("hits"):
        return result
    contents = index.engine.markdown(answer.hits)
    strong = index.engine.content_words(" ".join([query, expansions.keywords if expansions else ""]))
    weak = (
        index.engine.content_words(" ".join([expansions.question, expansions.hypothetical_answer]))
        if expansions
        else []
    )
    words = PassageWords.of(strong, weak)
    sized = []
    for hit in result["hits"]:
        content = contents.get(hit["chunk_id"], "")
        sized.append({**hit, "passage": words.best(content).text, "tokens": count_tokens(content)})
    return {**result, "hits": sized}


@dataclass(frozen=True)
class ChunkWindow:
    """What get_doc read: the target chunk and its neighbours, in file order."""

    chunks: Sequence[StoredChunk]
    target: str

    def text(self) -> str:
        """The contract's text: the chunks in the delimiter grammar."""
        return render_chunk_window(self.chunks, self.target)

    def sizes(self) -> dict[str, Any]:
        """Tokens of the whole answer and of each chunk (structured content)."""
        return {
            "chunk_id": self.target,
            "tokens": count_tokens(self.text()),
            "chunks": [{"chunk_id": chunk.chunk_id, "tokens": count_tokens(chunk.content)} for chunk in self.chunks],
        }
