"""The library catalog an index's metadata.json carries: libraries, prompt templates, resource marks.

    "libraries": {"org/project": {name, description, languages, version, aliases, mount,
                                  implicit, source, indexed_at, stats, toc: [{path, title, description, section}]}}
    "prompts":   [{name, title, description, arguments, template, library, path}]
    "taxonomy":  {key: {..., "properties": {value: {"mcp_resource": true}}}}

Resource marks follow the reference server's manifest format: a taxonomy value whose
``properties`` say ``mcp_resource: true`` exposes each document carrying it as an MCP resource.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.discover import discover
from docs_mcp.indexer.libraries.spec import LIBRARY_KEY, LibrarySpec
from docs_mcp.indexer.libraries.templates import PromptTemplate
from docs_mcp.indexer.libraries.toc import toc_entries
from docs_mcp.indexer.libraries.versions import parse_ref, version_facet
from docs_mcp.indexer.records import CorpusScan

RESOURCE_PROPERTY = "mcp_resource"
CORPUS_METADATA = "metadata.json"


@dataclass(frozen=True)
class Catalog:
    """What metadata.json says about the libraries of one index generation."""

    libraries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prompts: tuple[Mapping[str, Any], ...] = ()
    resource_marks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # taxonomy key -> marked values

    def annotate(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """``metadata`` (built by taxonomy.build_metadata) with the catalog added; changed in place and returned."""
        metadata["libraries"] = {key: dict(value) for key, value in sorted(self.libraries.items())}
        metadata["prompts"] = [dict(prompt) for prompt in self.prompts]
        taxonomy = metadata.setdefault("taxonomy", {})
        facet = version_facet(self.libraries)
        if LIBRARY_KEY in taxonomy and facet:
            # A base ID filters its default version: listed among the values, so the schema's enum offers it.
            entry = taxonomy[LIBRARY_KEY]
            entry["values"] = sorted({*entry.get("values", ()), *facet["aliases"]})
            entry.update(facet)
        for key, values in self.resource_marks.items():
            if key in taxonomy:
                known = set(taxonomy[key].get("values", ()))
                taxonomy[key]["properties"] = {v: {RESOURCE_PROPERTY: True} for v in values if v in known}
        return metadata


def library_entry(spec: LibrarySpec, scan: CorpusScan, *, source: str, indexed_at: str) -> dict[str, Any]:
    """The metadata.json entry of one library, from its (unmounted) scan."""
    toc = toc_entries(scan.chunks, dict(scan.files), spec.sections, spec.mount)
    return {
        "name": spec.name,
        "description": spec.description,
        "languages": list(spec.languages),
        "version": spec.version,
        "aliases": list(spec.aliases),
        "mount": spec.mount,
        "implicit": spec.implicit,
        "sections": [{"pattern": pattern, "section": name} for pattern, name in spec.sections],
        "source": source,
        "indexed_at": indexed_at,
        "corpus_description": scan.corpus_description,
        "stats": {"files": len(toc), "chunks": len(scan.chunks)},
        "toc": [entry.as_json() for entry in toc],
    }


def with_one_pin(libraries: Mapping[str, Mapping[str, Any]], library_id: str) -> dict[str, Mapping[str, Any]]:
    """``libraries`` where ``library_id``, if pinned, is the only pinned version of its library (a project pins one)."""
    ref = parse_ref(library_id)
    if ref is None or not ref.version or not libraries[library_id].get("pinned"):
        return dict(libraries)
    out = {}
    for other, entry in libraries.items():
        other_ref = parse_ref(other)
        same_base = other != library_id and other_ref is not None and other_ref.base_id == ref.base_id
        out[other] = {**entry, "pinned": False} if same_base and entry.get("pinned") else entry
    return out


def prompt_entries(
    templates: Iterable[PromptTemplate], spec: LibrarySpec, taken: Iterable[str]
) -> list[dict[str, Any]]:
    """The library's templates as metadata.json prompts; a name another library already uses gets the library ID in front."""
    used = set(taken)
    out = []
    for template in templates:
        entry = template.as_json(spec.library_id)
        if entry["name"] in used:
            entry["name"] = f"{spec.library_id}/{entry['name']}"
        entry["path"] = spec.mount + template.path
        used.add(entry["name"])
        out.append(entry)
    return out


def resource_marks(root: Path, metadata_file: Path | None = None) -> dict[str, tuple[str, ...]]:
    """Taxonomy values marked ``mcp_resource`` in the corpus metadata.json or any manifest under ``root``.

    Malformed files are ignored here: scan_corpus already reports them.
    """
    paths = list(discover(root).manifests.values())
    default = next((p for p in (root / CORPUS_METADATA, root.parent / CORPUS_METADATA) if p.is_file()), None)
    corpus_file = metadata_file or default
    if corpus_file is not None:
        paths.append(corpus_file)
    marks: dict[str, set[str]] = {}
    for path in paths:
        for key, values in _marked(path).items():
            marks.setdefault(key, set()).update(values)
    return {key: tuple(sorted(values)) for key, values in sorted(marks.items())}


def merge_marks(*maps: Mapping[str, Iterable[str]]) -> dict[str, tuple[str, ...]]:
    """The union of several key -> values maps."""
    merged: dict[str, set[str]] = {}
    for marks in maps:
        for key, values in marks.items():
            merged.setdefault(key, set()).update(values)
    return {key: tuple(sorted(values)) for key, values in sorted(merged.items())}


def marks_from_metadata(metadata: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The resource marks an existing index's metadata.json carries."""
    out = {}
    for key, entry in (metadata.get("taxonomy") or {}).items():
        props = (entry or {}).get("properties") or {}
        values = tuple(sorted(v for v, p in props.items() if isinstance(p, dict) and p.get(RESOURCE_PROPERTY)))
        if values and key != LIBRARY_KEY:
            out[key] = values
    return out


def _marked(path: Path) -> dict[str, set[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    taxonomy = data.get("taxonomy") if isinstance(data, dict) else None
    out: dict[str, set[str]] = {}
    for key, conf in (taxonomy or {}).items() if isinstance(taxonomy, dict) else ():
        props = conf.get("properties") if isinstance(conf, dict) else None
        for value, flags in (props or {}).items() if isinstance(props, dict) else ():
            if isinstance(flags, dict) and flags.get(RESOURCE_PROPERTY) is True:
                out.setdefault(str(key), set()).add(str(value))
    return out
