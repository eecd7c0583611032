"""After the archive, the richer source a package's metadata points to: the llms.txt at its documentation site.

The loopback registry serves the recorded documents with a documentation URL pointing at a site it
also serves; the site's pages are real documentation (two pages of this project's guide).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loopback_registry import LoopbackRegistry, client_for

from docs_mcp.indexer.sources.package import add_package, indexed_libraries
from docs_mcp.indexer.sources.packages import richer
from docs_mcp.indexer.sources.packages.package_info import PackageInfo, Release
from docs_mcp.indexer.sources.packages.refs import parse_package_spec
from docs_mcp.indexer.sources.packages.richer import LlmsTxtAtDocsSite, llms_txt_candidates

GUIDE = Path(__file__).resolve().parents[2] / "corpus" / "guide"
MS = "npm/ms/v2.1.3"


def _serve_site(registry: LoopbackRegistry, name: str) -> str:
    site = f"{registry.url}/site/{name}/"
    llms = (
        f"# {name}\n\n> Documentation of {name}.\n\n## Guides\n\n"
        f"- [Filters]({site}filters.md): filtering search results\n"
        "- [Pagination](pagination.md): reading long answers in pages\n"
        "- [Gone](gone.md): a page the site no longer has\n"
        "- [Elsewhere](https://elsewhere.example/page.md): a page on another host\n"
    )
    registry.documentation = site
    registry.site = {
        f"/site/{name}/llms.txt": (llms.encode(), "text/plain"),
        f"/site/{name}/filters.md": ((GUIDE / "filters.md").read_bytes(), "text/markdown"),
        f"/site/{name}/pagination.md": ((GUIDE / "pagination.md").read_bytes(), "text/markdown"),
    }
    return site


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'


def test_the_newest_release_gains_the_pages_its_docs_sites_llms_txt_links_each_with_its_provenance(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    site = _serve_site(registry, "ms")
    index = tmp_path / "index"
    client = client_for(registry, index)
    try:
        add_package(index, parse_package_spec("npm:ms@2.1.3"), client)  # 2.1.3 is ms's newest release
    finally:
        client.close()
    entry = indexed_libraries(index)[MS].json  # as stored in metadata.json
    assert [(s["kind"], s["url"].rsplit("/", 1)[-1]) for s in entry["sources"]] == [
        ("archive", "ms-2.1.3.tgz"),
        ("llms-txt", "llms.txt"),
    ]
    paths = sorted(t["path"].removeprefix(f"{MS}/") for t in entry["toc"])
    assert paths == [
        "readme.md",
        "website/filters.md",
        "website/llms.md",
        "website/pagination.md",
    ]  # the archive's README kept beside
    provenance = entry["provenance"][f"{MS}/website/pagination.md"]
    assert provenance["url"] == f"{site}pagination.md" and provenance["revision"] == _etag(
        (GUIDE / "pagination.md").read_bytes()
    )
    assert entry["provenance"][f"{MS}/readme.md"]["url"].endswith("ms-2.1.3.tgz#readme.md")
    (note,) = entry["source_notes"]
    assert note.startswith(f"{site}gone.md left out") and "does not exist" in note
    site_requests = [r for r in registry.requests if r.startswith("/site/")]
    assert site_requests == [
        "/site/ms/llms.txt",
        "/site/ms/filters.md",
        "/site/ms/pagination.md",
        "/site/ms/gone.md",
    ]  # in its order, never another host


def test_an_older_release_never_takes_the_pages_the_site_serves_for_the_newest(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    _serve_site(registry, "tomli")
    index = tmp_path / "index"
    env = {**os.environ, **registry.environment()}
    done = subprocess.run([sys.executable, "-m", "docs_mcp", "add", "pypi:tomli==2.0.1", "--index", str(index)],
                          capture_output=True, text=True, env=env, check=False, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr  # the newest is 2.5.0
    assert done.stdout.startswith("added pypi/tomli/v2.0.1: ") and done.stdout.rstrip().endswith("tomli-2.0.1.tar.gz")
    assert "note: llms-txt: " in done.stderr and "not 2.0.1" in done.stderr
    entry = indexed_libraries(index)["pypi/tomli/v2.0.1"].json  # as stored in metadata.json
    assert [s["kind"] for s in entry["sources"]] == ["archive"]
    assert not any(t["path"].startswith("pypi/tomli/v2.0.1/website/") for t in entry["toc"])
    llms, github, site = entry["source_notes"]  # the chain's three steps, in order
    assert (
        llms.startswith("llms-txt: the documentation site (") and "serves the newest release, 2.5.0, not 2.0.1" in llms
    )
    assert github == "github: github.com/hukkin/tomli has no tag v2.0.1 or 2.0.1 (or is private); not read."
    assert site.startswith("site: the documentation site (") and "serves the newest release, 2.5.0, not 2.0.1" in site
    assert not [r for r in registry.requests if r.startswith("/site/")]  # not even its llms.txt was asked, nor crawled


def test_llms_txt_is_looked_for_beside_the_documentation_url_then_at_its_sites_root_never_on_a_code_host() -> None:
    info = PackageInfo(
        "pypi", "x", documentation="https://x.readthedocs.io/en/stable/index.html", homepage="https://github.com/o/x"
    )
    assert llms_txt_candidates(info) == [
        "https://x.readthedocs.io/en/stable/llms.txt",
        "https://x.readthedocs.io/llms.txt",
    ]
    assert llms_txt_candidates(PackageInfo("npm", "y", homepage="https://y.dev")) == ["https://y.dev/llms.txt"]
    assert llms_txt_candidates(PackageInfo("npm", "z", homepage="https://github.com/o/z#readme")) == []


def test_a_sites_pages_are_bounded_in_number_and_bytes_and_only_its_own_host_is_read(
    registry: LoopbackRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _serve_site(registry, "ms")
    info = PackageInfo("npm", "ms", documentation=site, latest="2.1.3", releases={"2.1.3": Release("2.1.3")})
    source = LlmsTxtAtDocsSite(allow_loopback=True, delays=())
    monkeypatch.setattr(richer, "MAX_SITE_PAGES", 1)
    found = source.find(info, "2.1.3")
    assert found is not None and [p.path for p in found.pages] == ["website/llms.md", "website/filters.md"]
    assert found.notes == (
        "2 pages past the first 1 left out",
    )  # pagination and gone; elsewhere.example is never a candidate
    monkeypatch.setattr(richer, "MAX_SITE_PAGES", 100)
    monkeypatch.setattr(richer, "MAX_SITE_BYTES", 10)  # the llms.txt alone is larger
    found = source.find(info, "2.1.3")
    assert found is not None and [p.path for p in found.pages] == ["website/llms.md"]
    assert found.notes == (f"stopped after 120 s or 10 bytes: {site}filters.md and the pages after it left out",)
    assert not any(r.startswith("/site/ms/pagination") for r in registry.requests)
