"""Mapping a generation's serving arrays (arrays.py) read-only, for the server.

``numpy.load(mmap_mode='r')``: opening or swapping a generation copies no corpus into Python
objects, the OS pages in only what queries touch, and every process serving the same generation
shares those pages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.indexer.errors import IndexFormatError
from docs_mcp.indexer.serving.arrays import (
    CHUNK_FILES,
    MANIFEST_FILE,
    POSTING_FILES,
    READABLE_VERSIONS,
    SERVING_DIR,
    Postings,
    ServingArrays,
    Vectors,
)
from docs_mcp.indexer.serving.page_records import open_page_records
from docs_mcp.indexer.serving.vector_index import VectorIndex, WindowRows


def open_serving_arrays(folder: Path) -> ServingArrays:
    """Memory-map the serving arrays of the generation in ``folder``.

    Raises:
        IndexFormatError: the generation has none (written before docs-mcp had them) or another version.
    """
    source = Path(folder) / SERVING_DIR
    try:
        manifest = json.loads((source / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise _format_error(folder, "has no serving arrays (it was written by an older docs-mcp)") from error
    if manifest.get("version") not in READABLE_VERSIONS:
        raise _format_error(
            folder,
            f"has serving arrays version {manifest.get('version')!r}; this docs-mcp reads {' and '.join(READABLE_VERSIONS)}",
        )
    try:
        return _load(source, manifest)
    except (OSError, ValueError, KeyError) as error:
        raise _format_error(folder, f"has damaged serving arrays ({error})") from error


def _load(source: Path, manifest: Mapping[str, Any]) -> ServingArrays:
    def mapped(name: str) -> np.ndarray:
        # A plain ndarray over the mapping: np.memmap's Python-level indexing costs ~3 ms per query.
        return np.load(source / f"{name}.npy", mmap_mode="r").view(np.ndarray)

    postings = Postings(
        **{field: mapped(file) for field, file in POSTING_FILES.items()},
        field_weights=tuple(manifest["field_weights"]),
        stopwords=frozenset(manifest["stopwords"]),
    )
    ann = manifest.get("ann")
    ivf = None
    if ann:
        ivf = VectorIndex(
            mapped("ivf_centroids"),
            mapped("ivf_starts"),
            mapped("ivf_vectors"),
            mapped("ivf_chunks"),
            int(ann["probes"]),
            float(ann["recall_at_50"]),
            float(ann["build_seconds"]),
            float(ann.get("margin", 2.0)),
            mapped("ivf_window_rows") if ann.get("window_rows") else None,
        )
    vectors = None
    if manifest["windows"]:
        # Generations written before "window_vectors" have vectors.npy beside their approximate index.
        stored = WindowRows(ivf) if ivf is not None and manifest.get("window_vectors") == "ivf" else mapped("vectors")
        vectors = Vectors(stored, mapped("vector_starts"), mapped("vector_chunks"))
    taxonomy = manifest["taxonomy"]
    return ServingArrays(
        num_chunks=int(manifest["chunks"]),
        postings=postings,
        **{name: mapped(name) for name in CHUNK_FILES},
        role_names=tuple(manifest["roles"]),
        taxonomy_keys=tuple(taxonomy),
        taxonomy_values={key: tuple(values) for key, values in taxonomy.items()},
        vectors=vectors,
        records=open_page_records(source, manifest),
        vector_index=ivf,
    )


def _format_error(folder: Path, problem: str) -> IndexFormatError:
    index_dir = Path(folder).parent
    return IndexFormatError(
        f"The index generation {Path(folder).name} at {index_dir} {problem}.",
        f"Rebuild it with `docs-mcp index DOCS_DIR --out {index_dir}` (vectors of the old index are reused, nothing is re-embedded).",
    )
