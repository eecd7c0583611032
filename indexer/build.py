"""build_index(): scan a docs folder (one library of it, or all of it) and write it as the live index.

The scan is planned with the index's other libraries (kept as they are), then written
by :func:`docs_mcp.indexer.generation.write_index`.
"""

from __future__ import annotations

import time
from pathlib import Path

from docs_mcp.indexer.errors import CorpusProblemsError
from docs_mcp.indexer.generation import Progress, ProgressFn, write_index
from docs_mcp.indexer.libraries.merge import plan_build
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.records import IndexReport


def build_index(
    docs_dir: Path,
    out_dir: Path,
    *,
    embeddings: str = "default",
    strict: bool = False,
    metadata_file: Path | None = None,
    progress: ProgressFn | None = None,
    library: LibrarySpec | None = None,
) -> IndexReport:
    """Index the markdown under ``docs_dir`` into the index folder ``out_dir``.

    ``embeddings`` is ``"default"`` (the packaged model, offline), ``"none"`` (full text
    only) or a fastembed model name.  ``library`` indexes the folder as that library,
    keeping the index's other libraries; None indexes it as the implicit library.

    Raises:
        CorpusNotFoundError: ``docs_dir`` is missing or holds no markdown.
        CorpusProblemsError: ``strict`` and some input file has a problem (nothing is written).
        LibraryError: the library's paths would collide with another library's.
        ModelLoadError: the embedding model cannot be loaded.
        IndexLockedError: another build is writing ``out_dir``.
        IndexFormatError: ``out_dir`` holds something that is not an index.
    """
    started = time.perf_counter()
    if progress:
        progress(Progress("scan", 0, 0))
    plan = plan_build(Path(docs_dir), Path(out_dir), library, metadata_file)
    scan = plan.scan
    if strict and scan.problems:
        listed = "".join(f"\n  {problem.severity}: {problem}" for problem in scan.problems)
        raise CorpusProblemsError(
            f"{len(scan.problems)} problem(s) in {docs_dir}; nothing was written (--strict):{listed}",
            "Fix them (`docs-mcp validate DOCS_DIR` lists them all), or index without --strict.",
        )
    return write_index(scan, out_dir, embeddings=embeddings, annotate=plan.catalog.annotate, progress=progress, started=started)
