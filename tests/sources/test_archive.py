"""Repository archives made by `git archive` (as GitHub's API serves them) unpack to their documentation only."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer.sources.github_archive import ArchiveError, unpack_docs
from docs_mcp.indexer.sources.packages.archive import unpack_docs as unpack_release_docs


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
                               "HOME": str(repo), "PATH": "/usr/bin:/bin"}).stdout  # fmt: skip


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    repo = write_corpus(tmp_path / "repo", {
        "README.md": "# Widget\n\nA widget library.\n",
        "docs/guide.rst": "Guide\n=====\n\nUse it.\n\nInstalling\n----------\n\nRun ``pip install widget``.\n",
        "docs/api/index.md": "# API\n",
        "docs/.docs-mcp.json": '{"version": "1"}',
        "src/widget.py": "print('code')\n",
        "node_modules/dep/README.md": "# Dep\n",
        ".gitignore": "build/\ndrafts/\n",
        "docs/drafts/wip.md": "# Work in progress\n",  # committed although .gitignore names it (git add -f)
    })  # fmt: skip
    (repo / "docs" / "link.md").symlink_to("/etc/passwd")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "add", "-f", "docs/drafts/wip.md")
    git(repo, "commit", "-q", "-m", "docs")
    return repo


def test_a_git_archive_unpacks_to_its_documentation(repository: Path, tmp_path: Path) -> None:
    archive = git(repository, "archive", "--format=tar.gz", "--prefix=acme-widget-0123abc/", "HEAD")
    unpacked = unpack_docs(io.BytesIO(archive), tmp_path / "out")
    found = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert found == [".gitignore", "README.md", "docs/.docs-mcp.json", "docs/api/index.md", "docs/drafts/wip.md", "docs/guide.rst",
                     "node_modules/dep/README.md"]  # fmt: skip
    assert unpacked.files == 7 and unpacked.skipped >= 2  # src/widget.py, the symlink (and folder entries)
    assert not (tmp_path / "out" / "docs" / "link.md").exists()


def test_unsafe_members_are_never_written(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in ("top/../../evil.md", "/abs/evil.md", "top/ok.md"):
            data = b"# x\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    unpacked = unpack_docs(buffer, tmp_path / "out")
    assert unpacked.files == 1 and (tmp_path / "out" / "ok.md").is_file() and not (tmp_path / "evil.md").exists()


def test_a_member_named_with_a_nul_is_skipped_not_a_crash(tmp_path: Path) -> None:
    # A pax header can name a member with any character; no file can be named with a NUL (open() raises ValueError).
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in ("top/docs/a\x00b.md", "top/docs/ok.md"):
            data = b"# x\n"
            info = tarfile.TarInfo("top/docs/placeholder.md")
            info.size, info.pax_headers = len(data), {"path": name}
            tar.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    unpacked = unpack_docs(buffer, tmp_path / "out")
    assert (unpacked.files, unpacked.skipped) == (1, 1) and (tmp_path / "out" / "docs" / "ok.md").is_file()


def test_a_member_named_longer_than_a_file_system_takes_is_skipped_by_both_unpackers(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in (
            f"pkg-1.0/docs/{'a' * 300}.md",
            "pkg-1.0/" + "/".join(["d" * 200] * 16) + "/x.md",
            "pkg-1.0/docs/ok.md",
            "pkg-1.0/README.md",
        ):
            data = b"# x\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    repository = unpack_docs(io.BytesIO(buffer.getvalue()), tmp_path / "repository")
    assert (repository.files, repository.skipped) == (2, 2)
    release = unpack_release_docs(buffer.getvalue(), tmp_path / "release", "pkg-1.0.tar.gz")
    assert sorted(release.files) == ["README.md", "docs/ok.md"] and release.skipped == 2


def test_what_is_no_archive_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="is not an archive"):
        unpack_docs(io.BytesIO(b"<html>rate limited</html>"), tmp_path / "out")
