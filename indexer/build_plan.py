"""Plan a build that adds, replaces or removes one library and keeps every other library as it is.

The other libraries' chunks are read back from the live generation unchanged, so
their embedding windows hash the same and the builder reuses their vectors: re-indexing
or removing one library costs no embedding work for the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.corpus.scan import scan_corpus
from docs_mcp.indexer.corpus.taxonomy import discover_taxonomy
from docs_mcp.indexer.errors import IndexFormatError, IndexNotFoundError, LibraryError
from docs_mcp.indexer.libraries.catalog import (
    Catalog,
    library_entry,
    merge_marks,
    prompt_entries,
    resource_marks,
)
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.key_settings import LibraryConfigs, library_taxonomy, own_configs
from docs_mcp.indexer.libraries.spec import (
    LibrarySpec,
    implicit_spec,
    mount,
    tag_libraries,
)
from docs_mcp.indexer.libraries.store import StoredLibraries, catalog_entries, read_libraries
from docs_mcp.indexer.libraries.templates import find_templates
from docs_mcp.indexer.libraries.versions import parse_ref
from docs_mcp.indexer.records import Chunk, CorpusScan


@dataclass(frozen=True)
class BuildPlan:
    """What to write: every library's chunks (mounted, tagged) as one scan, and the catalog for metadata.json."""

    scan: CorpusScan
    catalog: Catalog


def plan_build(
    docs_dir: Path,
    index_dir: Path,
    spec: LibrarySpec | None,
    metadata_file: Path | None = None,
    rules: FileRules | None = None,
    on_page: Callable[[int, int], None] | None = None,
) -> BuildPlan:
    """Scan ``docs_dir`` as library ``spec`` (None: the implicit library) and keep the index's other libraries;
    ``on_page`` gets the pages read and in all as the scan goes.

    Raises:
        CorpusNotFoundError, ManifestError: from scanning the corpus.
        LibraryError: the library's paths would collide with another library's.
    """
    return plan_builds([(Path(docs_dir), spec, metadata_file, rules)], index_dir, on_page=on_page)


def plan_builds(
    parts: Sequence[tuple[Path, LibrarySpec | None, Path | None, FileRules | None]],
    index_dir: Path,
    stored: Sequence[StoredLibraries] = (),
    *,
    on_page: Callable[[int, int], None] | None = None,
) -> BuildPlan:
    """Scan each ``(docs_dir, spec, metadata_file, rules)`` as its library, add the ``stored`` libraries as they were
    built before (chunks, catalog entries: the library cache's entries), all in one build, and keep the index's
    other libraries.

    Raises:
        CorpusNotFoundError, ManifestError: from scanning a corpus.
        LibraryError: two libraries' paths would collide, or a library is asked twice.
    """
    scans = [
        scan_corpus(Path(docs_dir), metadata_file=metadata_file, rules=rules, on_page=on_page)
        for docs_dir, _, metadata_file, rules in parts
    ]
    specs = [spec or implicit_spec(scan) for (_, spec, _, _), scan in zip(parts, scans)]
    stored_ids = [library_id for part in stored for library_id in part.libraries]
    if len({spec.library_id for spec in specs} | set(stored_ids)) < len(specs) + len(stored_ids):
        raise LibraryError("One build was asked to write the same library twice.", "Write each library once.")
    kept = _existing(
        Path(index_dir),
        lambda library_id, entry: (
            library_id not in stored_ids and not any(_replaces(spec, library_id, entry) for spec in specs)
        ),
    )
    indexed_at = _now()
    libraries, prompts, marks, configs = dict(kept.libraries), list(kept.prompts), [kept.marks], dict(kept.configs)
    chunks, files, problems = list(kept.chunks), dict(kept.files), []
    skipped: list[str] = []
    skipped_files: Counter[str] = Counter()
    other_files: Counter[str] = Counter()
    for part in stored:
        for library_id, entry in part.libraries.items():
            _check_versions(library_id, libraries)
            libraries[library_id] = {**entry, "indexed_at": indexed_at}
        _check_collisions(part.files, files)
        chunks += part.chunks
        files.update(part.files)
        prompts += part.prompts
        marks.append(part.marks)
        configs.update(part.configs)
    for (docs_dir, _, metadata_file, _), spec, scan in zip(parts, specs, scans):
        _check_versions(spec.library_id, libraries)
        templates, template_problems = find_templates(Path(docs_dir))
        libraries[spec.library_id] = library_entry(
            spec, scan, source=str(Path(docs_dir).resolve()), indexed_at=indexed_at
        )
        prompts += prompt_entries(templates, spec, (p["name"] for p in prompts))
        mounted = mount(scan, spec)
        mounted_library = "" if spec.implicit else spec.library_id
        _check_collisions(mounted.files, files)
        marks.append(resource_marks(Path(docs_dir), metadata_file))
        configs[spec.library_id] = own_configs(scan.taxonomy)
        chunks += mounted.chunks
        files.update(mounted.files)
        skipped += mounted.skipped
        # Each problem says whose file it is: a build of several libraries (sync) reports them per library.
        problems += [replace(problem, library=mounted_library) for problem in (*scan.problems, *template_problems)]
        skipped_files.update(scan.skipped_files)
        other_files.update(scan.other_files)
    catalog = Catalog(libraries=libraries, prompts=tuple(prompts), resource_marks=merge_marks(*marks))
    description = scans[0].corpus_description if scans else _single_description(libraries, kept.metadata)
    combined = _combine(chunks, files, configs, libraries, description=description)
    plan = replace(
        combined,
        root=scans[0].root if scans else str(index_dir),
        problems=tuple(problems),
        skipped=tuple(skipped),
        skipped_files=dict(skipped_files),
        other_files=dict(other_files),
    )
    return BuildPlan(plan, catalog)


def plan_removal(index_dir: Path, library_id: str) -> BuildPlan:
    """Every library of the index except ``library_id``.

    Raises:
        IndexNotFoundError: there is no index at ``index_dir``.
        LibraryError: the index has no such library, or it is the only one.
    """
    kept = read_libraries(Path(index_dir), lambda other, _entry: other != library_id)
    known = sorted(catalog_entries(kept.metadata))
    if library_id not in known:
        raise LibraryError(
            f"The index has no library '{library_id}'.",
            f"Its libraries are: {', '.join(known)}. See `docs-mcp libraries`.",
        )
    if not kept.libraries:
        raise LibraryError(
            f"'{library_id}' is the only library of the index; removing it would leave nothing to serve.",
            f"Delete the index folder {index_dir} instead.",
        )
    catalog = Catalog(kept.libraries, tuple(kept.prompts), kept.marks)
    description = _single_description(kept.libraries, kept.metadata)
    combined = _combine(kept.chunks, kept.files, kept.configs, kept.libraries, description=description)
    return BuildPlan(replace(combined, root=str(index_dir)), catalog)


def _existing(index_dir: Path, keep: Callable[[str, CatalogEntry], bool]) -> StoredLibraries:
    try:
        return read_libraries(index_dir, keep)
    except (IndexNotFoundError, IndexFormatError):
        # An unreadable or outdated index has nothing to keep; the build replaces it (else no rebuild could fix it).
        return StoredLibraries.empty()


def _replaces(spec: LibrarySpec, library_id: str, entry: CatalogEntry) -> bool:
    """Whether indexing ``spec`` replaces the stored library: the same ID, or any implicit one for an implicit spec."""
    return library_id == spec.library_id or (spec.implicit and entry.implicit)


def _combine(
    chunks: Iterable[Chunk],
    files: Mapping[str, str],
    configs: LibraryConfigs,
    libraries: Mapping[str, Mapping[str, Any]],
    *,
    description: str,
) -> CorpusScan:
    owners = {("" if entry["implicit"] else library_id): library_id for library_id, entry in libraries.items()}
    tagged = tag_libraries(sorted(chunks, key=lambda c: (c.library, c.filepath, c.chunk_index)), owners)
    if len(libraries) > 1:
        # Each library keeps its own settings of a key; only the description and the collapse flag are merged.
        taxonomy = library_taxonomy(tagged, configs)
        description = _several_description(libraries)
    else:
        taxonomy = discover_taxonomy(tagged, configs.get(next(iter(libraries), ""), {}))
    return CorpusScan(
        root="",
        chunks=tagged,
        files=dict(sorted(files.items())),
        taxonomy=taxonomy,
        corpus_description=description,
        problems=(),
    )


def _several_description(libraries: Mapping[str, Mapping[str, Any]]) -> str:
    named = (f"{entry['name']} ({library_id})" for library_id, entry in sorted(libraries.items()))
    return f"documentation of {len(libraries)} libraries: {', '.join(named)}"


def _single_description(libraries: Mapping[str, Mapping[str, Any]], metadata: Mapping[str, Any]) -> str:
    if len(libraries) > 1:
        return _several_description(libraries)
    (entry,) = libraries.values()
    return entry.get("corpus_description") or entry.get("description") or metadata.get("corpus_description", "")


def _check_versions(library_id: str, kept: Mapping[str, Any]) -> None:
    """Refuse a library that exists both with and without versions: ``org/p`` would own ``org/p/v1/``'s paths."""
    ref = parse_ref(library_id)
    if ref is None:
        return
    for other in kept:
        other_ref = parse_ref(other)
        if other_ref is not None and other_ref.base_id == ref.base_id and bool(other_ref.version) != bool(ref.version):
            versioned, plain = (library_id, other) if ref.version else (other, library_id)
            raise LibraryError(
                f"'{versioned}' is a version of '{plain}', which the index holds without a version.",
                f"Remove '{plain}' first (docs-mcp libraries remove {plain}), or index it with a version too ({ref.base_id}/vVERSION).",
            )


def _check_collisions(new: Mapping[str, str], taken: Mapping[str, str]) -> None:
    clash = sorted(set(new) & set(taken))
    if clash:
        raise LibraryError(
            f"'{clash[0]}' would belong to two libraries ({len(clash)} path(s) collide).",
            "Index the corpus under another --library ID, or move the conflicting folder out of the unnamed corpus.",
        )


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
