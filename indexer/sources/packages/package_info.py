"""What a registry says about a package: the one record both registries' documents are read into."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from docs_mcp.indexer.libraries.versions import newest, version_key

SDIST = "sdist"
WHEEL = "wheel"
TARBALL = "tarball"


@dataclass(frozen=True)
class Release:
    """One published version and the archive its documentation is read from."""

    version: str
    archive_url: str = ""  # '' : nothing to download (a release without files)
    archive_kind: str = ""  # SDIST, WHEEL or TARBALL
    digest: str = ""  # as the registry states it: "sha256:<hex>" (PyPI) or the npm integrity "sha512-<base64>"
    size: int = 0
    published: str = ""  # ISO-8601, when the registry says
    yanked: bool = False


@dataclass(frozen=True)
class PackageInfo:
    """A package as its registry describes it (the latest release's metadata, every release's archive)."""

    ecosystem: str
    name: str  # as the registry spells it
    summary: str = ""
    license: str = ""
    homepage: str = ""
    repository: str = ""  # an https URL (git+, .git and ssh forms normalized)
    documentation: str = ""
    latest: str = ""  # the registry's latest release (PyPI info.version, npm dist-tags.latest)
    releases: Mapping[str, Release] = field(default_factory=dict)
    registry_url: str = ""  # the document this was read from
    long_description: str = ""  # the latest release's README / long description, as the registry serves it
    description_type: str = ""  # its media type (text/markdown, text/x-rst, text/plain)

    @property
    def versions(self) -> list[str]:
        """Every release not yanked, oldest first."""
        return sorted((v for v, r in self.releases.items() if not r.yanked), key=version_key)

    @property
    def newest(self) -> str:
        """The release a spec without a version means: the registry's latest, else the highest final release."""
        return self.latest if self.latest in self.releases else newest(self.versions)

    def as_json(self) -> dict[str, Any]:
        """The record as JSON (the registry cache stores it so)."""
        data = asdict(self)
        data["releases"] = {v: asdict(r) for v, r in self.releases.items()}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PackageInfo:
        releases = {v: Release(**r) for v, r in (data.get("releases") or {}).items()}
        return cls(**{**data, "releases": releases})

    def summary_json(self, shown_versions: int = 20) -> dict[str, Any]:
        """What resolve_library shows of a package it does not hold: name, summary, licence, URLs, recent versions."""
        versions = self.versions
        return {
            "name": self.name, "summary": self.summary, "license": self.license, "latest": self.newest,
            "versions": versions[-shown_versions:][::-1], "version_count": len(versions),
            "homepage": self.homepage, "repository": self.repository, "documentation": self.documentation,
        }  # fmt: skip
