"""Versions side by side: the ID grammar of a library at one version, and which version is the newest.

    org/project               a library; when the index holds several versions of it, the default one
    org/project/v1.2.3        that library at version 1.2.3 (the form the hosted leader uses)
    /org/project/v1.2.3       the same (a leading slash is ignored)
    org/project@1.2.3         the same, as package managers write it

Each indexed version is a library of its own, with the versioned ID (``pypi/tomli/v2.0.1``)
and mounted under it, so its chunk IDs and paths never collide with another version's. The
*default* version of ``org/project`` is the one the project pins (``docs-mcp sync`` records
the pin), else the newest. Versions compare as PEP 440 versions where they parse as such
(semver pre-releases like ``1.2.3-rc.1`` do), else part by part, numbers as numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

VERSION_MARK = "v"
_PART = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
VERSION_PATTERN = r"[0-9][A-Za-z0-9._+!-]{0,63}"
_BASE = re.compile(rf"{_PART}/{_PART}")
_VERSIONED = re.compile(rf"(?P<base>{_PART}/{_PART})/{VERSION_MARK}(?P<version>{VERSION_PATTERN})")
_AT = re.compile(rf"(?P<base>{_PART}/{_PART})@{VERSION_MARK}?(?P<version>{VERSION_PATTERN})")
_PIECE = re.compile(r"\d+|[A-Za-z]+")
GRAMMAR = "org/project, or org/project/vVERSION for one version (e.g. 'pypi/tomli/v2.0.1')"


@dataclass(frozen=True)
class LibraryRef:
    """A reference to a library as an agent or a user writes it: its base ID and, maybe, a version."""

    base_id: str
    version: str = ""  # '' : the default version (pinned, else newest)

    @property
    def library_id(self) -> str:
        """The ID the reference names: the versioned ID when it has a version."""
        return versioned_id(self.base_id, self.version) if self.version else self.base_id

    def __str__(self) -> str:
        return self.library_id


def parse_ref(text: str) -> LibraryRef | None:
    """The reference ``text`` spells in the grammar above, or None when it is not one."""
    value = text.strip().lstrip("/")
    if _BASE.fullmatch(value):
        return LibraryRef(value)
    match = _VERSIONED.fullmatch(value) or _AT.fullmatch(value)
    return LibraryRef(match["base"], match["version"]) if match else None


def versioned_id(base_id: str, version: str) -> str:
    """The ID of ``base_id`` at ``version``: ``org/project/vVERSION``."""
    return f"{base_id}/{VERSION_MARK}{version}"


def is_version(text: str) -> bool:
    """Whether ``text`` can be a version in a library ID (starts with a digit; letters, digits, ``.+!_-``)."""
    return re.fullmatch(VERSION_PATTERN, text) is not None


def version_key(version: str) -> tuple:
    """A sort key: PEP 440 order where ``version`` parses as such (release < post; pre-releases first), else piecewise."""
    try:
        return (1, Version(version), ())
    except InvalidVersion:
        pieces = tuple((0, int(p), "") if p.isdigit() else (-1, 0, p) for p in _PIECE.findall(version))
        return (0, Version("0"), pieces)


def newest(versions: Iterable[str]) -> str:
    """The highest of ``versions`` ('' for none); final releases win over pre-releases of the same number."""
    ordered = sorted(versions, key=version_key)
    finals = [v for v in ordered if not _prerelease(v)]
    return (finals or ordered or [""])[-1]


def _prerelease(version: str) -> bool:
    try:
        return Version(version).is_prerelease
    except InvalidVersion:
        return "-" in version


def default_versions(libraries: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Base ID -> the versioned library ID that answers for it: the pinned version, else the newest.

    ``libraries`` are catalog entries by library ID; unversioned libraries are left out.
    """
    by_base: dict[str, dict[str, Mapping[str, Any]]] = {}
    for library_id, entry in libraries.items():
        ref = parse_ref(library_id)
        if ref is not None and ref.version:
            by_base.setdefault(ref.base_id, {})[ref.version] = entry
    chosen = {}
    for base, versions in sorted(by_base.items()):
        pinned = sorted(v for v, entry in versions.items() if entry.get("pinned"))
        chosen[base] = versioned_id(base, pinned[-1] if pinned else newest(versions))
    return chosen


def version_facet(libraries: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What the ``library`` search facet adds for versioned libraries (empty when there are none).

    ``aliases``: each base ID names its default version; ``unfiltered_values``: with some library
    held at two versions or more, a search without a library filter keeps every library at its
    default version only.
    """
    defaults = default_versions(libraries)
    if not defaults:
        return {}
    facet: dict[str, Any] = {"aliases": defaults}
    bases = [ref.base_id for ref in map(parse_ref, libraries) if ref is not None and ref.version]
    if len(bases) > len(set(bases)):
        shadowed = {i for i in libraries if (ref := parse_ref(i)) and ref.version and defaults[ref.base_id] != i}
        facet["unfiltered_values"] = sorted(set(libraries) - shadowed)
    return facet
