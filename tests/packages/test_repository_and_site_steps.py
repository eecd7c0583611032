"""Steps 2 and 3 of the richer-source chain, on loopback: the repository's docs folder at the release tag, and a crawl
of the documentation site.

Step 2's repository is a real git repository made here from the real tomli 2.0.1 sdist (its files as the tag's
tree) and real documentation pages (two pages of this project's guide as its ``docs/``); ``git archive`` makes
its tarball as GitHub's API serves it, and the loopback registry answers as GitHub's API for it. Step 3 crawls
the real built MkDocs site of tests/sources/fixtures (see its README for source and licence).
"""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest
from loopback_registry import LoopbackRegistry, client_for

from docs_mcp.indexer.sources.errors import SourceError
from docs_mcp.indexer.sources.package import add_package, indexed_libraries
from docs_mcp.indexer.sources.packages import richer
from docs_mcp.indexer.sources.packages.package_info import PackageInfo, Release
from docs_mcp.indexer.sources.packages.refs import parse_package_spec
from docs_mcp.indexer.sources.packages.site_crawl import DocsSiteCrawl

TESTS = Path(__file__).resolve().parents[1]
GUIDE = TESTS.parent / "corpus" / "guide"
REGISTRY = Path(__file__).parent / "registry"
MKDOCS = TESTS / "sources" / "fixtures" / "mkdocs-site" / "site"
TOMLI = "pypi/tomli/v2.0.1"
MS = "npm/ms/v2.1.3"


def _git(repo: Path, *args: str) -> bytes:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env).stdout


def _tomli_repository(tmp_path: Path) -> tuple[str, bytes]:
    """A repository whose tag ``2.0.1`` holds the tomli 2.0.1 sdist's files and a docs folder; (commit, archive)."""
    repo = tmp_path / "tomli"
    with tarfile.open(REGISTRY / "tomli-2.0.1.tar.gz") as sdist:
        for member in sdist.getmembers():
            if member.isfile() and member.name != "tomli-2.0.1/PKG-INFO":
                target = repo / member.name.split("/", 1)[1]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(sdist.extractfile(member).read())  # type: ignore[union-attr]
    (repo / "docs" / "_build" / "html").mkdir(parents=True)
    (repo / "docs" / "drafts").mkdir()
    (repo / "docs" / "filters.md").write_bytes((GUIDE / "filters.md").read_bytes())
    (repo / "docs" / "pagination.md").write_bytes((GUIDE / "pagination.md").read_bytes())
    (repo / "docs" / "_build" / "html" / "index.html").write_text(
        "<h1>Built</h1><p>a build output</p>", encoding="utf-8"
    )
    (repo / "docs" / "drafts" / "wip.md").write_text("# Work in progress\n", encoding="utf-8")
    (repo / ".gitignore").write_text("docs/drafts/\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "add", "-f", "docs/drafts/wip.md", "docs/_build/html/index.html")  # committed although ignored
    _git(repo, "commit", "-q", "-m", "tomli 2.0.1")
    _git(repo, "tag", "2.0.1")  # tomli's tags have no "v": the second form is the one found
    sha = _git(repo, "rev-parse", "2.0.1^{commit}").decode().strip()
    return sha, _git(repo, "archive", "--format=tar.gz", f"--prefix=hukkin-tomli-{sha[:7]}/", "2.0.1")


def test_an_older_release_takes_its_repositorys_docs_folder_at_the_release_tag(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    sha, archive = _tomli_repository(tmp_path)
    registry.site = {
        "/repos/hukkin/tomli": (
            json.dumps({"default_branch": "master", "html_url": "https://github.com/hukkin/tomli"}).encode(),
            "application/json",
        ),
        "/repos/hukkin/tomli/commits/2.0.1": (json.dumps({"sha": sha}).encode(), "application/json"),
        f"/repos/hukkin/tomli/tarball/{sha}": (archive, "application/x-gzip"),
    }
    index = tmp_path / "index"
    client = client_for(registry, index)
    try:
        add_package(
            index, parse_package_spec("pypi:tomli==2.0.1"), client
        )  # the newest is 2.5.0: the tag is the exact source
    finally:
        client.close()
    entry = indexed_libraries(index)[TOMLI].json  # as stored in metadata.json
    sources = [(s["kind"], s["url"], s["revision"]) for s in entry["sources"]]
    assert sources[1:] == [("github", "https://github.com/hukkin/tomli/tree/2.0.1", sha)] and sources[0][0] == "archive"
    paths = sorted(t["path"].removeprefix(f"{TOMLI}/") for t in entry["toc"])
    assert paths == [
        "README.md",
        "repository/docs/filters.md",
        "repository/docs/pagination.md",
    ]  # no build output, no ignored draft
    assert entry["provenance"][f"{TOMLI}/repository/docs/pagination.md"] | {"fetched_at": ""} == {
        "url": "https://github.com/hukkin/tomli/blob/2.0.1/docs/pagination.md",
        "revision": sha,
        "fetched_at": "",
    }
    assert "source_notes" not in entry  # tomli names no documentation site: nothing else was tried
    github = [r for r in registry.requests if r.startswith("/repos/")]
    assert github[:2] == ["/repos/hukkin/tomli", "/repos/hukkin/tomli/commits/v2.0.1"]  # vVERSION first, then VERSION
    assert github[-1] == f"/repos/hukkin/tomli/tarball/{sha}"


def test_a_repository_without_the_tag_is_a_note_and_the_release_is_indexed_from_its_archive(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    client = client_for(registry, index)
    try:
        add_package(index, parse_package_spec("pypi:tomli==2.0.1"), client)  # the lookalike knows no hukkin/tomli
    finally:
        client.close()
    entry = indexed_libraries(index)[TOMLI].json  # as stored in metadata.json
    assert [s["kind"] for s in entry["sources"]] == ["archive"]
    assert entry["source_notes"] == [
        "github: github.com/hukkin/tomli has no tag v2.0.1 or 2.0.1 (or is private); not read."
    ]


def _serve_mkdocs(registry: LoopbackRegistry) -> str:
    """The built site under /site/ms/, as a static host serves it (a folder's URL answers with its index.html)."""
    base = f"{registry.url}/site/ms/"
    registry.documentation = base
    for page in MKDOCS.rglob("*.html"):
        relative = page.relative_to(MKDOCS).as_posix()
        registry.site[f"/site/ms/{relative}"] = (page.read_bytes(), "text/html")
        if relative.endswith("index.html"):
            registry.site[f"/site/ms/{relative.removesuffix('index.html')}"] = (page.read_bytes(), "text/html")
    return base


def test_the_newest_release_without_llms_txt_or_repository_docs_takes_a_bounded_crawl_of_its_documentation_site(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    base = _serve_mkdocs(registry)
    index = tmp_path / "index"
    client = client_for(registry, index)
    try:
        add_package(index, parse_package_spec("npm:ms@2.1.3"), client)
    finally:
        client.close()
    entry = indexed_libraries(index)[MS].json  # as stored in metadata.json
    assert [(s["kind"], s["url"]) for s in entry["sources"]][1:] == [("site", base)]
    paths = sorted(t["path"].removeprefix(f"{MS}/") for t in entry["toc"] if t["path"].startswith(f"{MS}/website/"))
    assert paths == sorted(["website/index.html", *(f"website/tutorial/{p}index.html" for p in
                            ("", "background-tasks/", "cors/", "debugging/", "middleware/", "query-params/"))])  # fmt: skip
    provenance = entry["provenance"][f"{MS}/website/tutorial/cors/index.html"]
    assert provenance["url"] == f"{base}tutorial/cors/" and provenance["revision"].startswith('"')  # the page's ETag
    # the llms.txt (step 1) and the repository (step 2) were asked first, found nothing, and say so
    assert entry["source_notes"] == [
        "github: github.com/vercel/ms has no tag v2.1.3 or 2.1.3 (or is private); not read."
    ]
    assert "/site/ms/llms.txt" in registry.requests and "/site/ms/404.html" not in registry.requests


def test_an_older_release_never_takes_the_pages_of_the_site_and_the_crawl_is_bounded(
    registry: LoopbackRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _serve_mkdocs(registry)
    releases = {"2.0.0": Release("2.0.0"), "2.1.3": Release("2.1.3")}
    info = PackageInfo("npm", "ms", documentation=base, latest="2.1.3", releases=releases)
    crawl = DocsSiteCrawl(allow_loopback=True, rate=1000.0)
    with pytest.raises(SourceError) as older:
        crawl.find(info, "2.0.0")
    assert "serves the newest release, 2.1.3, not 2.0.0; not read." in older.value.message
    assert not [r for r in registry.requests if r.startswith("/site/")]  # not one page of the site was asked
    monkeypatch.setattr(richer, "MAX_SITE_BYTES", 1)  # the first page is over: the crawl stops and keeps it
    found = crawl.find(info, "2.1.3")
    assert found is not None and [p.path for p in found.pages] == ["website/index.html"]
    assert found.notes == (f"the crawl of {base} stopped after 120 s or 1 bytes; the pages after it left out",)
    assert not [
        r for r in registry.requests if r.startswith("/site/ms/tutorial/")
    ]  # stopped before the start page's links were asked
