"""Release archives unpacked safely: real sdists and tarballs, and archives built to escape."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from docs_mcp.indexer.errors import PackageFetchError
from docs_mcp.indexer.sources.packages import archive
from docs_mcp.indexer.sources.packages.archive import unpack_docs
from docs_mcp.indexer.sources.web import archive_bounds

DATA = Path(__file__).parent / "registry"


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_a_real_sdist_gives_its_readme_and_its_pkg_info(tmp_path: Path) -> None:
    unpacked = unpack_docs((DATA / "tomli-2.0.1.tar.gz").read_bytes(), tmp_path, "tomli-2.0.1.tar.gz")
    assert unpacked.files == ("README.md",) and _files(tmp_path) == {
        "README.md"
    }  # the code, LICENSE and pyproject stay out
    assert "Metadata-Version" in unpacked.metadata and "Version: 2.0.1" in unpacked.metadata
    assert unpacked.skipped == 7


def test_a_real_npm_tarball_gives_its_readme(tmp_path: Path) -> None:
    unpacked = unpack_docs((DATA / "ms-2.1.3.tgz").read_bytes(), tmp_path, "ms-2.1.3.tgz")
    assert unpacked.files == ("readme.md",) and unpacked.metadata == ""
    assert "ms('2 days')" in (tmp_path / "readme.md").read_text()


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, body in members:
            info.size = len(body) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(body) if info.isfile() else None)
    return buffer.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def test_links_devices_absolute_and_dotdot_paths_are_never_written(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    body = b"# Escaped\n\nThis must never be written outside the destination.\n"
    data = _tar([
        (_member("pkg-1.0/README.md"), b"# Pkg\n\nThe real readme.\n"),
        (_member("pkg-1.0/../../escaped.md"), body),
        (_member("/tmp/absolute.md"), body),
        (_member("pkg-1.0/docs/link.md", tarfile.SYMTYPE, "/etc/passwd"), b""),
        (_member("pkg-1.0/docs/hard.md", tarfile.LNKTYPE, "pkg-1.0/README.md"), b""),
        (_member("pkg-1.0/docs/fifo.md", tarfile.FIFOTYPE), b""),
        (_member("pkg-1.0/docs\\\\windows.md"), body),
        (_member("pkg-1.0/docs/guide.md"), b"# Guide\n\nA real page.\n"),
        (_member("pkg-1.0/tests/notes.md"), body),
        (_member("pkg-1.0/src/module.py"), b"print('code')\n"),
    ])  # fmt: skip
    unpacked = unpack_docs(data, destination, "pkg-1.0.tar.gz")
    assert _files(destination) == {"README.md", "docs/guide.md"} == set(unpacked.files)
    assert not (tmp_path / "escaped.md").exists() and not Path("/tmp/absolute.md").exists()


def test_a_zip_with_a_symlink_member_and_a_lying_size_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_FILE_BYTES", 1000)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        link = zipfile.ZipInfo("pkg/docs/link.md")
        link.external_attr = 0o120777 << 16
        zipped.writestr(link, "/etc/passwd")
        zipped.writestr("pkg/docs/big.md", "# Big\n" + "x" * 5000)
        zipped.writestr("pkg/README.rst", "Pkg\n===\n\nSmall.\n")
    unpacked = unpack_docs(buffer.getvalue(), tmp_path, "pkg-1.0.zip")
    assert unpacked.files == ("README.rst",) and unpacked.skipped == 2


def test_too_many_members_or_documentation_files_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_FILES", 3)
    data = _tar([(_member(f"pkg/docs/page{i}.md"), b"# Page\n\ntext\n") for i in range(5)])
    with pytest.raises(PackageFetchError, match="more than 3 documentation files"):
        unpack_docs(data, tmp_path, "pkg-1.0.tar.gz")
    monkeypatch.setattr(archive_bounds, "MAX_MEMBERS", 4)
    with pytest.raises(PackageFetchError, match="pkg-1.0.tar.gz has more than 4 members"):
        unpack_docs(data, tmp_path, "pkg-1.0.tar.gz")


def test_bytes_that_are_no_archive_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PackageFetchError, match="pkg-1.0.tar.gz is not an archive"):
        unpack_docs(b"<html>not an archive</html>", tmp_path, "pkg-1.0.tar.gz")
