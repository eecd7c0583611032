"""A docs folder as a source: documentation files on disk, indexed as one library (or the implicit one).

``docs-mcp index DOCS_DIR`` builds through here; the folder is read where it is, nothing is copied. A folder
library is not refreshed: `docs-mcp index` writes it again (only what changed is embedded again).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.indexer.build import Documents, write_source
from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.generation import EmbedVia, ProgressFn
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.records import IndexReport
from docs_mcp.indexer.sources.kinds import SourceKind


@dataclass(frozen=True)
class FolderSource:
    """The pages under ``root`` (with an optional corpus ``metadata_file``), as library ``spec``; ``rules`` choose the files."""

    root: Path
    spec: LibrarySpec | None = None  # None: the implicit library
    metadata_file: Path | None = None
    rules: FileRules | None = None

    def documents(self) -> AbstractContextManager[Documents]:
        return nullcontext(Documents(self.root, self.metadata_file, self.rules))

    def catalog_entry(self, planned: Mapping[str, Any]) -> Mapping[str, Any]:
        return planned  # a folder's entry is what planning read of it


def build_index(
    docs_dir: Path,
    out_dir: Path,
    *,
    embeddings: str = "default",
    strict: bool = False,
    metadata_file: Path | None = None,
    progress: ProgressFn | None = None,
    library: LibrarySpec | None = None,
    embed_via: EmbedVia | None = None,
    rules: FileRules | None = None,
) -> IndexReport:
    """Index the documentation under ``docs_dir`` into the index folder ``out_dir``.

    ``embeddings`` is ``"default"`` (the packaged model, offline), ``"none"`` (full text
    only) or a model name (see --model).  ``library`` indexes the folder as that library,
    keeping the index's other libraries; None indexes it as the implicit library. ``rules``
    (include/exclude globs, .gitignore, default skips) choose the files read. ``embed_via``
    wraps the model for the documents' embedding (a Dask fan-out).

    Raises:
        CorpusNotFoundError: ``docs_dir`` is missing or holds no documentation page.
        CorpusProblemsError: ``strict`` and some input file has a problem (nothing is written).
        LibraryError: the library's paths would collide with another library's.
        ModelLoadError: the embedding model cannot be loaded.
        IndexLockedError: another build is writing ``out_dir``.
        IndexFormatError: ``out_dir`` holds something that is not an index.
    """
    source = FolderSource(Path(docs_dir), library, metadata_file, rules)
    return write_source(
        source, Path(out_dir), embeddings=embeddings, strict=strict, progress=progress, embed_via=embed_via
    )


KIND = SourceKind("folder", ("",), build_index, FolderSource)
