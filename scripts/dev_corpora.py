"""Development corpora from real packages' release archives: each pinned archive downloaded, checked, and its docs
folder extracted, with a SOURCE.txt saying where it came from.

Downloads go through the indexer's web fetcher (indexer/sources/web/fetch.py), like every remote source: the
pinned URL's host only, never a private address (each redirect and the address reached are checked), bounded in
bytes and seconds.

The archives are pinned (exact version, URL, size and sha256), so every engineer's corpus is the same bytes as the
dev sets of eval/devsets/ were written against; a mismatch is refused, never extracted. Extraction is the indexer's
own (sources/packages/archive.unpack_docs): regular files only, no absolute path, ``..``, link or device, and its
bounds on members, expanded bytes, one file and all files. Only the documentation folder is kept; a corpus folder
that exists is left alone unless --replace.

    python scripts/dev_corpora.py                       # every corpus, under /work/shared/corpora
    python scripts/dev_corpora.py flask --root /tmp/corpora
    python scripts/dev_corpora.py flask --archive flask-3.1.3.tar.gz   # an archive already downloaded
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.sources.errors import InvalidContentError, SourceError, UrlNotAllowedError
from docs_mcp.indexer.sources.packages.archive import unpack_docs
from docs_mcp.indexer.sources.packages.registry_client import registry_networks
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy, host_of, loopback_allowed, warn_if_loopback_allowed

DEFAULT_ROOT = Path("/work/shared/corpora")
MAX_ARCHIVE_BYTES = 20 * 1024 * 1024  # the pinned sdists and tarballs are under 1 MB; a download stops past this
TIMEOUT_SECONDS = 60.0  # the whole download: connecting, redirects, retries and the body


@dataclass(frozen=True)
class Release:
    """One pinned release archive and the documentation folder taken from it."""

    corpus: str  # the folder name under the corpora root, and the dev sets' prefix
    registry: str  # PyPI or npm
    package: str
    version: str
    url: str
    size: int
    sha256: str
    licence: str
    kind: str  # one line: what sort of documentation this is (for SOURCE.txt)
    docs: str = "docs"  # the archive's documentation folder, below its top folder
    notes: str = ""  # shape notes for SOURCE.txt: what a chunker or a golden set meets in these pages


RELEASES = (
    Release(
        corpus="flask",
        registry="PyPI",
        package="flask",
        version="3.1.3",
        url="https://files.pythonhosted.org/packages/26/00/35d85dcce6c57fdc871f3867d465d780f302a175ea360f62533f12b27e2b/flask-3.1.3.tar.gz",
        size=759_004,
        sha256="0ef0e52b8a9cd932855379197dd8f94047b359ca0a78695144304cb45f87c9eb",
        licence="BSD-3-Clause (LICENSE.txt: Copyright 2010 Pallets)",
        kind="Python web framework documentation, reStructuredText for Sphinx, English",
        notes="Sphinx roles and directives throughout (:func:, :doc:, .. code-block::, .. admonition::); api.rst is\n"
        "autodoc directives, so most of its sections hold no text. changes.rst and license.rst include files outside\n"
        "docs/ (../CHANGES.rst, ../LICENSE.txt): the indexer warns and indexes the rest. The configuration keys\n"
        "(SECRET_KEY, MAX_CONTENT_LENGTH...) are `.. py:data::` entries inside one long section, not headings.",
    ),
    Release(
        corpus="fastify",
        registry="npm",
        package="fastify",
        version="5.12.8",
        url="https://registry.npmjs.org/fastify/-/fastify-5.12.8.tgz",
        size=536_826,
        sha256="459048aabd9311309f4f95b36e8ca065e3a4613ded292bcf50442926931e4748",
        licence="MIT (LICENSE: Copyright (c) 2016-present The Fastify team)",
        kind="JavaScript web framework documentation, GitHub markdown (Guides/, Reference/), English",
        notes="Reference pages start with an HTML <h1> logo block and `## Title` (no markdown H1). Headings are followed by\n"
        "<a id=...> anchors; Reference/Server.md and Reply.md are deep (####/##### options and methods), Errors.md and\n"
        "Warnings.md hold the FST_ERR_*/FSTWRN*/FSTDEP* codes in tables. Guides/Ecosystem.md lists hundreds of\n"
        "plugins, so many off-topic words (Redis, JWT, CORS, webpack) appear there.",
    ),
    Release(
        corpus="click",
        registry="PyPI",
        package="click",
        version="8.5.1",
        url="https://files.pythonhosted.org/packages/45/37/edbf1b0707709013c0cf2e8317e03d97ed29bf4cac709fe328904ae92a38/click-8.5.1.tar.gz",
        size=399_151,
        sha256="9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4",
        licence="BSD-3-Clause (LICENSE.txt: Copyright 2014 Pallets)",
        kind="Python command-line library documentation, MyST markdown for Sphinx, English",
        notes="MyST roles and directives ({func}`echo`, ```{code-block}, ```{note}); api.md is autodoc\n"
        "directives. changes.md includes ../CHANGES.md, outside docs/. faqs.md puts every question under one\n"
        "`## General`, so the FAQ is one long section.",
    ),
)


class CorpusFetchError(DocsMcpError):
    """The archive cannot be had, is not the pinned one, or cannot be extracted."""


def download(url: str, limit: int = MAX_ARCHIVE_BYTES, timeout: float = TIMEOUT_SECONDS) -> bytes:
    """The archive's bytes through the indexer's web fetcher (indexer/sources/web/fetch.py): only the pinned URL's host,
    never a private address (each redirect and the address reached checked too), at most ``limit`` bytes and
    ``timeout`` seconds in all. The archives are the registries' files, so the private networks an operator trusts for
    registry requests (DOCS_MCP_REGISTRY_NETWORKS: a mirror, a proxy) are reached as `sync` reaches them.
    ``DOCS_MCP_ALLOW_PRIVATE_FETCH=1`` (tests) allows loopback, as for every remote source."""
    warn_if_loopback_allowed()
    policy = FetchPolicy(
        allowed_domains=frozenset({host_of(url)}),
        allow_loopback=loopback_allowed(),
        max_bytes=limit,
        timeout=timeout,
        allowed_networks=registry_networks(),
    )
    fetcher = Fetcher(policy)
    try:
        return fetcher.get(url).body
    except InvalidContentError as error:
        raise CorpusFetchError(error.message, "The pin names a small archive: check the URL.") from None
    except UrlNotAllowedError as error:
        raise CorpusFetchError(
            f"cannot download {url}: {error.message}",
            "Only the pinned URL's host is read, never a private address: check the pin's URL, set"
            " DOCS_MCP_REGISTRY_NETWORKS to the network of a registry proxy you trust, or pass --archive FILE.",
        ) from None
    except SourceError as error:
        raise CorpusFetchError(
            f"cannot download {url}: {error.message}", "Check the network, or pass --archive FILE."
        ) from None
    finally:
        fetcher.close()


def checked(data: bytes, release: Release) -> bytes:
    """``data`` if it is the pinned archive (its sha256); otherwise refused, unextracted."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != release.sha256:
        raise CorpusFetchError(
            f"{release.package} {release.version}: the archive's sha256 is {digest}, the pin says {release.sha256}.",
            "Nothing was extracted. Download the pinned archive again; if the registry changed it, pin the new one.",
        )
    return data


def extract(data: bytes, release: Release, target: Path) -> tuple[str, ...]:
    """Write the archive's documentation folder as ``target`` (its files' paths below it, sorted)."""
    file_name = release.url.rsplit("/", 1)[-1]
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as staging:
        unpacked = unpack_docs(data, Path(staging), file_name)
        docs = Path(staging) / release.docs
        if not docs.is_dir():
            raise CorpusFetchError(
                f"{file_name} has no {release.docs}/ folder of documentation pages.",
                "Pin a release that ships its docs.",
            )
        prefix = release.docs + "/"
        files = tuple(sorted(f.removeprefix(prefix) for f in unpacked.files if f.startswith(prefix)))
        docs.rename(target)
    return files


def source_text(release: Release, files: tuple[str, ...], target: Path) -> str:
    """SOURCE.txt: where the corpus came from, in the layout of the other corpora's."""
    size = sum((target / f).stat().st_size for f in files)
    suffixes = sorted({Path(f).suffix for f in files})
    return (
        f"Corpus: {release.corpus}  ({release.kind})\n\n"
        f"Package    : {release.package} {release.version} ({release.registry})\n"
        f"Archive    : {release.url}\n"
        f"sha256     : {release.sha256}  ({release.size:,} bytes)\n"
        f"Copied     : the archive's {release.docs}/ folder, documentation pages only ({', '.join(suffixes)});\n"
        f"             this folder = {release.docs}/, relative paths preserved\n"
        f"License    : {release.licence}\n"
        f"Files      : {len(files)} files, {size:,} bytes\n"
        f"Fetched    : {datetime.date.today().isoformat()} by scripts/dev_corpora.py\n"
        + (f"\nShape notes:\n{release.notes}\n" if release.notes else "")
    )


def fetch_corpus(release: Release, root: Path, archive: Path | None = None, replace: bool = False) -> Path:
    """Download (or read ``archive``), check and extract one release's docs as ``root/<corpus>``; its path."""
    target = root / release.corpus
    if target.exists() and not replace:
        raise CorpusFetchError(f"{target} exists.", "Pass --replace to extract it again, or pick another --root.")
    data = checked(read_archive(archive) if archive else download(release.url), release)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=f".{release.corpus}-new-") as fresh:
        staged = Path(fresh) / release.corpus
        files = extract(data, release, staged)
        (staged / "SOURCE.txt").write_text(source_text(release, files, staged), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)  # the old corpus stays whole until the new one is complete
    return target


def read_archive(path: Path) -> bytes:
    """A local archive's bytes, bounded like a download."""
    try:
        if path.stat().st_size > MAX_ARCHIVE_BYTES:
            raise CorpusFetchError(f"{path} is larger than {MAX_ARCHIVE_BYTES:,} bytes.", "Pass the pinned archive.")
        return path.read_bytes()
    except OSError as error:
        raise CorpusFetchError(f"cannot read {path} ({error.strerror}).", "Pass an archive file that exists.") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help=f"which ones (default all: {', '.join(r.corpus for r in RELEASES)})")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help=f"where corpora go (default {DEFAULT_ROOT})")
    parser.add_argument("--archive", type=Path, help="an archive already downloaded (one corpus only)")
    parser.add_argument("--replace", action="store_true", help="extract again over an existing corpus folder")
    args = parser.parse_args(argv)
    known = {r.corpus: r for r in RELEASES}
    try:
        unknown = [name for name in args.corpora if name not in known]
        if unknown:
            raise CorpusFetchError(f"no pinned corpus {', '.join(unknown)}.", f"Pick from {', '.join(known)}.")
        chosen = [known[name] for name in args.corpora] or list(RELEASES)
        if args.archive and len(chosen) != 1:
            raise CorpusFetchError(
                "--archive is one corpus's archive.", "Name that one corpus: e.g. flask --archive FILE."
            )
        for release in chosen:
            target = fetch_corpus(release, args.root, args.archive, args.replace)
            print(f"{release.corpus}: {release.package} {release.version} -> {target}")
    except DocsMcpError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.hint:
            print(f"hint: {error.hint}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
