"""A Python project's direct dependencies: pyproject.toml (PEP 621, dependency groups, Poetry), uv.lock,
poetry.lock and requirements*.txt.

The direct dependencies are the ones the manifests name (runtime and development); a lock file
only gives their versions. Without pyproject.toml, ``uv.lock``'s root package (the editable or
virtual one) names them. ``requirements*.txt`` lines pin with ``==``; ``-r FILE`` includes
another file of the project (outside it: refused).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from docs_mcp.indexer.sources.packages.project import Dependency, Project, array, merge_dependencies, read_text, table
from docs_mcp.indexer.sources.packages.refs import PYPI, normalize_pypi

PYPROJECT = "pyproject.toml"
UV_LOCK = "uv.lock"
POETRY_LOCK = "poetry.lock"
REQUIREMENTS_GLOB = "requirements*.txt"
MAX_INCLUDES = 20
_OPTION = re.compile(r"^\s*(-r|--requirement|-c|--constraint)\s*=?\s*(\S+)")


def read_python_project(root: Path) -> Project:
    """The Python dependencies of the project at ``root`` (an empty Project when it has none)."""
    found: list[Dependency] = []
    files: list[str] = []
    problems: list[str] = []
    locked = _locked_versions(root, files, problems)
    pyproject = root / PYPROJECT
    declared: list[Dependency] = []
    if pyproject.is_file():
        try:
            declared = _pyproject_dependencies(tomllib.loads(read_text(pyproject)))
            files.append(PYPROJECT)
        except (OSError, ValueError, tomllib.TOMLDecodeError) as error:
            problems.append(f"{PYPROJECT}: cannot be read ({error}); skipped.")
    if not declared and (root / UV_LOCK).is_file():
        declared = _uv_roots(root, problems)
    for dep in declared:
        lock = locked.get(dep.name)
        found.append(
            Dependency(
                PYPI,
                dep.name,
                lock[0] if lock else _exact(dep.specifier),
                dep.specifier,
                PYPROJECT,
                lock[1] if lock else "",
                dep.dev,
            )
        )
    for path in sorted(root.glob(REQUIREMENTS_GLOB)):
        found.extend(_requirements(path, root, files, problems, dev="dev" in path.name or "test" in path.name))
    return Project(root, merge_dependencies(found), tuple(files), tuple(problems))


def _pyproject_dependencies(data: Mapping[str, Any]) -> list[Dependency]:
    """The dependencies pyproject.toml declares.

    Raises:
        ValueError: a table or array of another shape (the message names it).
    """
    project = table(data.get("project"), "project")
    out = [
        _requirement(text, dev=False)
        for text in array(project.get("dependencies"), "project.dependencies", of_strings=True)
    ]
    for name, group in table(data.get("dependency-groups"), "dependency-groups").items():
        out += [
            _requirement(text, dev=True) for text in array(group, f"dependency-groups.{name}") if isinstance(text, str)
        ]
    poetry = table(table(data.get("tool"), "tool").get("poetry"), "tool.poetry")
    out += [
        _poetry(name, value, dev=False)
        for name, value in table(poetry.get("dependencies"), "tool.poetry.dependencies").items()
    ]
    out += [
        _poetry(name, value, dev=True)
        for name, value in table(poetry.get("dev-dependencies"), "tool.poetry.dev-dependencies").items()
    ]
    for name, group in table(poetry.get("group"), "tool.poetry.group").items():
        where = f"tool.poetry.group.{name}"
        out += [
            _poetry(dep, value, dev=True)
            for dep, value in table(table(group, where).get("dependencies"), f"{where}.dependencies").items()
        ]
    return [dep for dep in out if dep is not None]


def _requirement(text: str, *, dev: bool) -> Dependency | None:
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if requirement.url:
        return None  # a direct URL or path: no registry release to read
    return Dependency(PYPI, normalize_pypi(requirement.name), specifier=str(requirement.specifier), dev=dev)


def _poetry(name: str, value: Any, *, dev: bool) -> Dependency | None:
    if name.lower() == "python":
        return None
    constraint = value.get("version", "") if isinstance(value, Mapping) else str(value)
    if isinstance(value, Mapping) and ("path" in value or "git" in value or "url" in value):
        return None
    return Dependency(PYPI, normalize_pypi(name), specifier=_poetry_constraint(str(constraint)), dev=dev)


def _poetry_constraint(constraint: str) -> str:
    """Poetry's ``^1.2``/``~1.2``/``1.2.3`` as a PEP 440 specifier."""
    constraint = constraint.strip()
    if constraint in ("", "*"):
        return ""
    if constraint[0] == "^":
        parts = constraint[1:].split(".")
        bump = next((i for i, p in enumerate(parts) if p != "0"), len(parts) - 1)
        upper = [*parts[:bump], str(int(parts[bump]) + 1)] if parts[bump].isdigit() else parts
        return f">={constraint[1:]},<{'.'.join(upper)}"
    if constraint[0] == "~" and constraint[1:2] != "=":
        parts = constraint[1:].split(".")
        return (
            f">={constraint[1:]},<{parts[0]}.{int(parts[1]) + 1}"
            if len(parts) > 1 and parts[1].isdigit()
            else f">={constraint[1:]}"
        )
    if constraint[0].isdigit():
        return f"=={constraint}"
    return constraint


def _exact(specifier: str) -> str:
    """The version a specifier pins exactly (``==1.2.3``), else ''."""
    match = re.fullmatch(r"===?\s*([0-9][^,*\s]*)", specifier.strip())
    return match.group(1) if match else ""


def _locked_versions(root: Path, files: list[str], problems: list[str]) -> dict[str, tuple[str, str]]:
    """Package name -> (version, lock file) from uv.lock, then poetry.lock."""
    out: dict[str, tuple[str, str]] = {}
    for name in (UV_LOCK, POETRY_LOCK):
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(read_text(path))
            packages = [
                p
                for p in array(data.get("package"), "package")
                if isinstance(p, Mapping) and p.get("name") and p.get("version")
            ]
        except (OSError, ValueError, tomllib.TOMLDecodeError) as error:
            problems.append(f"{name}: cannot be read ({error}); skipped.")
            continue
        files.append(name)
        for package in packages:
            if _from_registry(package):
                out.setdefault(normalize_pypi(str(package["name"])), (str(package["version"]), name))
    return out


def _from_registry(package: Mapping[str, Any]) -> bool:
    """Whether a lock entry is a registry release (not the project itself, a path, git or URL)."""
    source = package.get("source")
    if isinstance(source, Mapping):
        return "registry" in source or source.get("type") in ("legacy",)
    return True  # poetry.lock: PyPI entries have no source table


def _uv_roots(root: Path, problems: list[str]) -> list[Dependency]:
    """The direct dependencies uv.lock's root package (editable or virtual) names."""
    try:
        data = tomllib.loads(read_text(root / UV_LOCK))
        return [
            dep
            for package in array(data.get("package"), "package")
            if isinstance(package, Mapping)
            for dep in _uv_root(package)
        ]
    except (OSError, ValueError, tomllib.TOMLDecodeError) as error:
        problem = f"{UV_LOCK}: cannot be read ({error}); skipped."
        if problem not in problems:  # _locked_versions read it too
            problems.append(problem)
        return []


def _uv_root(package: Mapping[str, Any]) -> list[Dependency]:
    """The dependencies of one uv.lock package, if it is the project's own (editable or virtual); else none."""
    source = package.get("source")
    if not (isinstance(source, Mapping) and ("editable" in source or "virtual" in source)):
        return []
    out = [Dependency(PYPI, name) for name in _named(array(package.get("dependencies"), "package.dependencies"))]
    for group, entries in table(package.get("dev-dependencies"), "package.dev-dependencies").items():
        out += [
            Dependency(PYPI, name, dev=True) for name in _named(array(entries, f"package.dev-dependencies.{group}"))
        ]
    return out


def _named(entries: list[Any]) -> list[str]:
    """The normalized names of a uv.lock dependency list's entries (``{name = "..."}``; others are no dependency)."""
    return [normalize_pypi(str(entry["name"])) for entry in entries if isinstance(entry, Mapping) and entry.get("name")]


def _requirements(
    path: Path, root: Path, files: list[str], problems: list[str], *, dev: bool, seen: set[Path] | None = None
) -> Iterable[Dependency]:
    seen = seen if seen is not None else set()
    resolved = path.resolve()
    if resolved in seen or len(seen) >= MAX_INCLUDES:
        return []
    seen.add(resolved)
    if not resolved.is_relative_to(root.resolve()):
        problems.append(f"{path.name}: includes a file outside the project; skipped.")
        return []
    try:
        text = read_text(path)
    except (OSError, ValueError) as error:
        problems.append(f"{path.name}: cannot be read ({error}); skipped.")
        return []
    relative = resolved.relative_to(root.resolve()).as_posix()
    if relative not in files:
        files.append(relative)
    out: list[Dependency] = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if option := _OPTION.match(line):
            if option.group(1) in ("-r", "--requirement"):
                out += _requirements(path.parent / option.group(2), root, files, problems, dev=dev, seen=seen)
            continue
        if line.startswith("-"):
            continue  # -e, --index-url, --hash...: no package of a registry by name
        dep = _requirement(line.split(" --", 1)[0], dev=dev)
        if dep is not None:
            exact = _exact(dep.specifier)
            out.append(Dependency(PYPI, dep.name, exact, dep.specifier, relative, relative if exact else "", dev))
    return out
