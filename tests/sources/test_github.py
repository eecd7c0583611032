"""GitHub repositories: a loopback GitHub-API lookalike serving a real `git archive` of a real repository."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from site_server import serve_site
from test_archive import git, repository  # noqa: F401 - the repository fixture

from docs_mcp.indexer.sources.github_api import GitHubClient, GitHubSettings, RepositoryError, parse_repo
from docs_mcp.indexer.sources.github_archive import unpack_docs
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy

TOKEN = "ghp_" + "s3cret" * 6


@pytest.mark.parametrize(
    ("text", "owner", "repo", "ref"),
    [("github:acme/widget", "acme", "widget", ""), ("acme/widget@v1.2.0", "acme", "widget", "v1.2.0"),
     ("github:acme/widget.git@feature/x", "acme", "widget", "feature/x"), ("github:a-b/c.d_e@0123abc", "a-b", "c.d_e", "0123abc")],
)  # fmt: skip
def test_repository_specs(text: str, owner: str, repo: str, ref: str) -> None:
    spec = parse_repo(text)
    assert (spec.owner, spec.repo, spec.ref) == (owner, repo, ref)


@pytest.mark.parametrize(
    "text", ["github:acme", "github:acme/widget/docs", "https://github.com/acme/widget", "github:../x", "github:-a/b"]
)
def test_what_is_no_repository_spec(text: str) -> None:
    with pytest.raises(RepositoryError, match="is not a GitHub repository"):
        parse_repo(text)


def test_settings_come_from_the_environment() -> None:
    settings = GitHubSettings.from_environment(
        {"DOCS_MCP_GITHUB_API": "https://ghe.example.com/api/v3/", "GH_TOKEN": f" {TOKEN} "}
    )
    assert (settings.api, settings.token) == ("https://ghe.example.com/api/v3", TOKEN) and TOKEN not in repr(settings)
    assert GitHubSettings.from_environment({}).api == "https://api.github.com"


def github_lookalike(archive: bytes, sha: str):
    def routes(base: str) -> dict[str, tuple[int, str, bytes]]:
        codeload = base.replace("127.0.0.1", "localhost") + f"/codeload/acme/widget/tar.gz/{sha}"
        return {
            "/repos/acme/widget": (
                200,
                "application/json",
                json.dumps({"default_branch": "main", "html_url": "https://github.com/acme/widget"}).encode(),
            ),
            "/repos/acme/widget/commits/main": (200, "application/json", json.dumps({"sha": sha}).encode()),
            f"/repos/acme/widget/tarball/{sha}": (302, "text/plain", codeload.encode()),
            f"/codeload/acme/widget/tar.gz/{sha}": (200, "application/x-gzip", archive),
        }

    return routes


def client(base: str, token: str = TOKEN) -> GitHubClient:
    fetcher = Fetcher(FetchPolicy(allowed_domains=frozenset({"localhost"}), allow_loopback=True), delays=())
    return GitHubClient(fetcher, GitHubSettings(base, token))


def test_a_repository_resolves_to_a_commit_and_downloads_its_archive(repository: Path, tmp_path: Path) -> None:  # noqa: F811
    sha = git(repository, "rev-parse", "HEAD").decode().strip()
    archive = git(repository, "archive", "--format=tar.gz", f"--prefix=acme-widget-{sha[:7]}/", "HEAD")
    with serve_site(tmp_path, github_lookalike(archive, sha)) as (base, log):
        github = client(base)
        resolved = github.resolve(parse_repo("github:acme/widget"))
        body = github.archive(resolved)
    assert (resolved.ref, resolved.commit, resolved.html_url) == ("main", sha, "https://github.com/acme/widget")
    assert unpack_docs(io.BytesIO(body), tmp_path / "docs").files == 7
    sent = dict(log.authorization)
    assert sent["/repos/acme/widget"] == f"Bearer {TOKEN}"
    assert sent[f"/codeload/acme/widget/tar.gz/{sha}"] == ""  # the redirect to another host never carries the token


def test_a_missing_repository_says_a_private_one_needs_a_token(tmp_path: Path) -> None:
    with serve_site(tmp_path, lambda base: {}) as (base, _):
        with pytest.raises(RepositoryError) as without:
            client(base, token="").resolve(parse_repo("github:acme/secret"))
        with pytest.raises(RepositoryError) as with_token:
            client(base).resolve(parse_repo("github:acme/secret@v9"))
    assert (
        "GitHub has no repository or ref acme/secret (a private repository needs a token: set GITHUB_TOKEN)"
        in without.value.message
    )
    assert (
        with_token.value.message == "GitHub has no repository or ref acme/secret."
    )  # the repository itself is missing
    assert TOKEN not in with_token.value.message + with_token.value.hint


def test_an_api_base_that_is_no_github_is_named(tmp_path: Path) -> None:
    routes = {"/repos/acme/widget": (200, "text/html", b"<html>login</html>")}
    with serve_site(tmp_path, lambda base: routes) as (base, _):
        with pytest.raises(Exception, match="did not answer with JSON") as error:
            client(base).resolve(parse_repo("github:acme/widget"))
    assert "DOCS_MCP_GITHUB_API" in error.value.hint


def test_the_token_goes_to_the_api_s_origin_only_not_to_another_port_of_its_host(tmp_path: Path) -> None:
    # Two servers on 127.0.0.1: the API redirects to the other one's port. Only the host's name was compared, so
    # the token went along; an origin is scheme, host and port.
    answer = json.dumps({"default_branch": "main"}).encode()
    with serve_site(tmp_path, lambda other: {"/repos/acme/widget": (200, "application/json", answer)}) as (
        other,
        other_log,
    ):
        moved = {"/repos/acme/widget": (302, "text/plain", f"{other}/repos/acme/widget".encode())}
        with serve_site(tmp_path, lambda base: moved) as (base, log):
            fetcher = Fetcher(FetchPolicy(allowed_domains=frozenset({"127.0.0.1"}), allow_loopback=True), delays=())
            with pytest.raises(
                RepositoryError
            ):  # the other server has no commits route: the token is what this test is about
                GitHubClient(fetcher, GitHubSettings(base, TOKEN)).resolve(parse_repo("github:acme/widget"))
            fetcher.close()
    assert dict(log.authorization)["/repos/acme/widget"] == f"Bearer {TOKEN}"
    assert other_log.authorization[0] == ("/repos/acme/widget", "")


def test_the_token_is_never_sent_over_plain_http(tmp_path: Path) -> None:
    fetcher = Fetcher(
        FetchPolicy(allowed_domains=frozenset({"ghe.example.com"})), delays=(), resolver=lambda host, port: []
    )  # no DNS asked
    try:
        with pytest.raises(RepositoryError) as refused:
            GitHubClient(fetcher, GitHubSettings("http://ghe.example.com/api/v3", TOKEN)).resolve(
                parse_repo("github:acme/widget")
            )
    finally:
        fetcher.close()
    assert (
        refused.value.message
        == "DOCS_MCP_GITHUB_API is a plain http address (http://ghe.example.com/api/v3); the GitHub token is never sent in clear."
    )
    assert "https://" in refused.value.hint and TOKEN not in refused.value.message + refused.value.hint
