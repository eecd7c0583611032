"""Library operations on an existing index: list what it holds, remove one library.

Removal rebuilds the index from the other libraries' stored chunks (their vectors are
reused, so nothing is embedded) and swaps the new generation in like any build.
"""

from __future__ import annotations

from pathlib import Path

from docs_mcp.indexer.build_plan import plan_removal
from docs_mcp.indexer.generation import ProgressFn, write_index
from docs_mcp.indexer.index_file import open_index
from docs_mcp.indexer.libraries.library import Library
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.records import IndexReport


def list_libraries(index_dir: Path) -> list[Library]:
    """The libraries of the index at ``index_dir``, by ID.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
    """
    with open_index(Path(index_dir)) as reader:
        entries = catalog_entries(reader.metadata)
    return [Library.from_entry(entry) for _, entry in sorted(entries.items())]


def remove_library(index_dir: Path, library_id: str, *, progress: ProgressFn | None = None) -> IndexReport:
    """Rebuild the index at ``index_dir`` without ``library_id``, with the model that built it.

    Raises:
        IndexNotFoundError, IndexFormatError: there is no readable index at ``index_dir``.
        LibraryError: the index has no such library, or it is the only one.
        ModelLoadError, IndexLockedError: as for any build.
    """
    with open_index(Path(index_dir)) as reader:
        embeddings = reader.model.name if reader.model else "none"
    plan = plan_removal(Path(index_dir), library_id)
    return write_index(
        plan.scan, Path(index_dir), embeddings=embeddings, annotate=plan.catalog.annotate, progress=progress
    )
