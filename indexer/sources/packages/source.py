"""One release of a package as a ``Source`` (indexer/build.py): its own documentation at that version.

What a release ships is what it documents: the long description the registry shows for it
(PyPI: ``PKG-INFO``'s body, at exactly this version; npm: the tarball's README) and the
documentation files of its archive (``archive.wanted``). They are written to a temporary docs
folder and indexed as the library ``pypi/NAME/vVERSION`` (``npm/NAME/vVERSION``) through the one
writer; the catalog entry records the package's metadata and, for every document, where it came
from (the archive's URL and member), the archive's digest (its revision) and when it was fetched.
The first richer source that has this version's documentation (sources/packages/richer.py: an llms.txt at
its documentation site, its repository's docs folder at the release tag, a crawl of its site) adds
its pages under ``website/`` or ``repository/``, each with its URL and its ETag or commit.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import tempfile
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from docs_mcp.indexer.build import Documents
from docs_mcp.indexer.corpus.formats import is_page
from docs_mcp.indexer.errors import PackageFetchError
from docs_mcp.indexer.libraries.spec import LibrarySpec
from docs_mcp.indexer.sources.packages.archive import included_by_pages, unpack_docs
from docs_mcp.indexer.sources.packages.chain import default_chain
from docs_mcp.indexer.sources.packages.package_info import SDIST, PackageInfo, Release
from docs_mcp.indexer.sources.packages.refs import NPM, PYPI, PackageRef
from docs_mcp.indexer.sources.packages.registry_client import Downloaded, RegistryClient
from docs_mcp.indexer.sources.packages.richer import RicherDocs, RicherSource, now, richer_docs

ARCHIVE = "archive"
LANGUAGES = {PYPI: ("python",), NPM: ("javascript",)}
_SUFFIX_OF_TYPE = {"text/markdown": ".md", "text/x-rst": ".rst", "text/plain": ".txt"}
README_STEM = "README"
REGISTRY_DOCUMENT = "(registry)"  # a document read from the registry's answer, not from the archive


@dataclass(frozen=True)
class PackageSource:
    """A downloaded release, ready to index: the package, the release, its archive."""

    ref: PackageRef  # with its version
    info: PackageInfo
    release: Release
    archive: Downloaded
    fetched_at: str
    pinned: bool = False  # a project's lock file pins this version (docs-mcp sync)
    added_by: str = "add"  # "add" or "sync": sync replaces only the versions it added
    members: dict[str, str] = field(
        default_factory=dict, compare=False
    )  # document path -> archive member, once written
    richer: RicherDocs | None = (
        None  # the richer source's pages (sources/packages/richer.py), written beside the archive's
    )
    notes: tuple[str, ...] = ()  # what the richer sources could not give, and why

    @property
    def spec(self) -> LibrarySpec:
        aliases = tuple(dict.fromkeys(a for a in (self.info.name, self.ref.name) if a and a != self.ref.base_id))
        return LibrarySpec(
            library_id=self.ref.library_id,
            name=self.info.name or self.ref.name,
            description=self.info.summary,
            languages=LANGUAGES[self.ref.ecosystem],
            version=self.ref.version,
            aliases=aliases,
        )

    @contextmanager
    def documents(self) -> Iterator[Documents]:
        """The release's documentation as a temporary docs folder."""
        with tempfile.TemporaryDirectory(prefix="docs-mcp-package-") as folder:
            root = Path(folder) / "docs"
            root.mkdir()
            written = _write_documents(root, self)
            self.members.clear()
            self.members.update(written)
            for page in self.richer.pages if self.richer else ():
                (root / page.path).parent.mkdir(parents=True, exist_ok=True)
                (root / page.path).write_text(page.markdown, encoding="utf-8")
            if not written and not self.richer:
                raise PackageFetchError(
                    f"{self.ref} ships no documentation: no long description, README or docs folder in its archive.",
                    "Index its documentation site (docs-mcp add llms-txt URL) or repository instead.",
                )
            about = f": {self.info.summary}" if self.info.summary else ""
            (Path(folder) / "metadata.json").write_text(
                json.dumps({"corpus_description": f"{self.spec.name} {self.ref.version} documentation{about}"}),
                encoding="utf-8",
            )
            yield Documents(root, Path(folder) / "metadata.json")

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The planned entry with the package's metadata, the source and every document's provenance."""
        source = {
            "kind": ARCHIVE,
            "url": self.archive.url,
            "revision": self.archive.digest,
            "fetched_at": self.fetched_at,
        }
        paths = [entry["path"] for entry in planned.get("toc") or ()]
        member = {
            path: self.members.get(path.removeprefix(self.spec.mount), path.removeprefix(self.spec.mount))
            for path in paths
        }
        return {
            **planned,
            "source": self.archive.url,
            "origin": self.ref.ecosystem,
            "pinned": self.pinned,
            "added_by": self.added_by,
            "package": {
                "ecosystem": self.ref.ecosystem,
                "name": self.info.name or self.ref.name,
                "version": self.ref.version,
                "registry": self.info.registry_url,
                "license": self.info.license,
                "homepage": self.info.homepage,
                "repository": self.info.repository,
                "documentation": self.info.documentation,
                "latest": self.info.newest,
                "published": self.release.published,
            },  # fmt: skip
            "sources": [source, *([self.richer.source_json()] if self.richer else [])],
            "provenance": {path: self._provenance(relative) for path, relative in member.items()},
            **({"source_notes": list(self.notes)} if self.notes else {}),
        }

    def _provenance(self, member: str) -> dict[str, str]:
        """Where one document came from: a member of the archive (its URL + ``#member``), or the registry's document."""
        richer = self.richer
        page = next((p for p in richer.pages if p.path == member), None) if richer is not None else None
        if richer is not None and page is not None:
            return {"url": page.url, "revision": page.revision, "fetched_at": richer.fetched_at}
        if member == REGISTRY_DOCUMENT:
            return {"url": self.info.registry_url, "revision": "", "fetched_at": self.fetched_at}
        return {"url": f"{self.archive.url}#{member}", "revision": self.archive.digest, "fetched_at": self.fetched_at}


def fetch_release(
    client: RegistryClient,
    ref: PackageRef,
    *,
    pinned: bool = False,
    added_by: str = "add",
    chain: Sequence[RicherSource] | None = None,
) -> PackageSource:
    """Resolve ``ref`` (its newest release when it has no version), download its archive, then read the first richer
    source of ``chain`` (default: sources/packages/richer.py's order) that has that version's documentation.

    Raises:
        PackageNotFoundError: no such package or version.
        PackageFetchError: the registry or the archive cannot be read.
    """
    info, release = client.release(ref)
    downloaded = client.download(release)
    richer, notes = richer_docs(
        default_chain(client.settings.github, allow_loopback=client.settings.allow_loopback)
        if chain is None
        else chain,
        info,
        release.version,
    )
    return PackageSource(
        ref.at(release.version), info, release, downloaded, now(), pinned, added_by, richer=richer, notes=notes
    )


def _write_documents(root: Path, source: PackageSource) -> dict[str, str]:
    """Unpack the archive's documentation under ``root``, the long description as the README; document path -> archive member."""
    unpacked = unpack_docs(source.archive.body, root, source.release.archive_url)
    # The code a page includes stays beside it as it is, and is no document of its own.
    written = {path: path for path in unpacked.files if not included_by_pages(path)}
    description, media, member = _long_description(unpacked.metadata, source)
    if description.strip():
        for old in [
            p for p in written if len(PurePosixPath(p).parts) == 1 and PurePosixPath(p).stem.upper() == README_STEM
        ]:
            (root / old).unlink()
            del written[old]
        name = README_STEM + _SUFFIX_OF_TYPE.get(media, ".md")
        (root / name).write_text(description, encoding="utf-8")
        written[name] = member
    return {_readable(root, path): origin for path, origin in written.items()}


def _long_description(metadata: str, source: PackageSource) -> tuple[str, str, str]:
    """The long description at this version, its media type and where it was read: PKG-INFO/METADATA, else the
    registry's document when it describes this version."""
    if metadata:
        message = email.parser.Parser(policy=email.policy.compat32).parsestr(metadata)
        body = message.get_payload()
        text = body if isinstance(body, str) and body.strip() else _header_description(message.get("Description", ""))
        media = str(message.get("Description-Content-Type", "text/x-rst")).split(";", 1)[0].strip().lower()
        if text.strip():
            return text, media, "PKG-INFO" if source.release.archive_kind == SDIST else "METADATA"
    if source.ref.ecosystem == PYPI and source.ref.version == source.info.latest:
        return (
            source.info.long_description,
            source.info.description_type.split(";", 1)[0].strip().lower(),
            REGISTRY_DOCUMENT,
        )
    return "", "", ""


def _header_description(value: str) -> str:
    """An old PKG-INFO's ``Description:`` header: continuation lines indented by 8 spaces or ``|``."""
    lines = value.splitlines()
    rest = "\n".join(line[8:] if line.startswith(" " * 8) else line.lstrip().removeprefix("|") for line in lines[1:])
    return "\n".join([lines[0], textwrap.dedent(rest)]) if lines else ""


def _readable(root: Path, path: str) -> str:
    """``path``, or, for plain text (``CHANGES.txt``, ``README``), the same file read as markdown: the indexer reads
    markdown, reStructuredText, HTML and notebooks as they are (indexer/corpus/formats), text files not at all."""
    if is_page(path):
        return path
    (root / path).rename(root / f"{path}.md")
    return f"{path}.md"
