"""scripts/dev_corpora.py: a pinned release archive becomes a development corpus only if it is the pinned bytes,
and only its docs folder is written, within bounds.

Archives are real tar.gz files built here; downloads come from a real HTTP server on 127.0.0.1 (no other network)
through the indexer's web fetcher, with its test-only loopback allowance.
The script is loaded from its file and also run as a real subprocess for its error messages.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from loopback_http import Answer, LoopbackServer, serve_loopback

from docs_mcp.indexer.sources.web.safety import LOOPBACK_ENV

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "dev_corpora.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_corpora", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


dev_corpora = _script()


def _tar_gz(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A gzip tarball of regular files (name -> body) and symbolic links (name -> target), names as given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return buffer.getvalue()


def _release(data: bytes) -> object:
    """A pin of ``data``, in the shape of the script's own pins."""
    return replace(
        dev_corpora.RELEASES[0],
        corpus="tiny",
        package="tiny",
        version="1.0",
        url="https://files.example.org/tiny-1.0.tar.gz",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        licence="MIT (test archive)",
    )


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def test_only_the_docs_folder_is_extracted_and_no_member_escapes(tmp_path):
    data = _tar_gz(
        {
            "tiny-1.0/docs/index.md": b"# Tiny\n\nHello.\n",
            "tiny-1.0/docs/guide/usage.rst": b"Usage\n=====\n\nRun it.\n",
            "tiny-1.0/README.md": b"# Readme\n",
            "tiny-1.0/src/tiny/__init__.py": b"x = 1\n",
            "tiny-1.0/docs/../../escaped.md": b"# Out\n",
            "/tmp/absolute.md": b"# Absolute\n",
        },
        links={"tiny-1.0/docs/passwd.md": "/etc/passwd"},
    )
    archive = tmp_path / "tiny-1.0.tar.gz"
    archive.write_bytes(data)
    root = tmp_path / "corpora"

    target = dev_corpora.fetch_corpus(_release(data), root, archive=archive)

    assert target == root / "tiny"
    assert _files(root) == {"tiny/index.md", "tiny/guide/usage.rst", "tiny/SOURCE.txt"}
    assert not (tmp_path / "escaped.md").exists()
    source = (target / "SOURCE.txt").read_text(encoding="utf-8")
    assert (
        hashlib.sha256(data).hexdigest() in source
        and "MIT (test archive)" in source
        and "Files      : 2 files" in source
    )


def test_a_checksum_mismatch_is_refused_before_anything_is_written(tmp_path):
    tampered = tmp_path / "flask-3.1.3.tar.gz"
    tampered.write_bytes(_tar_gz({"flask-3.1.3/docs/index.rst": b"Flask\n=====\n\nNot the pinned archive.\n"}))
    root = tmp_path / "corpora"

    done = subprocess.run(
        [sys.executable, str(SCRIPT), "flask", "--archive", str(tampered), "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: flask 3.1.3: the archive's sha256 is ")
    assert (
        lines[1]
        == "hint: Nothing was extracted. Download the pinned archive again; if the registry changed it, pin the new one."
    )
    assert "Traceback" not in done.stderr and not (root / "flask").exists()


def test_a_file_over_the_size_cap_is_left_out_and_a_larger_archive_is_refused_unread(tmp_path):
    big = b"# Big\n" + b"a" * dev_corpora.MAX_ARCHIVE_BYTES  # over the indexer's 5 MiB a documentation file may be
    data = _tar_gz({"tiny-1.0/docs/index.md": b"# Tiny\n", "tiny-1.0/docs/big.md": big})
    archive = tmp_path / "tiny-1.0.tar.gz"
    archive.write_bytes(data)
    target = dev_corpora.fetch_corpus(_release(data), tmp_path / "corpora", archive=archive)
    assert _files(target) == {"index.md", "SOURCE.txt"}

    sparse = tmp_path / "huge.tar.gz"
    with sparse.open("wb") as handle:  # a hole: its size without its bytes
        handle.truncate(dev_corpora.MAX_ARCHIVE_BYTES + 1)
    with pytest.raises(dev_corpora.CorpusFetchError, match="larger than"):
        dev_corpora.fetch_corpus(_release(b""), tmp_path / "other", archive=sparse)


ARCHIVE_PATH = "/tiny-1.0.tar.gz"


@pytest.fixture
def loopback_archive(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LoopbackServer, bytes]]:
    """An HTTP server on 127.0.0.1 serving one archive (as /tiny-1.0.tar.gz, other paths redirect to a cloud metadata
    address), with the fetcher's test-only loopback allowance on: the server and the archive's bytes."""
    body = _tar_gz({"tiny-1.0/docs/index.md": b"# Tiny\n\n" + b"words " * 2000})
    monkeypatch.setenv(LOOPBACK_ENV, "1")

    def answer(path: str) -> Answer:
        if path == ARCHIVE_PATH:
            return Answer(body)
        return Answer(status=302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})

    with serve_loopback(answer) as server:
        yield server, body


def test_a_download_is_read_up_to_its_cap_and_refused_past_it(loopback_archive):
    server, body = loopback_archive
    url = server.url + ARCHIVE_PATH
    assert dev_corpora.download(url, limit=len(body)) == body
    with pytest.raises(dev_corpora.CorpusFetchError, match=f"larger than {len(body) - 1} bytes"):
        dev_corpora.download(url, limit=len(body) - 1)


def test_a_download_goes_through_the_fetchers_address_checks(loopback_archive, monkeypatch: pytest.MonkeyPatch):
    """A redirect to a private address is refused before it is requested, and loopback itself only in test mode."""
    server, _body = loopback_archive
    with pytest.raises(dev_corpora.CorpusFetchError, match="169.254.169.254") as redirected:
        dev_corpora.download(server.url + "/moved.tar.gz")
    assert "Only the pinned URL's host is read" in redirected.value.hint
    assert server.asked == ["/moved.tar.gz"]
    monkeypatch.delenv(LOOPBACK_ENV)
    with pytest.raises(dev_corpora.CorpusFetchError, match="cannot download") as refused:
        dev_corpora.download(server.url + ARCHIVE_PATH)
    assert "127.0.0.1" in refused.value.message
    assert server.asked == ["/moved.tar.gz"]  # refused before connecting
    # A registry proxy on a network the operator trusts for registry requests is reached as `sync` reaches it.
    monkeypatch.setenv("DOCS_MCP_REGISTRY_NETWORKS", "127.0.0.0/8")
    assert dev_corpora.download(server.url + ARCHIVE_PATH) == _body
    with pytest.raises(dev_corpora.CorpusFetchError, match="169.254.169.254"):
        dev_corpora.download(server.url + "/moved.tar.gz")  # never a metadata address


def test_an_existing_corpus_is_kept_unless_replaced(tmp_path):
    data = _tar_gz({"tiny-1.0/docs/index.md": b"# Tiny\n"})
    archive = tmp_path / "tiny-1.0.tar.gz"
    archive.write_bytes(data)
    root = tmp_path / "corpora"
    (root / "tiny").mkdir(parents=True)
    (root / "tiny" / "notes.md").write_text("# Mine\n", encoding="utf-8")

    with pytest.raises(dev_corpora.CorpusFetchError, match="exists"):
        dev_corpora.fetch_corpus(_release(data), root, archive=archive)
    assert _files(root) == {"tiny/notes.md"}

    dev_corpora.fetch_corpus(_release(data), root, archive=archive, replace=True)
    assert _files(root) == {"tiny/index.md", "tiny/SOURCE.txt"}


def test_every_pin_names_an_exact_version_and_a_sha256():
    for release in dev_corpora.RELEASES:
        assert release.url.endswith((f"-{release.version}.tar.gz", f"-{release.version}.tgz"))
        assert len(release.sha256) == 64 and int(release.sha256, 16) >= 0
        assert release.licence.split(" ")[0] in {"MIT", "BSD-3-Clause", "BSD-2-Clause", "Apache-2.0"}
