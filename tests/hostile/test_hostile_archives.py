"""Hostile archives, built here: bombs of members or bytes, compression that lies about itself, paths that clash.
Both unpackers (repository archives, release archives) are held to the same bounds (sources/archive_bounds)."""

from __future__ import annotations

import bz2
import io
import logging
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest

from docs_mcp.indexer.errors import PackageFetchError
from docs_mcp.indexer.sources.github_archive import ArchiveError
from docs_mcp.indexer.sources.github_archive import unpack_docs as unpack_repository
from docs_mcp.indexer.sources.packages.archive import unpack_docs as unpack_release
from docs_mcp.indexer.sources.web.archive_bounds import MAX_MEMBERS

README = b"# Pkg\n\nThe real readme.\n"


def _header(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, body in members:
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def _gzip(raw: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip wrapper
    return compressor.compress(raw) + compressor.flush()


def _zero_member_tar(name: str, size: int, compress) -> bytes:
    """A tar holding a README then ``size`` zero bytes as ``name``, compressed by ``compress`` a chunk at a time."""
    chunks = [_header("pkg-1.0/README.md", len(README)), README + b"\0" * (512 - len(README)), _header(name, size)]
    chunks += [b"\0" * 2**20] * (size // 2**20) + [b"\0" * 1024]
    return compress(chunks)


def _gzip_chunks(chunks: list[bytes]) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(compressor.compress(chunk) for chunk in chunks) + compressor.flush()


def _bzip2_chunks(chunks: list[bytes]) -> bytes:
    compressor = bz2.BZ2Compressor(9)
    return b"".join(compressor.compress(chunk) for chunk in chunks) + compressor.flush()


def test_a_tar_of_more_members_than_the_bound_is_refused_by_both_unpackers_naming_the_archive_and_the_limit(
    tmp_path: Path,
) -> None:
    # A hundred thousand and one empty members, 60 MB of headers gzipped to a few hundred KB: listing them all
    # (a million cost 74 s and 551 MB) is stopped at the bound.
    data = _gzip(b"".join(_header(f"pkg-1.0/e{n}") for n in range(MAX_MEMBERS + 1)) + b"\0" * 1024)
    with pytest.raises(
        ArchiveError, match=f"has more than {MAX_MEMBERS:,} members .the limit for an archive.: it was not unpacked"
    ):
        unpack_repository(io.BytesIO(data), tmp_path / "repository")
    with pytest.raises(PackageFetchError, match=f"^pkg-1.0.tar.gz has more than {MAX_MEMBERS:,} members"):
        unpack_release(data, tmp_path / "release", "https://files.example/pkg-1.0.tar.gz")


def test_a_bzip2_file_named_tar_gz_is_refused_unopened_and_a_repository_archive_is_gzip_or_plain_tar(
    tmp_path: Path,
) -> None:
    data = bz2.compress(_tar([("pkg-1.0/README.md", README)]))
    with pytest.raises(
        PackageFetchError,
        match=r"^pkg-1.0.tar.gz is declared gzip but its bytes are bzip2: it was not opened\. The server \(registry, mirror or GitHub\) serves a mislabelled file",
    ):
        unpack_release(data, tmp_path / "release", "pkg-1.0.tar.gz")
    with pytest.raises(ArchiveError, match="is declared gzip or tar but its bytes are bzip2"):
        unpack_repository(io.BytesIO(data), tmp_path / "repository")
    assert not (tmp_path / "release").exists() and not (tmp_path / "repository").exists()
    with pytest.raises(
        PackageFetchError,
        match=r"^download is named as no archive docs-mcp reads \(.tar.gz, .tgz, .*\): it was not opened",
    ):
        unpack_release(data, tmp_path / "unnamed", "https://mirror.example/download?id=3")
    # Declared as what it is, the same archive opens.
    assert unpack_release(data, tmp_path / "declared", "pkg-1.0.tar.bz2").files == ("README.md",)


def test_a_bzip2_bomb_is_refused_at_the_ratio_before_it_is_decompressed(tmp_path: Path) -> None:
    data = _zero_member_tar("pkg-1.0/data.bin", 128 * 2**20, _bzip2_chunks)  # 128 MiB of zeros in a few hundred bytes
    assert len(data) < 2048
    with pytest.raises(
        PackageFetchError,
        match=r"^pkg-1.0.tar.bz2 expands to more than .* \(the limit for an archive of .*: 200 times its size, at least 32 MiB, at most 2 GiB\)",
    ):
        unpack_release(data, tmp_path / "release", "pkg-1.0.tar.bz2")


def test_a_gzip_bomb_is_refused_by_both_unpackers_and_a_real_archive_is_not(tmp_path: Path) -> None:
    data = _zero_member_tar("pkg-1.0/data.bin", 128 * 2**20, _gzip_chunks)  # 128 MiB of zeros: about 1,000 to 1
    with pytest.raises(ArchiveError, match="expands to more than"):
        unpack_repository(io.BytesIO(data), tmp_path / "repository")
    with pytest.raises(PackageFetchError, match="^pkg-1.0.tgz expands to more than"):
        unpack_release(data, tmp_path / "release", "pkg-1.0.tgz")
    # A small archive that pads and repeats more than 200 to 1 is no bomb: it stays under the floor.
    text = _gzip(
        _tar(
            [
                ("pkg-1.0/README.md", README),
                ("pkg-1.0/docs/guide.md", b"# Guide\n\n" + b"Use the widget well.\n" * 200_000),
            ]
        )
    )
    assert sorted(unpack_release(text, tmp_path / "text", "pkg-1.0.tgz").files) == ["README.md", "docs/guide.md"]


def test_a_pax_record_that_would_expand_past_the_limit_is_stopped_by_the_stream_itself(tmp_path: Path) -> None:
    # tarfile reads a pax header's records whole, before any member is handed out: the stream must refuse them.
    size = 64 * 2**20
    data = _gzip_chunks(
        [_header("pkg-1.0/PaxHeader", size, tarfile.XHDTYPE), *[b"\0" * 2**20] * (size // 2**20), b"\0" * 1024]
    )
    with pytest.raises(ArchiveError, match="expands to more than 32 MiB"):
        unpack_repository(io.BytesIO(data), tmp_path / "repository")


def test_a_zip_whose_members_expand_past_the_ratio_is_refused_before_any_is_read(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("pkg/README.md", README)
        zipped.writestr("pkg/data.bin", b"\0" * (64 * 2**20))
    with pytest.raises(PackageFetchError, match="^pkg-1.0-py3-none-any.whl expands to more than"):
        unpack_release(buffer.getvalue(), tmp_path / "release", "pkg-1.0-py3-none-any.whl")


def test_a_path_that_is_a_file_and_a_folder_is_skipped_with_a_warning_not_a_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = _gzip(_tar([
        ("pkg-1.0/README.md", README),
        ("pkg-1.0/docs/a.md", b"# A\n"),
        ("pkg-1.0/docs/a.md/b.md", b"# B under a file\n"),  # a folder where a file is
        ("pkg-1.0/docs/c.md/d.md", b"# D\n"),
        ("pkg-1.0/docs/c.md", b"# C where a folder is\n"),  # a file where a folder is
    ]))  # fmt: skip
    with caplog.at_level(logging.WARNING):
        repository = unpack_repository(io.BytesIO(data), tmp_path / "repository", "the archive of octo/widget")
        release = unpack_release(data, tmp_path / "release", "pkg-1.0.tar.gz")
    assert (repository.files, repository.skipped) == (3, 2)
    assert sorted(release.files) == ["README.md", "docs/a.md", "docs/c.md/d.md"] and release.skipped == 2
    warnings = [r.getMessage() for r in caplog.records]
    assert (
        "the archive of octo/widget: docs/a.md/b.md skipped: the archive has a file and a folder of that path"
        in warnings
    )
    assert "pkg-1.0.tar.gz: docs/c.md skipped: the archive has a file and a folder of that path" in warnings


def test_a_zip_with_an_encrypted_member_is_an_archive_that_cannot_be_read_not_a_traceback(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("pkg/README.md", README)
    data = bytearray(buffer.getvalue())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the local and the central header's flags
        data[data.index(signature) + flags] |= 0x1  # "encrypted": zipfile asks for a password (RuntimeError)
    with pytest.raises(PackageFetchError, match=r"^pkg-1.0.zip cannot be read \(RuntimeError: .*encrypted"):
        unpack_release(bytes(data), tmp_path / "release", "pkg-1.0.zip")
