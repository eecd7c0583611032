"""Step 2 of the richer-source chain: the docs folder of the package's GitHub repository at the release tag.

The registry's repository URL (PyPI's ``Source``/``Repository`` project URL or a github.com
homepage; npm's ``repository``) names the repository when it is on github.com. The release is
looked for as the tag ``vVERSION``, then ``VERSION``; the tag's commit is downloaded through the
GitHub source (sources/github_api.py: API, token, archive bounds and redirects) and unpacked as any
repository is (sources/github_archive.py). Its docs folder (``docs/``, ``doc/``, ``documentation/``) is
read with the folder walk's rules (discover: what the repository's .gitignore files ignore,
build outputs and dependencies are left out), at most as many files and bytes as a release
archive may hold. A tag names one release, so this step serves older releases exactly; each page
records its URL at the tag and the commit as its revision.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from docs_mcp.indexer.corpus.discover import discover
from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.sources.errors import InvalidContentError, SourceError
from docs_mcp.indexer.sources.github_api import (
    GitHubClient,
    GitHubSettings,
    RepositoryError,
    RepoSpec,
    ResolvedRepo,
    parse_repo,
)
from docs_mcp.indexer.sources.github_archive import ArchiveError, unpack_docs
from docs_mcp.indexer.sources.packages.archive import DOC_FOLDERS, MAX_FILES, MAX_TOTAL_BYTES
from docs_mcp.indexer.sources.packages.package_info import PackageInfo
from docs_mcp.indexer.sources.packages.richer import RicherDocs, RicherPage, now
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy

REPOSITORY_SOURCE = "github"
REPOSITORY_FOLDER = "repository"  # beside the archive's files and a site's website/


class RepositoryAtReleaseTag:
    """The docs folder of the package's github.com repository at the tag of the release."""

    kind = REPOSITORY_SOURCE

    def __init__(
        self, github: GitHubSettings, *, allow_loopback: bool = False, delays: tuple[float, ...] = (1.0,)
    ) -> None:
        self._github = github
        self._allow_loopback = allow_loopback
        self._delays = delays

    def find(self, info: PackageInfo, version: str) -> RicherDocs | None:
        spec = github_repository(info.repository)
        if spec is None:
            return None
        fetcher = Fetcher(FetchPolicy(frozenset(), self._allow_loopback), delays=self._delays)
        try:
            client = GitHubClient(fetcher, self._github)
            resolved = _tagged(client, spec, version)
            archive = client.archive(resolved)
        finally:
            fetcher.close()
        return _docs_folder(resolved, archive)


def github_repository(url: str) -> RepoSpec | None:
    """``https://github.com/OWNER/REPO[/...]`` as a spec, None for any other host or shape."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if (
        parts.scheme not in ("http", "https")
        or parts.hostname not in ("github.com", "www.github.com")
        or len(segments) < 2
    ):
        return None
    try:
        return parse_repo(f"{segments[0]}/{segments[1]}")
    except RepositoryError:
        return None


def tag_candidates(version: str) -> tuple[str, ...]:
    """The tags a release is looked for as, in order."""
    return (f"v{version}", version)


def _tagged(client: GitHubClient, spec: RepoSpec, version: str) -> ResolvedRepo:
    """The commit of the release's tag.

    Raises:
        SourceError: the repository has neither tag (or cannot be read: the GitHub source's errors).
    """
    for tag in tag_candidates(version):
        try:
            return client.resolve(RepoSpec(spec.owner, spec.repo, tag))
        except RepositoryError:
            continue  # no such tag: the next form
    tags = " or ".join(tag_candidates(version))
    raise SourceError(
        f"github.com/{spec.full_name} has no tag {tags} (or is private); not read.",
        f"Add the repository at the release's commit yourself: docs-mcp add github:{spec.full_name}@REF.",
    )


def _docs_folder(resolved: ResolvedRepo, archive: bytes) -> RicherDocs:
    """The pages of the archive's docs folder, as the folder walk would read them.

    Raises:
        SourceError: the repository has no docs folder at the tag, or its archive cannot be read.
    """
    site = f"https://github.com/{resolved.spec.full_name}"
    pages: list[RicherPage] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="docs-mcp-repository-") as folder:
        root = Path(folder)
        try:
            unpack_docs(io.BytesIO(archive), root, f"the archive of {resolved.spec.full_name} at {resolved.ref}")
        except ArchiveError as error:
            raise InvalidContentError(
                f"The archive of {resolved.spec.full_name} at {resolved.ref} {error}.", error.hint
            ) from None
        found = discover(root, FileRules())
        docs = [rel for rel in found.pages if rel.split("/", 1)[0].lower() in DOC_FOLDERS and "/" in rel]
        size = 0
        for rel in docs:
            body = found.pages[rel].read_bytes()
            size += len(body)
            if len(pages) >= MAX_FILES or size > MAX_TOTAL_BYTES:
                notes.append(
                    f"{len(docs) - len(pages)} pages of {site} past {MAX_FILES:,} files or {MAX_TOTAL_BYTES // 2**20} MiB left out"
                )
                break
            text = body.decode("utf-8", errors="replace")
            pages.append(
                RicherPage(f"{REPOSITORY_FOLDER}/{rel}", text, f"{site}/blob/{resolved.ref}/{rel}", resolved.commit)
            )
    if not pages:
        folders = ", ".join(f"{f}/" for f in DOC_FOLDERS)
        raise SourceError(f"{site} has no documentation folder ({folders}) at {resolved.ref}; not read.", "")
    return RicherDocs(
        REPOSITORY_SOURCE, f"{site}/tree/{resolved.ref}", resolved.commit, now(), tuple(pages), tuple(notes)
    )
