"""The PyPI JSON API (``GET {base}/pypi/{name}/json``) read into a PackageInfo.

The project document lists every release's files; the sdist of a release (else a wheel) is its
archive. File URLs are resolved against the document's URL: mirrors serve them relative.
Only the latest release's metadata is in the document; a pinned release's long description is
read from its own archive (PKG-INFO), see ``source``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urljoin

from docs_mcp.indexer.sources.packages.document_fields import DocumentFields
from docs_mcp.indexer.sources.packages.package_info import SDIST, WHEEL, PackageInfo, Release
from docs_mcp.indexer.sources.packages.refs import PYPI, unsafe_version
from docs_mcp.indexer.sources.packages.urls import first_url, https_repository

DEFAULT_PYPI = "https://pypi.org"
LICENSE_CHARS = 100
_DOC_KEYS = ("documentation", "docs", "doc")
_REPO_KEYS = ("source", "source code", "repository", "code", "github", "git")
_HOME_KEYS = ("homepage", "home", "home page")


def project_url(base: str, name: str) -> str:
    """The JSON document of project ``name`` on the PyPI at ``base``."""
    return f"{base.rstrip('/')}/pypi/{quote(name, safe='')}/json"


def read_project(document: Mapping[str, Any], url: str, name: str) -> PackageInfo:
    """The package a PyPI project document describes (``url``: where it was read; ``name``: the project asked).

    Raises:
        PackageFetchError: a field the reading needs has another shape (the message names it).
    """
    fields = DocumentFields("PyPI", name)
    info = fields.mapping(document.get("info"), "info")
    urls = {
        str(k).strip().lower(): str(v)
        for k, v in fields.mapping(info.get("project_urls"), "info.project_urls").items()
        if v
    }
    homepage = first_url(urls, _HOME_KEYS) or str(info.get("home_page") or "")
    repository = https_repository(first_url(urls, _REPO_KEYS) or (homepage if "github.com/" in homepage else ""))
    listed = fields.versions(fields.mapping(document.get("releases"), "releases"), "releases")
    releases = {
        version: _release(version, fields.sequence(files, f"releases[{version!r}]"), url, fields)
        for version, files in listed.items()
    }
    latest = str(info.get("version") or "")
    return PackageInfo(
        ecosystem=PYPI,
        name=str(info.get("name") or ""),
        summary=str(info.get("summary") or "").strip(),
        license=_license(info, fields.sequence(info.get("classifiers"), "info.classifiers")),
        homepage=homepage,
        repository=repository,
        documentation=first_url(urls, _DOC_KEYS) or str(info.get("docs_url") or ""),
        latest="" if unsafe_version(latest) else latest,
        releases=releases,
        registry_url=url,
        long_description=str(info.get("description") or ""),
        description_type=str(info.get("description_content_type") or ""),
    )


def _release(version: str, files: list[Any], url: str, fields: DocumentFields) -> Release:
    """A release's archive: its sdist, else its first pure-Python wheel, else any wheel."""
    files = [f for f in files if isinstance(f, Mapping)]
    sdists = [f for f in files if f.get("packagetype") == SDIST]
    wheels = sorted(
        (f for f in files if f.get("packagetype") == "bdist_wheel"),
        key=lambda f: ("none-any" not in str(f.get("filename")), str(f.get("filename"))),
    )
    chosen = (sdists or wheels or [None])[0]
    yanked = bool(files) and all(f.get("yanked") for f in files)
    if chosen is None:
        return Release(version, yanked=yanked)
    where = f"releases[{version!r}][{files.index(chosen)}]"
    digests = fields.mapping(chosen.get("digests"), f"{where}.digests")
    return Release(
        version=version,
        archive_url=urljoin(url, str(chosen.get("url") or "")),
        archive_kind=SDIST if chosen in sdists else WHEEL,
        digest=_digest(digests),
        size=fields.count(chosen.get("size"), f"{where}.size"),
        published=str(chosen.get("upload_time_iso_8601") or chosen.get("upload_time") or ""),
        yanked=yanked,
    )


def _digest(digests: Mapping[str, Any]) -> str:
    """The file's sha256 as ``sha256:<hex>``; without one, another of its digests (which the download then refuses:
    docs-mcp checks sha256), never none when the registry gave some."""
    named = [(str(algorithm), str(value)) for algorithm, value in digests.items() if value]
    chosen = next((entry for entry in named if entry[0] == "sha256"), named[0] if named else None)
    return f"{chosen[0]}:{chosen[1]}" if chosen else ""


def _license(info: Mapping[str, Any], classifiers: list[Any]) -> str:
    expression = str(info.get("license_expression") or "").strip()
    if expression:
        return expression
    text = str(info.get("license") or "").strip()
    if text:  # some projects paste the whole licence here: its first line names it
        return text.splitlines()[0][:LICENSE_CHARS]
    licences = [c for c in classifiers if str(c).startswith("License ::")]
    return str(licences[0]).rsplit("::", 1)[-1].strip() if licences else ""
