"""Markdown -> heading-path chunks -> DuckDB (full-text + vectors). Owns the index format."""

from docs_mcp.indexer.build import Progress, build_index, write_index  # storage
from docs_mcp.indexer.corpus import scan_corpus  # chunker
from docs_mcp.indexer.embedding import Embedder, load_model  # storage
from docs_mcp.indexer.index_file import IndexReader, current_generation, open_index  # storage
from docs_mcp.indexer.libraries import LibrarySpec, requested_spec  # libraries
from docs_mcp.indexer.library_ops import list_libraries, remove_library  # libraries
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
    "Embedder",  # storage
    "IndexReader",  # storage
    "Progress",  # storage
    "build_index",  # storage
    "current_generation",  # storage
    "load_model",  # storage
    "open_index",  # storage
    "write_index",  # storage
    "LibrarySpec",  # libraries
    "list_libraries",  # libraries
    "remove_library",  # libraries
    "requested_spec",  # libraries
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
