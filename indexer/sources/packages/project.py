"""A project's direct dependencies as records: what ``manifests.read_project`` reads from its manifests and lock files.

Python: ``pyproject.toml`` (PEP 621 ``[project]``, ``[dependency-groups]``, Poetry's tables), with
versions from ``uv.lock`` or ``poetry.lock``; ``requirements*.txt`` (``==`` pins; ``-r`` includes).
JavaScript: ``package.json`` with versions from ``package-lock.json``, ``pnpm-lock.yaml`` or
``yarn.lock`` (v1 and Berry). A dependency the lock files do not settle keeps its specifier
(``>=2.28``, ``^4.17.0``): ``sync`` picks the newest release that satisfies it. Files that cannot
be parsed, or whose tables are of another shape than their format's (``project = "x"``, a
dependency that is no string, a package.json that is a list), are reported, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from docs_mcp.indexer.sources.packages.refs import PYPI, normalize_pypi

MAX_MANIFEST_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Dependency:
    """One direct dependency: the package, the exact version the project locks ('' if none), what it asks for."""

    ecosystem: str
    name: str  # normalized (PyPI) / as written (npm)
    version: str = ""  # the locked version
    specifier: str = ""  # what the manifest asks for (">=2.28", "^4.17.0", "" for any)
    declared_in: str = ""  # the manifest file
    locked_in: str = ""  # the lock file that gave the version ('' when none did)
    dev: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.ecosystem, self.name)


@dataclass(frozen=True)
class Project:
    """What a project folder declares: dependencies (each once), and the files read or refused."""

    root: Path
    dependencies: tuple[Dependency, ...] = ()
    files: tuple[str, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)


def read_text(path: Path) -> str:
    """A manifest's text, bounded (a lock file of a huge monorepo stays readable; a 1 GB file is refused).

    Raises:
        ValueError: the file is larger than MAX_MANIFEST_BYTES.
    """
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ValueError(f"larger than {MAX_MANIFEST_BYTES // 2**20} MiB")
    return path.read_text(encoding="utf-8-sig")


def table(value: Any, where: str, noun: str = "a table") -> Mapping[str, Any]:
    """A manifest's table (TOML) or object (JSON, ``noun``) (absent: empty).

    Raises:
        ValueError: ``value`` is something else (the message names ``where``).
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} is {_kind(value)}, not {noun}")
    return value


def array(value: Any, where: str, *, of_strings: bool = False) -> list[Any]:
    """A manifest's array (absent: empty), every item a string if ``of_strings``.

    Raises:
        ValueError: ``value`` is something else, or an item is no string (the message names it).
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where} is {_kind(value)}, not an array")
    for index, item in enumerate(value if of_strings else ()):
        if not isinstance(item, str):
            raise ValueError(f"{where}[{index}] is {_kind(item)} ({str(item)[:40]}), not a string")
    return value


def _kind(value: Any) -> str:
    kinds = (
        (bool, "a boolean"),
        (int, "a number"),
        (float, "a number"),
        (str, "a string"),
        (list, "an array"),
        (Mapping, "a table"),
    )
    return next((name for kind, name in kinds if isinstance(value, kind)), f"a {type(value).__name__}")


def merge_dependencies(found: Iterable[Dependency]) -> tuple[Dependency, ...]:
    """One dependency per package: a locked version wins over none, a runtime dependency over a dev one; sorted."""
    merged: dict[tuple[str, str], Dependency] = {}
    for dep in found:
        dep = replace(dep, name=normalize_pypi(dep.name) if dep.ecosystem == PYPI else dep.name)
        old = merged.get(dep.key)
        if old is None:
            merged[dep.key] = dep
            continue
        merged[dep.key] = replace(
            old,
            version=old.version or dep.version,
            locked_in=old.locked_in or dep.locked_in,
            specifier=old.specifier or dep.specifier,
            dev=old.dev and dep.dev,
        )
    return tuple(merged[key] for key in sorted(merged))
