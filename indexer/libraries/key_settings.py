"""Each library's taxonomy settings in an index of several libraries: kept per library, merged only where they must be.

A library configures its taxonomy keys in its own metadata.json or manifests (description,
``vector_collapse``, ``filter_keeps_unset``, ``filter_keeps``). Two libraries may both carry a
``language`` key and configure it differently, or one not at all. The index keeps every
library's own settings (``taxonomy.KEY.by_library`` in metadata.json), so re-indexing or
removing one library never changes another's, and the filter settings apply to the chunks of
the library that set them (server/search/filters.py). Two things are one per key and are
merged, explicitly:

- the description (the search_docs schema shows one per key): a library's own when it is the
  only description and every library carrying the key gave it, else each described library's,
  prefixed with its ID;
- ``vector_collapse``: on when any library sets it. Twins never cross libraries (they differ in
  the collapse key alone, and the library is a key), so it only drops near-identical copies of a
  section within a library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from docs_mcp.indexer.corpus.manifest import key_config
from docs_mcp.indexer.corpus.taxonomy import discover_taxonomy
from docs_mcp.indexer.libraries.spec import LIBRARY_KEY, LIBRARY_KEY_DESCRIPTION
from docs_mcp.indexer.records import Chunk, KeyConfig, TaxonomyKey

BY_LIBRARY = "by_library"  # the per-library settings of a metadata.json taxonomy entry

LibraryConfigs = Mapping[str, Mapping[str, KeyConfig]]
"""Library ID -> taxonomy key -> that library's own config of the key."""


def own_configs(taxonomy: Iterable[TaxonomyKey]) -> dict[str, KeyConfig]:
    """The keys a library's scan configures (the ones left at the defaults are not settings)."""
    return {key.name: key.config() for key in taxonomy if key.config() != KeyConfig()}


def stored_configs(taxonomy: Mapping[str, Any], library_ids: Iterable[str]) -> dict[str, dict[str, KeyConfig]]:
    """Each of ``library_ids``' own configs, read back from an index's metadata.json ``taxonomy``.

    An entry without ``by_library`` was written for one library (or, before per-library settings, merged over
    several): its settings are every library's, as they were served.
    """
    ids = list(library_ids)
    configs: dict[str, dict[str, KeyConfig]] = {library_id: {} for library_id in ids}
    for key, entry in taxonomy.items():
        if key == LIBRARY_KEY or not isinstance(entry, Mapping):
            continue
        per_library = entry.get(BY_LIBRARY)
        if isinstance(per_library, Mapping):
            owned = {lib: key_config(conf, f"taxonomy.{key}.{BY_LIBRARY}.{lib}") for lib, conf in per_library.items()}
        else:
            shared = key_config(entry, f"taxonomy.{key}")
            owned = {library_id: shared for library_id in ids} if shared != KeyConfig() else {}
        for library_id, conf in owned.items():
            if library_id in configs:
                configs[library_id][key] = conf
    return configs


def library_taxonomy(chunks: Iterable[Chunk], configs: LibraryConfigs) -> tuple[TaxonomyKey, ...]:
    """The taxonomy of an index of several libraries (``chunks`` tagged with their library): each key's merged
    description and collapse flag, and every library's own config of it."""
    chunks = tuple(chunks)
    carriers: dict[str, set[str]] = {}
    for chunk in chunks:
        for key in chunk.metadata:
            carriers.setdefault(key, set()).add(chunk.metadata[LIBRARY_KEY])
    keys = discover_taxonomy(chunks, {LIBRARY_KEY: KeyConfig(LIBRARY_KEY_DESCRIPTION)})
    return tuple(key if key.name == LIBRARY_KEY else _merged(key, configs, carriers[key.name]) for key in keys)


def _merged(key: TaxonomyKey, configs: LibraryConfigs, carriers: set[str]) -> TaxonomyKey:
    own = tuple((lib, conf[key.name]) for lib, conf in sorted(configs.items()) if key.name in conf and lib in carriers)
    described = {lib: conf.description for lib, conf in own if conf.description}
    texts = set(described.values())
    if len(texts) == 1 and set(described) == carriers:
        description = texts.pop()
    else:
        description = " ".join(f"{lib}: {text.rstrip('.')}." for lib, text in described.items())
    collapse = any(conf.vector_collapse for _, conf in own)
    return replace(key, description=description, vector_collapse=collapse, by_library=own)
