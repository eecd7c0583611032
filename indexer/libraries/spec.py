"""Libraries: named documentation sets that share one index, each mounted under its own ID.

A library ``org/project`` is mounted at ``org/project/``: its file paths, chunk IDs and
breadcrumbs get that prefix, so chunk IDs stay unique across libraries and ``get_doc``,
cursors and golden files need no notion of libraries. A corpus indexed without
``--library`` is the implicit library, mounted at the root: a single-corpus index is
byte-for-byte what it was before libraries existed, plus a ``libraries`` entry in its
metadata.json.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.manifest import MANIFEST_NAME
from docs_mcp.indexer.corpus.readable_name import readable_name
from docs_mcp.indexer.errors import LibraryError
from docs_mcp.indexer.libraries.versions import GRAMMAR, parse_ref
from docs_mcp.indexer.records import Chunk, CorpusScan

# The taxonomy facet that scopes a search to one library; only present with two or more.
LIBRARY_KEY = "library"
LIBRARY_KEY_DESCRIPTION = "Library (documentation set) the page belongs to; resolve_library describes each."
IMPLICIT_OWNER = "local"
_SLUG_DROP = re.compile(r"[^a-z0-9._-]+")
_ID_EXAMPLE = "'fastapi/fastapi' or 'acme/payments-sdk'"


@dataclass(frozen=True)
class LibrarySpec:
    """Who a library is: its ID (``org/project``) and what an agent is told about it.

    ``sections`` maps globs (relative to the library root) to TOC section names, first
    match wins; files matching none take their top-level folder as their section.
    """

    library_id: str
    name: str
    description: str = ""
    languages: tuple[str, ...] = ()
    version: str = ""
    aliases: tuple[str, ...] = ()
    sections: tuple[tuple[str, str], ...] = ()
    implicit: bool = False

    @property
    def mount(self) -> str:
        """The prefix of this library's paths in the index ('' for the implicit library)."""
        return "" if self.implicit else f"{self.library_id}/"


def check_library_id(value: str) -> str:
    """``value`` as a library ID: ``org/project``, or ``org/project/vVERSION`` for one version of it
    (``org/project@VERSION`` is written in that form).

    Raises:
        LibraryError: it is not two names of letters, digits, ``.``, ``_`` or ``-`` joined by ``/`` (and a version).
    """
    ref = parse_ref(value or "") if (value or "") == (value or "").strip() else None
    if ref is None:
        raise LibraryError(
            f"'{value}' is not a library ID.",
            f"Use the form {GRAMMAR}, e.g. {_ID_EXAMPLE} (letters, digits, '.', '_', '-').",
        )
    return ref.library_id


def requested_spec(
    docs_root: Path,
    library_id: str | None,
    *,
    name: str | None = None,
    description: str | None = None,
    languages: Iterable[str] = (),
    version: str | None = None,
) -> LibrarySpec | None:
    """The library the `index` command was asked for: flags first, then the ``library`` block of the
    root manifest; None for the implicit library (no library flag, no manifest ID).

    Raises:
        LibraryError: a library flag was given without an ID, an ID is malformed, or the manifest block is invalid.
    """
    if library_id is not None and not library_id.strip():  # `--library "$UNSET"` must not rebuild the whole index
        check_library_id(library_id)
    languages = tuple(lang.strip() for lang in languages if lang.strip())
    block = _manifest_block(Path(docs_root))
    chosen = library_id or block.get("id")
    if not (chosen or name or description or languages or version):
        return None
    if not chosen:
        raise LibraryError(
            "No library ID given.",
            f'Pass --library org/project, or add "library": {{"id": "org/project"}} to {MANIFEST_NAME} in the docs root.',
        )
    chosen = check_library_id(str(chosen))
    return LibrarySpec(
        library_id=chosen,
        name=name or _text(block, "name") or chosen.split("/")[1],
        description=description or _text(block, "description"),
        languages=languages or _texts(block, "languages"),
        version=version or _text(block, "version"),
        aliases=_texts(block, "aliases"),
        sections=_sections(block),
    )


def implicit_spec(scan: CorpusScan) -> LibrarySpec:
    """The library a corpus indexed without ``--library`` stands for: ``local/<folder name>``."""
    folder = Path(scan.root).resolve().name.lower()
    slug = _SLUG_DROP.sub("-", folder).strip("-._") or "docs"
    block = _manifest_block(Path(scan.root))
    languages = next((key.values for key in scan.taxonomy if key.name == "language"), ())
    return LibrarySpec(
        library_id=f"{IMPLICIT_OWNER}/{slug}",
        name=_text(block, "name") or readable_name(Path(scan.root)),
        description=_text(block, "description") or scan.corpus_description,
        languages=_texts(block, "languages") or tuple(languages),
        version=_text(block, "version"),
        aliases=_texts(block, "aliases"),
        sections=_sections(block),
        implicit=True,
    )


def mount(scan: CorpusScan, spec: LibrarySpec) -> CorpusScan:
    """``scan`` with every path, chunk ID and breadcrumb under ``spec.mount`` and chunks owned by the library."""
    prefix = spec.mount
    chunks = tuple(
        replace(
            chunk,
            chunk_id=prefix + chunk.chunk_id,
            filepath=prefix + chunk.filepath,
            breadcrumb=prefix + chunk.breadcrumb,
            library="" if spec.implicit else spec.library_id,
        )
        for chunk in scan.chunks
    )
    files = {prefix + path: title for path, title in scan.files.items()}
    return replace(scan, chunks=chunks, files=files, skipped=tuple(prefix + path for path in scan.skipped))


def tag_libraries(chunks: Iterable[Chunk], library_ids: Mapping[str, str]) -> tuple[Chunk, ...]:
    """Chunks with the ``library`` facet set to their library's ID (``library_ids``: chunk.library -> ID).

    With a single library the chunks are left as they are: a one-library index has no
    ``library`` facet, so its search_docs schema is what it was before libraries existed.
    """
    chunks = tuple(chunks)
    if len(set(library_ids.values())) < 2:
        return chunks
    return tuple(
        replace(chunk, metadata={**chunk.metadata, LIBRARY_KEY: library_ids[chunk.library]}) for chunk in chunks
    )


def _manifest_block(docs_root: Path) -> dict[str, Any]:
    path = docs_root / MANIFEST_NAME
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}  # scan_corpus reports the broken manifest; the flags still work
    block = data.get("library") if isinstance(data, dict) else None
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise LibraryError(
            f"`library` in {path} must be an object.",
            'Write "library": {"id": "org/project", "name": "...", "description": "...", "languages": ["python"]}.',
        )
    return block


def _text(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key, "")
    if not isinstance(value, str):
        raise LibraryError(f"`library.{key}` in {MANIFEST_NAME} must be text.", "Quote the value.")
    return value.strip()


def _texts(block: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = block.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LibraryError(f"`library.{key}` in {MANIFEST_NAME} must be a list of strings.", f'Write "{key}": ["..."].')
    return tuple(v.strip() for v in value if v.strip())


def _sections(block: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    value = block.get("sections", {})
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise LibraryError(
            f"`library.sections` in {MANIFEST_NAME} must map globs to section names.",
            'Write "sections": {"tutorial/**": "Tutorial", "reference/**": "API Reference"}.',
        )
    return tuple((glob.strip().removeprefix("./"), name.strip()) for glob, name in value.items() if name.strip())
