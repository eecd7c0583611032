"""A GitHub repository as a library: ``docs-mcp add github:OWNER/REPO[@REF]``.

The ref is resolved to a commit (github_api.py), the repository's archive at that commit is unpacked to
its documentation files (github_archive.py: README, ``docs/``, every page of a format docs-mcp reads), and
``RepositorySource`` hands that folder to the one writer; the folder walk skips what the
repository's ``.gitignore`` files ignore, dependencies and build outputs, as for any folder, and
``--include``/``--exclude`` narrow it. The catalog entry records the repository, the ref and the
commit: a refresh resolves the ref again and downloads nothing when the commit is the same.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.environment import environment
from docs_mcp.indexer.build import Documents, write_source
from docs_mcp.indexer.corpus.file_rules import FileRules
from docs_mcp.indexer.corpus.readable_name import documentation_of
from docs_mcp.indexer.display import BuildDisplay
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.libraries.spec import LibrarySpec, check_library_id
from docs_mcp.indexer.records import IndexReport
from docs_mcp.indexer.sources.errors import InvalidContentError, SourceError
from docs_mcp.indexer.sources.github_api import GitHubClient, GitHubSettings, ResolvedRepo, parse_repo
from docs_mcp.indexer.sources.github_archive import ArchiveError, unpack_docs
from docs_mcp.indexer.sources.ingest import index_embeddings, stored_entry
from docs_mcp.indexer.sources.kinds import Refreshing, RefreshOutcome, SourceKind, refresh_failed
from docs_mcp.indexer.sources.source_settings import SourceSettings
from docs_mcp.indexer.sources.web.fetch import Fetcher

GITHUB = "github"


@dataclass(frozen=True)
class RepositoryRequest:
    """What `docs-mcp add github:...` was asked."""

    repository: str  # github:OWNER/REPO[@REF]
    library_id: str = ""  # default: OWNER/REPO
    name: str = ""
    description: str = ""
    languages: tuple[str, ...] = ()
    rules: FileRules = field(default_factory=FileRules)


@dataclass(frozen=True)
class RepositoryResult:
    """The commit indexed, and what was written (``report`` None when the commit was already indexed)."""

    resolved: ResolvedRepo
    report: IndexReport | None
    library_id: str


@dataclass(frozen=True)
class RepositorySource:
    """A repository's documentation at one commit, as a Source for the one writer."""

    spec: LibrarySpec
    resolved: ResolvedRepo
    archive: bytes
    rules: FileRules

    @contextmanager
    def documents(self) -> Iterator[Documents]:
        """The archive's documentation files as a temporary folder.

        Raises:
            InvalidContentError: the archive cannot be unpacked.
        """
        with tempfile.TemporaryDirectory(prefix="docs-mcp-repo-") as folder:
            root = Path(folder) / "docs"
            root.mkdir()
            try:
                unpack_docs(io.BytesIO(self.archive), root, f"the archive of {self.resolved.spec.full_name}")
            except ArchiveError as error:
                raise InvalidContentError(
                    f"The archive of {self.resolved.spec.full_name} {error}.", error.hint
                ) from None
            description = self.spec.description or documentation_of(self.spec.name)
            (Path(folder) / "metadata.json").write_text(
                json.dumps({"corpus_description": description}), encoding="utf-8"
            )
            yield Documents(root, rules=self.rules)

    def catalog_entry(self, planned: Mapping[str, Any]) -> dict[str, Any]:
        """The planned entry with where it came from: repository, ref and commit."""
        resolved = self.resolved
        return {
            **planned,
            "origin": GITHUB,
            "source": f"github:{resolved.spec.full_name}@{resolved.ref}",
            "repository": resolved.spec.full_name,
            "ref": resolved.ref,
            "requested_ref": resolved.spec.ref,
            "commit": resolved.commit,
            "html_url": resolved.html_url,
            "include": list(self.rules.include),
            "exclude": list(self.rules.exclude),
        }


def add_repository(
    settings: SourceSettings,
    github: GitHubSettings,
    request: RepositoryRequest,
    *,
    embeddings: str | None = None,
    build_progress: Any = None,
) -> RepositoryResult:
    """Resolve, download and write the repository as its library; nothing is downloaded when that commit of it is indexed already.

    Raises:
        RepositoryError: the spec is no repository, or GitHub has no such repository or ref.
        SourceUnavailableError, UrlNotAllowedError, InvalidContentError: the API or the download fails.
        CorpusNotFoundError: the repository holds no documentation page.
        ModelLoadError, IndexLockedError, IndexFormatError, LibraryError: as for any build.
    """
    spec = parse_repo(request.repository)
    library_id = check_library_id(request.library_id or spec.full_name)
    fetcher = Fetcher(settings.policy)
    try:
        client = GitHubClient(fetcher, github)
        resolved = client.resolve(spec)
        previous = stored_entry(Path(settings.index_dir), library_id)
        if previous is not None and previous.origin == GITHUB and previous.commit == resolved.commit:
            return RepositoryResult(resolved, None, library_id)
        archive = client.archive(resolved)
    finally:
        fetcher.close()
    library = LibrarySpec(
        library_id=library_id,
        name=request.name or spec.repo,
        description=request.description or resolved.description,
        languages=request.languages,
        version=resolved.ref if resolved.ref != resolved.commit else resolved.commit[:12],
    )
    source = RepositorySource(library, resolved, archive, request.rules)
    chosen = index_embeddings(Path(settings.index_dir), embeddings)
    return RepositoryResult(
        resolved, write_source(source, Path(settings.index_dir), embeddings=chosen, progress=build_progress), library_id
    )


def refresh_request(entry: CatalogEntry) -> RepositoryRequest:
    """The request that resolves a repository library's ref again (its catalog entry)."""
    ref = entry.requested_ref
    return RepositoryRequest(
        f"github:{entry.repository}" + (f"@{ref}" if ref else ""), entry.library_id, entry.name, entry.description,
        entry.languages, FileRules(entry.include, entry.exclude),
    )  # fmt: skip


def refresh_repository(refreshing: Refreshing, library_id: str, entry: CatalogEntry | None) -> list[RefreshOutcome]:
    """Resolve the repository's ref again; download and write it only if it names another commit."""
    assert entry is not None  # a repository is refreshed once indexed
    try:
        with BuildDisplay(quiet=refreshing.quiet) as build:
            pulled = add_repository(
                refreshing.settings,
                GitHubSettings.from_environment(environment()),
                refresh_request(entry),
                build_progress=build.show,
            )
    except SourceError as error:
        return [refresh_failed(entry, error)]
    resolved = pulled.resolved
    status = "unchanged" if pulled.report is None else "updated"
    url = f"github:{resolved.spec.full_name}@{resolved.ref}"
    return [RefreshOutcome(library_id, url, status, f"commit {resolved.commit[:12]}")]


KIND = SourceKind(
    "GitHub repository", (GITHUB,), add_repository, RepositorySource, refresh_repository, pages_have_urls=True
)
