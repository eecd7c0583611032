"""Markdown -> heading-path chunks -> DuckDB (full-text + vectors). Owns the index format.

Names load on first use (PEP 562): the CLI imports ``docs_mcp.indexer.schema`` and the
commands modules on every start, and that must not pull in duckdb, numpy or fastembed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.lazy import lazy_exports

# The one list of this package's public names, by home module; __all__ follows its order.
_EXPORTS = {
    "sources.folder": ("build_index",),
    "generation": ("Progress", "write_index"),
    "corpus.scan": ("scan_corpus",),
    "models.loading": ("Embedder", "load_model"),
    "index_file": ("IndexReader", "current_generation", "open_generation", "open_index"),
    "libraries.spec": ("LibrarySpec", "requested_spec"),
    "libraries.ops": ("list_libraries", "remove_library"),
    "records": (
        "Chunk",
        "CorpusScan",
        "IndexReport",
        "ModelIdentity",
        "Problem",
        "SourceFile",
        "Strategy",
        "TaxonomyKey",
    ),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # the same names for type checkers (tests/test_public_api.py keeps the two in step)
    from docs_mcp.indexer.corpus.scan import scan_corpus
    from docs_mcp.indexer.generation import Progress, write_index
    from docs_mcp.indexer.index_file import IndexReader, current_generation, open_generation, open_index
    from docs_mcp.indexer.libraries.ops import list_libraries, remove_library
    from docs_mcp.indexer.libraries.spec import LibrarySpec, requested_spec
    from docs_mcp.indexer.models.loading import Embedder, load_model
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
    from docs_mcp.indexer.sources.folder import build_index
