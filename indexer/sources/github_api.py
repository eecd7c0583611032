"""GitHub repositories as documentation sources: ``github:OWNER/REPO[@REF]`` -> the commit, then its archive.

Talks to GitHub's REST API (or a GitHub Enterprise server's: ``DOCS_MCP_GITHUB_API``, default
``https://api.github.com``): the repository's default branch when no ref is given, the commit the
ref names, then the tarball of that commit, through the fetcher's safety checks like every remote
read. A token from the environment (``GITHUB_TOKEN``, else ``GH_TOKEN``) is sent as a bearer token
for private repositories and a higher rate limit; it is never logged, shown or stored, never sent to
another origin than the API's (scheme, host and port: the archive download's redirect drops it), and
never sent over plain http (but to this machine's loopback, which it never leaves).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from docs_mcp.indexer.sources.errors import (
    InvalidContentError,
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
)
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy, host_of, private_channel

API_ENV = "DOCS_MCP_GITHUB_API"
TOKEN_ENVS = ("GITHUB_TOKEN", "GH_TOKEN")
DEFAULT_API = "https://api.github.com"
# A repository archive is larger than a page: these bound the one download it costs.
ARCHIVE_MAX_BYTES = 300 * 1024 * 1024
ARCHIVE_TIMEOUT = 300.0
_SPEC = re.compile(
    r"(?:github:)?(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<repo>[A-Za-z0-9._-]{1,100})(?:@(?P<ref>[^\s@]{1,255}))?"
)
_SHA = re.compile(r"[0-9a-f]{40}")


class RepositoryError(SourceError):
    """A repository spec or a GitHub answer that cannot be used (the message says what to do)."""

    code = "INVALID_INPUT"


@dataclass(frozen=True)
class RepoSpec:
    """``OWNER/REPO`` at ``ref`` ('' for the default branch)."""

    owner: str
    repo: str
    ref: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"github:{self.full_name}" + (f"@{self.ref}" if self.ref else "")


@dataclass(frozen=True)
class ResolvedRepo:
    """The commit a spec names, and how it was named."""

    spec: RepoSpec
    ref: str  # the ref resolved (the default branch's name when none was given)
    commit: str  # 40 hex digits
    html_url: str = ""
    description: str = ""  # the repository's own one-line description


@dataclass(frozen=True)
class GitHubSettings:
    """Where the API is and the token (if any) to send it."""

    api: str = DEFAULT_API
    token: str = field(default="", repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> GitHubSettings:
        api = (environ.get(API_ENV) or DEFAULT_API).strip().rstrip("/")
        token = next((environ[name].strip() for name in TOKEN_ENVS if environ.get(name, "").strip()), "")
        return cls(api, token)


def parse_repo(text: str) -> RepoSpec:
    """``github:OWNER/REPO[@REF]`` (the ``github:`` prefix optional).

    Raises:
        RepositoryError: it is not of that form.
    """
    match = _SPEC.fullmatch(text.strip())
    if not match or match.group("repo") in (".", ".."):
        raise RepositoryError(
            f"'{text}' is not a GitHub repository.",
            "Write github:OWNER/REPO, or github:OWNER/REPO@REF for a branch, tag or commit.",
        )
    return RepoSpec(match.group("owner"), match.group("repo").removesuffix(".git"), match.group("ref") or "")


class GitHubClient:
    """The three API calls a repository source needs."""

    def __init__(self, fetcher: Fetcher, settings: GitHubSettings) -> None:
        self._fetcher = fetcher
        self._settings = settings
        self._policy = fetcher.policy.allowing({host_of(settings.api)})

    def resolve(self, spec: RepoSpec) -> ResolvedRepo:
        """The commit ``spec`` names.

        Raises:
            RepositoryError: no such repository or ref (or a private one without a token).
            SourceUnavailableError: GitHub cannot be reached, or refuses (rate limit, bad token).
        """
        repo = self._json(f"/repos/{_path(spec.owner)}/{_path(spec.repo)}", spec)
        ref = spec.ref or str(repo.get("default_branch") or "")
        if not ref:
            raise RepositoryError(
                f"{spec.full_name} has no default branch (an empty repository?).", "Name a ref: github:OWNER/REPO@REF."
            )
        commit = self._json(
            f"/repos/{_path(spec.owner)}/{_path(spec.repo)}/commits/{quote(ref, safe='')}", spec, ref=ref
        )
        sha = str(commit.get("sha") or "")
        if not _SHA.fullmatch(sha):
            raise RepositoryError(f"GitHub gave no commit for {spec.full_name}@{ref}.", "Check the ref.")
        return ResolvedRepo(spec, ref, sha, str(repo.get("html_url") or ""), str(repo.get("description") or "").strip())

    def archive(self, resolved: ResolvedRepo) -> bytes:
        """The tar.gz of the resolved commit (GitHub redirects to its archive host, which must be allowed too).

        Raises:
            SourceUnavailableError, InvalidContentError: the download fails or exceeds ARCHIVE_MAX_BYTES.
        """
        spec = resolved.spec
        url = f"{self._settings.api}/repos/{_path(spec.owner)}/{_path(spec.repo)}/tarball/{resolved.commit}"
        policy = FetchPolicy(
            allowed_domains=self._policy.allowed_domains | {"codeload.github.com"},
            allow_loopback=self._policy.allow_loopback,
            max_bytes=ARCHIVE_MAX_BYTES,
            timeout=ARCHIVE_TIMEOUT,
            max_redirects=self._policy.max_redirects,
        )
        try:
            return self._fetcher.get(url, headers=self._headers(), policy=policy).body
        except InvalidContentError as error:
            raise InvalidContentError(
                f"The archive of {spec.full_name} is larger than {ARCHIVE_MAX_BYTES // 2**20} MiB.", error.hint
            ) from None

    def _json(self, path: str, spec: RepoSpec, ref: str = "") -> dict[str, Any]:
        try:
            fetched = self._fetcher.get(self._settings.api + path, headers=self._headers(), policy=self._policy)
        except RemotePageNotFoundError:
            what = f"{spec.full_name}@{ref}" if ref else spec.full_name
            private = "" if self._settings.token else " (a private repository needs a token: set GITHUB_TOKEN)"
            raise RepositoryError(
                f"GitHub has no repository or ref {what}{private}.", "Check the owner, the name and the ref."
            ) from None
        try:
            data = json.loads(fetched.body)
        except (ValueError, UnicodeDecodeError):
            raise SourceUnavailableError(
                f"{self._settings.api} did not answer with JSON.", f"Check {API_ENV}: it must be a GitHub API base URL."
            ) from None
        if not isinstance(data, dict):
            raise SourceUnavailableError(f"{self._settings.api} answered with no JSON object.", f"Check {API_ENV}.")
        return data

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if self._settings.token and not private_channel(self._settings.api):
            raise RepositoryError(
                f"{API_ENV} is a plain http address ({self._settings.api}); the GitHub token is never sent in clear.",
                "Set the API's https:// address, or unset GITHUB_TOKEN and GH_TOKEN to read public repositories without a token.",
            )
        if self._settings.token:
            headers["Authorization"] = f"Bearer {self._settings.token}"
        return headers


def _path(segment: str) -> str:
    return quote(segment, safe="")
