"""resolve_library's live registry lookups: packages the index does not hold, as PyPI and npm describe them.

A query that names no indexed or registered library well (no match at ``KNOWN_RELEVANCE`` or
above) and reads as a package name is looked up in PyPI and npm at once (or the one its
``language``'s family means: languages.py), each in at most ``LOOKUP_TIMEOUT`` seconds, one attempt; answers
are cached with the registry TTL. When a registry cannot be reached, the answer says so in one line
(``registry_note``) and lists what the index and the cache have. ``DOCS_MCP_REGISTRY_LOOKUPS=0``
turns lookups off (air-gapped servers).

The ``add`` command offers the version the project's lock files pin (the project is the folder
``DOCS_MCP_PROJECT`` names, else the server's working directory, read as ``docs-mcp sync`` reads it),
else the newest: an agent in a project on zod 3.23.8 wants zod 3's docs, not 4's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docs_mcp.environment import environment
from docs_mcp.indexer.errors import PackageSpecError
from docs_mcp.indexer.sources.packages.refs import NPM, PYPI, normalize_pypi, package_ref
from docs_mcp.server.libraries.languages import speaks

if TYPE_CHECKING:  # the client (httpx) loads with the first lookup, not with the server
    from docs_mcp.indexer.sources.packages.registry_client import Lookup, RegistryClient

LOOKUPS_ENV = "DOCS_MCP_REGISTRY_LOOKUPS"
PROJECT_ENV = "DOCS_MCP_PROJECT"
KNOWN_RELEVANCE = 0.9  # an indexed library this close answers the query: no lookup
_PACKAGE_NAME = re.compile(r"@?[A-Za-z0-9][A-Za-z0-9._/-]{0,213}")
_LANGUAGE_OF = {PYPI: "python", NPM: "javascript"}


def lookups_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether resolve_library may ask the registries (``DOCS_MCP_REGISTRY_LOOKUPS``, on by default)."""
    return (environment() if environ is None else environ).get(LOOKUPS_ENV, "1") != "0"


def registry_packages(registry: RegistryClient, query: str, language: str | None) -> tuple[list[dict[str, Any]], str]:
    """The packages named ``query`` in the registries ``language`` allows, and a one-line note when one could not be asked."""
    name = query.strip()
    if not _PACKAGE_NAME.fullmatch(name):
        return [], ""
    ecosystems = [eco for eco, spoken in _LANGUAGE_OF.items() if not language or speaks(language, [spoken])]
    refs = []
    for ecosystem in ecosystems:
        try:
            refs.append(package_ref(ecosystem, name))
        except PackageSpecError:
            continue
    if not refs:
        return [], ""
    with ThreadPoolExecutor(max_workers=len(refs), thread_name_prefix="docs-mcp-lookup") as pool:
        found: list[Lookup] = list(pool.map(lambda ref: registry.lookup(ref.ecosystem, ref.name), refs))
    pins = project_pins()
    packages, notes = [], []
    for ref, lookup in zip(refs, found):
        if lookup.offline:
            notes.append(lookup.offline)
        if lookup.info is not None:
            pinned = pins.get((ref.ecosystem, ref.name), "")
            version = pinned or lookup.info.newest
            spec = (
                f"{ref.ecosystem}:{ref.name}{'==' if ref.ecosystem == PYPI else '@'}{version}"
                if version
                else f"{ref.ecosystem}:{ref.name}"
            )
            packages.append({
                "registry": ref.ecosystem, "library_id": ref.base_id, "indexed": False, **lookup.info.summary_json(),
                **({"pinned": pinned} if pinned else {}), "add": f"docs-mcp add {spec}", **({"cached": True} if lookup.offline else {}),
            })  # fmt: skip
    note = ""
    if notes:
        note = f"{'; '.join(notes)}: answered from this index and the registry cache only."
    return packages, note


def project_pins() -> dict[tuple[str, str], str]:
    """The versions the project's lock files pin, by (ecosystem, normalized name); none when there is no project.

    The project is ``DOCS_MCP_PROJECT``, else the working directory (where a client starts its server); its manifests
    are read as ``docs-mcp sync`` reads them (bounded in size; a file that cannot be parsed counts as absent).
    """
    from docs_mcp.indexer.sources.packages.manifests import read_project  # loaded with the first lookup, not the server

    root = Path(environment().get(PROJECT_ENV) or ".")
    try:
        dependencies = read_project(root).dependencies if root.is_dir() else ()
    except OSError:
        return {}
    return {(dep.ecosystem, _normalized(dep.ecosystem, dep.name)): dep.version for dep in dependencies if dep.version}


def _normalized(ecosystem: str, name: str) -> str:
    return normalize_pypi(name) if ecosystem == PYPI else name.lower()
