"""The tool catalog as an index generation: one chunk per tool, ranked by the search engine.

Each tool becomes a synthesized chunk that the indexer writes like any documentation
(``write_index``: full-text tables, vectors, a generation swapped in atomically), so the very
BM25F + vector + fusion code of ``search_docs`` ranks tools; nothing of it is copied. The
engine's three full-text fields carry, in order of weight: the tool name (with its server),
its description, then its parameters and tool docs. A rebuild happens only when the catalog
changes (a fingerprint of every chunk), and reuses the vectors of unchanged tools.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer import Chunk, CorpusScan, TaxonomyKey, write_index
from docs_mcp.indexer.duckdb_store import open_store
from docs_mcp.server.gateway.errors import CatalogUnavailableError
from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.tooldocs import ToolDoc
from docs_mcp.server.search.engine import Engine, RankingSettings

# Weights of (tool name, description, parameters + docs) occurrences. On the 50 golden queries
# over 66 tools (eval/golden/gateway.jsonl) the weights matter little (BM25 NDCG@5 0.56-0.58 for
# 1:1:1 to 5:3:1); the vector signal matters more: tool texts are short and agents paraphrase.
FIELD_WEIGHTS = (3.0, 2.0, 1.0)
GATEWAY_RANKING = RankingSettings(
    field_weights=FIELD_WEIGHTS,
    # BM25 weighs 0.4 of the fused score here (docs: 0.6): NDCG@5 0.851 at 0.4, 0.836 at 0.5.
    alpha=0.4,
    # A tool description is one sentence, so its cosine to a paraphrase is lower than a doc
    # section's: the docs' floor (0.43) left 3 of 50 golden queries with no result at all
    # ("I am on vacation next week"); at 0.2 none is empty and NDCG@5 rises from 0.79 to 0.85.
    # An agent is better served by weak candidates with a low relevance than by nothing.
    similarity_floor=0.2,
    vector_base=0.1,
    # One tool per "file": the engine's boost for chunks of a strong file would only add noise.
    file_boost=0.0,
)
SERVER_KEY = "server"
logger = logging.getLogger(__name__)


def tool_chunk(entry: ToolEntry, doc: ToolDoc | None) -> Chunk:
    """The chunk that stands for one tool; its ID is the tool key."""
    description = entry.description or (doc.summary if doc else "") or entry.name
    # A tool with nothing but its description carries it as its body too: full text weighs the words there as well
    # (tool discovery's golden set, bm25 0.564 against 0.553 with the description in the heading alone).
    text = "\n".join(part for part in (_parameters_text(entry.input_schema), _doc_text(doc)) if part) or description
    title = " ".join(part for part in (entry.name, entry.title) if part)
    return Chunk(
        chunk_id=entry.key,
        filepath=f"{entry.server}/{entry.name}",
        heading=description,
        heading_level=1,
        breadcrumb=f"{entry.server} > {entry.name}",
        chunk_index=0,
        file_chunk_count=1,
        content=text,
        text=text,
        title=title,
        metadata={SERVER_KEY: entry.server},
        heading_path=(description,),
        headings=(description,),
    )


def _parameters_text(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return ""
    lines = []
    for name, spec in properties.items():
        described = spec.get("description", "") if isinstance(spec, Mapping) else ""
        lines.append(f"{name}: {described}".rstrip(": "))
    return "\n".join(lines)


def _doc_text(doc: ToolDoc | None) -> str:
    if doc is None:
        return ""
    return "\n".join(part for part in (doc.summary, doc.notes, *(e.title for e in doc.examples)) if part)


def fingerprint(chunks: Sequence[Chunk]) -> str:
    """A digest of everything the index holds of ``chunks``: equal digests, equal indexes."""
    digest = hashlib.sha256()
    for chunk in chunks:
        for part in (chunk.chunk_id, chunk.title, chunk.heading, chunk.text):
            digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class CatalogSnapshot:
    """The engine over one catalog, and the tools it ranks by chunk ID."""

    engine: Engine | None  # None for an empty catalog
    tools: Mapping[str, ToolEntry]
    generation: str


class CatalogIndex:
    """Keeps the catalog's index generation in step with the tools collected from upstreams."""

    def __init__(
        self, index_dir: Path, *, embeddings: str = "default", ranking: RankingSettings = GATEWAY_RANKING
    ) -> None:
        self.index_dir = index_dir
        self.embeddings = embeddings
        self.ranking = ranking
        self._lock = threading.Lock()
        self._fingerprint: str | None = None
        self._snapshot = CatalogSnapshot(None, {}, "")

    def snapshot(self, tools: Sequence[ToolEntry], docs: Mapping[str, ToolDoc]) -> CatalogSnapshot:
        """The engine for exactly ``tools``, rebuilding the index generation if the catalog changed.

        Raises:
            ModelLoadError: the embedding model cannot be loaded (from the indexer).
        """
        chunks = tuple(sorted((tool_chunk(t, docs.get(t.key)) for t in tools), key=lambda c: c.chunk_id))
        digest = fingerprint(chunks)
        with self._lock:
            if digest != self._fingerprint:
                try:
                    self._snapshot = self._build(chunks, {t.key: t for t in tools})
                except DocsMcpError as error:
                    # The details (a path in a private temporary folder, an index hint) are for the operator's log only.
                    logger.error("indexing the tool catalog failed: %s", error)
                    raise CatalogUnavailableError(
                        f"The tool catalog ({len(chunks)} tools) could not be indexed for ranking, so tool_discovery cannot answer now.",
                        "Retry shortly; if it persists, tell the server's operator (the server log has the cause).",
                    ) from None
                self._fingerprint = digest
            return self._snapshot

    def _build(self, chunks: tuple[Chunk, ...], tools: Mapping[str, ToolEntry]) -> CatalogSnapshot:
        if not chunks:
            return CatalogSnapshot(None, {}, "")
        servers = tuple(sorted({chunk.metadata[SERVER_KEY] for chunk in chunks}))
        scan = CorpusScan(
            root=str(self.index_dir),
            chunks=chunks,
            files={chunk.filepath: chunk.title for chunk in chunks},
            taxonomy=(TaxonomyKey(SERVER_KEY, "The upstream MCP server that offers the tool.", servers),),
            corpus_description="Tools of the upstream MCP servers behind the docs-mcp gateway.",
            problems=(),
        )
        write_index(scan, self.index_dir, embeddings=self.embeddings)
        # The previous engine is not closed here: a search in another thread may still hold it;
        # its read-only connection closes when the last snapshot that names it is dropped.
        engine = Engine(open_store(self.index_dir), self.ranking, learned="tools")
        return CatalogSnapshot(engine, tools, engine.generation)
