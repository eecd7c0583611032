"""A JavaScript project's direct dependencies: package.json, with versions from package-lock.json,
pnpm-lock.yaml or yarn.lock (v1 and Berry).

``dependencies`` (and ``optionalDependencies``) are runtime dependencies, ``devDependencies``
development ones; ``peerDependencies`` are the host's to install, so they are left out. An
alias (``"x": "npm:y@^1"``), a git, file, link or workspace dependency names no registry release.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from docs_mcp.indexer.sources.packages.project import Dependency, Project, merge_dependencies, read_text, table
from docs_mcp.indexer.sources.packages.refs import NPM

PACKAGE_JSON = "package.json"
PACKAGE_LOCK = "package-lock.json"
PNPM_LOCK = "pnpm-lock.yaml"
YARN_LOCK = "yarn.lock"
_SECTIONS = (("dependencies", False), ("optionalDependencies", False), ("devDependencies", True))
_NOT_REGISTRY = ("git", "file:", "link:", "workspace:", "http:", "https:", "github:", "portal:", "patch:", "npm:")
_PEER_SUFFIX = re.compile(r"[(_].*$")


def read_node_project(root: Path) -> Project:
    """The npm dependencies of the project at ``root`` (an empty Project without package.json)."""
    path = root / PACKAGE_JSON
    if not path.is_file():
        return Project(root)
    files, problems = [PACKAGE_JSON], []
    try:
        declared = _declared(table(json.loads(read_text(path)), "the whole file", "an object"))
    except (OSError, ValueError) as error:
        return Project(root, (), (), (f"{PACKAGE_JSON}: cannot be read ({error}); skipped.",))
    locked: dict[str, str] = {}
    lock_name = ""
    for name, reader in ((PACKAGE_LOCK, _package_lock), (PNPM_LOCK, _pnpm_lock), (YARN_LOCK, _yarn_lock)):
        if (root / name).is_file():
            try:
                locked = reader(read_text(root / name), declared)
                lock_name = name
                files.append(name)
                break
            except (OSError, ValueError, yaml.YAMLError, AttributeError, TypeError) as error:
                problems.append(f"{name}: cannot be read ({error}); skipped.")
    deps = [
        Dependency(
            NPM, name, locked.get(name, _exact(spec)), spec, PACKAGE_JSON, lock_name if name in locked else "", dev
        )
        for name, (spec, dev) in declared.items()
    ]
    return Project(root, merge_dependencies(deps), tuple(files), tuple(problems))


def _declared(manifest: Mapping[str, Any]) -> dict[str, tuple[str, bool]]:
    """Package name -> (specifier, dev) of the registry dependencies package.json declares.

    Raises:
        ValueError: a section that is no object (the message names it).
    """
    declared: dict[str, tuple[str, bool]] = {}
    for section, dev in _SECTIONS:
        for name, specifier in table(manifest.get(section), section, "an object").items():
            if (
                isinstance(specifier, str)
                and not specifier.startswith(_NOT_REGISTRY)
                and "/" not in specifier.split("@")[0]
            ):
                declared.setdefault(name, (specifier.strip(), dev))
    return declared


def _exact(specifier: str) -> str:
    return (
        specifier.removeprefix("=").removeprefix("v")
        if re.fullmatch(r"=?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?", specifier)
        else ""
    )


def _package_lock(text: str, declared: Mapping[str, Any]) -> dict[str, str]:
    """npm's lock (v2/v3 ``packages``, v1 ``dependencies``): the version installed at the top of node_modules."""
    data = json.loads(text)
    packages = data.get("packages") or {}
    out = {}
    for name in declared:
        entry = packages.get(f"node_modules/{name}") or (data.get("dependencies") or {}).get(name) or {}
        if isinstance(entry, Mapping) and entry.get("version") and not entry.get("link"):
            out[name] = str(entry["version"])
    return out


def _pnpm_lock(text: str, declared: Mapping[str, Any]) -> dict[str, str]:
    """pnpm's lock: v6+ ``importers['.']`` (``{specifier, version}``), v5 top-level ``dependencies`` (a version string)."""
    data = yaml.safe_load(text) or {}
    root = (data.get("importers") or {}).get(".") or data
    out = {}
    for section, _dev in _SECTIONS:
        for name, value in (root.get(section) or {}).items():
            version = value.get("version") if isinstance(value, Mapping) else value
            version = _PEER_SUFFIX.sub("", str(version or ""))
            if name in declared and re.match(r"\d", version):
                out[name] = version
    return out


def _yarn_lock(text: str, declared: Mapping[str, Any]) -> dict[str, str]:
    """yarn's lock: v1 (its own format) or Berry (YAML); the entry whose key lists ``name@specifier``."""
    wanted = {f"{name}@{spec}": name for name, (spec, _dev) in declared.items()}
    wanted.update({f"{name}@npm:{spec}": name for name, (spec, _dev) in declared.items()})
    out: dict[str, str] = {}
    keys: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            keys = [k.strip().strip('"') for k in line.rstrip(":").split(",")]
            continue
        match = re.match(r'\s+version:?\s+"?([^"\s]+)"?', line)
        if match and keys:
            for key in keys:
                if key in wanted:
                    out.setdefault(wanted[key], match.group(1))
            keys = []
    return out
