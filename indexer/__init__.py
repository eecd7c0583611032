"""Markdown -> heading-path chunks -> DuckDB (full-text + vectors). Owns the index format."""

from docs_mcp.indexer.corpus import scan_corpus  # chunker
from docs_mcp.indexer.records import (  # chunker
    Chunk,
    CorpusScan,
    IndexReport,
    ModelIdentity,
    Problem,
    SourceFile,
    Strategy,
    TaxonomyKey,
)

__all__ = [
    "Chunk",  # chunker
    "CorpusScan",  # chunker
    "IndexReport",  # chunker
    "ModelIdentity",  # chunker
    "Problem",  # chunker
    "SourceFile",  # chunker
    "Strategy",  # chunker
    "TaxonomyKey",  # chunker
    "scan_corpus",  # chunker
]
