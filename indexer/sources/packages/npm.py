"""The npm registry's package document (``GET {base}/{name}``, a scope's slash escaped) read into a PackageInfo.

Each version's manifest carries its own description, licence, homepage and repository, and its
tarball (``dist.tarball``, ``dist.integrity``); the document's ``time`` says when each was published.
The README in the document is the latest version's; a pinned version's README is read from its tarball.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urljoin

from docs_mcp.indexer.sources.packages.document_fields import DocumentFields
from docs_mcp.indexer.sources.packages.package_info import TARBALL, PackageInfo, Release
from docs_mcp.indexer.sources.packages.refs import NPM, unsafe_version
from docs_mcp.indexer.sources.packages.urls import https_repository

DEFAULT_NPM = "https://registry.npmjs.org"


def package_url(base: str, name: str) -> str:
    """The document of package ``name`` (``@scope/name`` as ``@scope%2fname``) on the registry at ``base``."""
    return f"{base.rstrip('/')}/{quote(name, safe='@')}"


def read_package(document: Mapping[str, Any], url: str, name: str) -> PackageInfo:
    """The package an npm package document describes (``url``: where it was read; ``name``: the package asked).

    Raises:
        PackageFetchError: a field the reading needs has another shape (the message names it).
    """
    fields = DocumentFields("npm", name)
    listed = fields.versions(fields.mapping(document.get("versions"), "versions"), "versions")
    versions = {str(v): m for v, m in listed.items() if isinstance(m, Mapping)}
    times = fields.mapping(document.get("time"), "time")
    latest = str(fields.mapping(document.get("dist-tags"), "dist-tags").get("latest") or "")
    latest = "" if unsafe_version(latest) else latest
    manifest = versions.get(latest) or {}
    releases = {
        version: _release(version, manifest_of, times, url, fields) for version, manifest_of in versions.items()
    }
    return PackageInfo(
        ecosystem=NPM,
        name=str(document.get("name") or manifest.get("name") or ""),
        summary=str(manifest.get("description") or document.get("description") or "").strip(),
        license=_license(manifest.get("license") or document.get("license")),
        homepage=str(manifest.get("homepage") or document.get("homepage") or ""),
        repository=_repository(manifest.get("repository") or document.get("repository")),
        documentation="",
        latest=latest,
        releases=releases,
        registry_url=url,
        long_description=str(document.get("readme") or ""),
        description_type="text/markdown" if document.get("readme") else "",
    )


def _release(
    version: str, manifest: Mapping[str, Any], times: Mapping[str, Any], url: str, fields: DocumentFields
) -> Release:
    dist = fields.mapping(manifest.get("dist"), f"versions[{version!r}].dist")
    tarball = str(dist.get("tarball") or "")
    integrity = str(dist.get("integrity") or "") or (f"sha1:{dist['shasum']}" if dist.get("shasum") else "")
    return Release(
        version=version,
        archive_url=urljoin(url, tarball) if tarball else "",
        archive_kind=TARBALL if tarball else "",
        digest=integrity,
        size=fields.count(dist.get("unpackedSize"), f"versions[{version!r}].dist.unpackedSize"),
        published=str(times.get(version) or ""),
    )  # a deprecated release stays installable: it is still a version


def _license(value: Any) -> str:
    if isinstance(value, Mapping):
        value = value.get("type")
    return str(value or "").strip()


def _repository(value: Any) -> str:
    if isinstance(value, Mapping):
        value = value.get("url")
    return https_repository(str(value or ""))
