"""Taxonomy facets: values discovered in the chunks, descriptions from the corpus configuration.

Also writes the content of an index's ``metadata.json``, which the server reads at boot
to describe the corpus and to offer each facet's values as a search filter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.manifest import KeyConfig, taxonomy_configs
from docs_mcp.indexer.errors import ManifestError
from docs_mcp.indexer.records import Chunk, CorpusScan, ModelIdentity, TaxonomyKey

METADATA_VERSION = "1"


def load_corpus_metadata(path: Path) -> tuple[str, dict[str, KeyConfig]]:
    """Read a corpus ``metadata.json``: its description ('' if none) and its taxonomy configuration.

    Raises:
        ManifestError: the file cannot be read, is not JSON, or has fields of the wrong type.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read {path}: {exc}.", "Fix the file or pass another with --metadata.") from exc
    except json.JSONDecodeError as exc:
        raise ManifestError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}.", "Fix the JSON."
        ) from exc
    if not isinstance(data, dict):
        raise ManifestError(
            "metadata.json must be a JSON object.", 'Write {"corpus_description": "...", "taxonomy": {}}.'
        )
    description = data.get("corpus_description", "")
    if not isinstance(description, str):
        raise ManifestError("`corpus_description` must be text.", "Quote it.")
    return description.strip(), taxonomy_configs(data.get("taxonomy"), "taxonomy")


def merge_configs(primary: Mapping[str, KeyConfig], others: Iterable[Mapping[str, KeyConfig]]) -> dict[str, KeyConfig]:
    """One config per key: ``primary`` (metadata.json) describes first; a flag is set if any config sets it."""
    merged = dict(primary)
    for configs in others:
        for key, conf in configs.items():
            merged[key] = merged.get(key, KeyConfig()).merged_with(conf)
    return merged


def discover_taxonomy(chunks: Iterable[Chunk], configs: Mapping[str, KeyConfig]) -> tuple[TaxonomyKey, ...]:
    """Every metadata key used by a chunk, with its sorted distinct values (casing kept), by key name."""
    values: dict[str, set[str]] = {}
    for chunk in chunks:
        for key, value in chunk.metadata.items():
            values.setdefault(key, set()).add(value)
    return tuple(
        TaxonomyKey(
            name=key,
            description=configs.get(key, KeyConfig()).description,
            values=tuple(sorted(values[key])),
            vector_collapse=configs.get(key, KeyConfig()).vector_collapse,
            filter_keeps_unset=configs.get(key, KeyConfig()).filter_keeps_unset,
            filter_keeps=configs.get(key, KeyConfig()).filter_keeps,
        )
        for key in sorted(values)
    )


def _taxonomy_entry(key: TaxonomyKey) -> dict[str, Any]:
    entry = {"description": key.description, "values": list(key.values), **key.config().as_json()}
    if key.by_library:
        entry["by_library"] = {library_id: conf.as_entry() for library_id, conf in key.by_library}
    return entry


def build_metadata(scan: CorpusScan, *, indexed_at: str, embedding: ModelIdentity | None) -> dict[str, Any]:
    """The content of an index's ``metadata.json`` (``indexed_at``: ISO-8601 UTC time of the build)."""
    return {
        "metadata_version": METADATA_VERSION,
        "corpus_description": scan.corpus_description,
        "taxonomy": {key.name: _taxonomy_entry(key) for key in scan.taxonomy},
        "stats": {"chunks": len(scan.chunks), "files": len(scan.files), "indexed_at": indexed_at},
        "embedding": None
        if embedding is None
        else {"provider": embedding.provider, "model": embedding.name, "dimensions": embedding.dimensions},
        "files": dict(scan.files),
    }
