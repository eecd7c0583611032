"""Markdown -> heading-path chunks -> DuckDB (full-text + vectors). Owns the index format.

Names load on first use (PEP 562): the CLI imports ``docs_mcp.indexer.schema`` and the
commands modules on every start, and that must not pull in duckdb, numpy or fastembed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = [
    "Embedder",
    "IndexReader",
    "Progress",
    "build_index",
    "current_generation",
    "load_model",
    "open_index",
    "write_index",
    "LibrarySpec",
    "list_libraries",
    "remove_library",
    "requested_spec",
    "Chunk",
    "CorpusScan",
    "IndexReport",
    "ModelIdentity",
    "Problem",
    "SourceFile",
    "Strategy",
    "TaxonomyKey",
    "scan_corpus",
]

_HOMES = {
    "Progress": "generation",
    "build_index": "build",
    "write_index": "generation",
    "scan_corpus": "corpus",
    "Embedder": "embedding",
    "load_model": "embedding",
    "IndexReader": "index_file",
    "current_generation": "index_file",
    "open_index": "index_file",
    "LibrarySpec": "libraries.spec",
    "requested_spec": "libraries.spec",
    "list_libraries": "libraries.ops",
    "remove_library": "libraries.ops",
    **{name: "records" for name in ("Chunk", "CorpusScan", "IndexReport", "ModelIdentity", "Problem", "SourceFile", "Strategy", "TaxonomyKey")},
}

if TYPE_CHECKING:
    from docs_mcp.indexer.build import build_index
    from docs_mcp.indexer.generation import Progress, write_index
    from docs_mcp.indexer.corpus import scan_corpus
    from docs_mcp.indexer.embedding import Embedder, load_model
    from docs_mcp.indexer.index_file import IndexReader, current_generation, open_index
    from docs_mcp.indexer.libraries.spec import LibrarySpec, requested_spec
    from docs_mcp.indexer.libraries.ops import list_libraries, remove_library
    from docs_mcp.indexer.records import (
        Chunk,
        CorpusScan,
        IndexReport,
        ModelIdentity,
        Problem,
        SourceFile,
        Strategy,
        TaxonomyKey,
    )


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
