"""After a release's own archive, the richer source its metadata points to, tried in a documented order.

    1. llms-txt   an llms.txt at the package's documentation site, and the pages it links on that site (here)
    2. github     its repository's docs folder at the release tag (repository_docs.py)
    3. site       a bounded crawl of its documentation site (site_crawl.py)

Each is a ``RicherSource``: given the package and the version, it returns the pages it found or
None when the metadata points to nothing of its kind; ``chain.default_chain`` lists them in that
order. The first one that finds pages wins; the archive's documents are always kept beside them
(under ``website/`` or ``repository/``). A source answers only for the version asked: a
documentation site serves what it serves today, so its llms.txt and its pages are read for the
registry's newest release, or when its URL names the version; for an older release it is not even
asked, and the note says why (an answer never comes from another version silently), while a
repository's tag names the release exactly. A page that cannot be fetched is left out and noted;
the release is indexed anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from docs_mcp.indexer.sources.errors import SourceError
from docs_mcp.indexer.sources.llms_txt_parse import LlmsTxt, parse_llms_txt
from docs_mcp.indexer.sources.packages.package_info import PackageInfo
from docs_mcp.indexer.sources.web.convert import to_markdown
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.paths import page_paths
from docs_mcp.indexer.sources.web.safety import FetchPolicy, host_of

LLMS_TXT_SOURCE = "llms-txt"
SITE_FOLDER = "website"  # not "site": the folder walk skips a site/ folder as a static-site build output
MAX_SITE_PAGES = 100
MAX_SITE_BYTES = 50 * 1024 * 1024  # the pages of one site together, as the archive's documentation is bounded
SITE_SECONDS = 120.0  # all the pages of one site, however many the llms.txt links
CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})  # repositories, not sites


@dataclass(frozen=True)
class RicherPage:
    """One page of a richer source, as markdown, at its path under the library."""

    path: str
    markdown: str
    url: str
    revision: str  # the page's ETag, or the commit it was read at


@dataclass(frozen=True)
class RicherDocs:
    """What a richer source gave: its pages, where it is, and what was left out."""

    kind: str
    url: str
    revision: str
    fetched_at: str
    pages: tuple[RicherPage, ...]
    notes: tuple[str, ...] = ()

    def source_json(self) -> dict[str, str]:
        """The catalog's ``sources`` entry."""
        return {"kind": self.kind, "url": self.url, "revision": self.revision, "fetched_at": self.fetched_at}


class RicherSource(Protocol):
    """A source of a package's documentation beyond its archive."""

    kind: str

    def find(self, info: PackageInfo, version: str) -> RicherDocs | None:
        """The pages of ``info`` at ``version``, or None when the metadata points to nothing of this kind.

        Raises:
            SourceError: the source exists but cannot be read, or does not serve that version (the message says).
        """
        ...


def richer_docs(
    chain: Sequence[RicherSource], info: PackageInfo, version: str
) -> tuple[RicherDocs | None, tuple[str, ...]]:
    """The first source of ``chain`` that finds pages, and a note for each one tried before it that could not."""
    notes = []
    for source in chain:
        try:
            found = source.find(info, version)
        except SourceError as error:
            notes.append(f"{source.kind}: {error.message}")
            continue
        if found is not None and found.pages:
            return found, (*notes, *found.notes)
    return None, tuple(notes)


class LlmsTxtAtDocsSite:
    """The llms.txt at the package's documentation site (its documentation URL, else a homepage that is not a repository)."""

    kind = LLMS_TXT_SOURCE

    def __init__(
        self,
        *,
        allow_loopback: bool = False,
        delays: tuple[float, ...] = (1.0,),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._allow_loopback = allow_loopback
        self._delays = delays
        self._clock = clock

    def find(self, info: PackageInfo, version: str) -> RicherDocs | None:
        candidates = llms_txt_candidates(info)
        if not candidates:
            return None
        if version != info.newest:
            candidates = [url for url in candidates if names_version(url, version)]
            if not candidates:  # not even asked: its pages would be the newest release's
                raise serves_newest_only(info, version)
        fetcher = Fetcher(
            FetchPolicy(frozenset({host_of(c) for c in candidates}), self._allow_loopback), delays=self._delays
        )
        try:
            for url in candidates:
                try:
                    fetched = fetcher.get(url)
                    text = fetched.body.decode("utf-8", errors="replace")
                    llms = parse_llms_txt(text, fetched.url)
                except SourceError:
                    continue  # no llms.txt there: the next candidate
                if version != info.newest and not names_version(fetched.url, version):
                    raise SourceError(
                        f"{url} redirects to {fetched.url}, which does not document {version}; not read.", ""
                    )
                return self._pages(fetcher, llms, text, fetched.etag)
        finally:
            fetcher.close()
        return None

    def _pages(self, fetcher: Fetcher, llms: LlmsTxt, text: str, llms_etag: str) -> RicherDocs:
        """The llms.txt and the pages it links on its own site: at most MAX_SITE_PAGES, MAX_SITE_BYTES, SITE_SECONDS."""
        host = host_of(llms.url)
        linked = list(dict.fromkeys(e.url for e in llms.entries if host_of(e.url) == host and e.url != llms.url))
        paths = page_paths(linked, llms.url)
        pages = [RicherPage(f"{SITE_FOLDER}/{paths[llms.url]}", text, llms.url, llms_etag)]
        notes = (
            [f"{len(linked) - MAX_SITE_PAGES} pages past the first {MAX_SITE_PAGES} left out"]
            if len(linked) > MAX_SITE_PAGES
            else []
        )
        started, size = self._clock(), len(text)
        for url in linked[:MAX_SITE_PAGES]:
            if self._clock() - started > SITE_SECONDS or size > MAX_SITE_BYTES:
                notes.append(
                    f"stopped after {SITE_SECONDS:g} s or {MAX_SITE_BYTES:,} bytes: {url} and the pages after it left out"
                )
                break
            try:
                fetched = fetcher.get(url)
                pages.append(
                    RicherPage(f"{SITE_FOLDER}/{paths[url]}", to_markdown(fetched).markdown, fetched.url, fetched.etag)
                )
                size += len(fetched.body)
            except SourceError as error:
                notes.append(f"{url} left out: {error.message}")
        return RicherDocs(LLMS_TXT_SOURCE, llms.url, llms_etag, now(), tuple(pages), tuple(notes))


def docs_sites(info: PackageInfo) -> list[str]:
    """The package's documentation sites: its documentation URL, then a homepage that is not a code host."""
    return [
        url
        for url in (info.documentation, info.homepage)
        if url and urlsplit(url).scheme in ("http", "https") and host_of(url) not in CODE_HOSTS
    ]


def llms_txt_candidates(info: PackageInfo) -> list[str]:
    """Where an llms.txt may be: beside the documentation URL, then at its site's root (same for a homepage that is a site)."""
    candidates = []
    for url in docs_sites(info):
        parts = urlsplit(url)
        path = parts.path or "/"
        folder = path if path.endswith("/") or "." not in path.rsplit("/", 1)[-1] else path.rsplit("/", 1)[0] + "/"
        root = f"{parts.scheme}://{parts.netloc}"
        candidates += [urljoin(root, folder.rstrip("/") + "/llms.txt"), f"{root}/llms.txt"]
    return list(dict.fromkeys(candidates))


def serves_newest_only(info: PackageInfo, version: str) -> SourceError:
    """Why a documentation site is not read for an older release: its pages are the newest release's."""
    return SourceError(
        f"the documentation site ({info.documentation or info.homepage}) serves the newest release, {info.newest}, not {version}; not read.",
        "Its repository's docs at the release tag are the exact source for an older version.",
    )


def names_version(url: str, version: str) -> bool:
    """Whether the URL's path has the version as one of its segments (``/en/2.31.0/``, ``/v2.31.0/``)."""
    return any(segment in (version, f"v{version}") for segment in urlsplit(url).path.split("/"))


def now() -> str:
    """The time, to the second, as the catalog writes it."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
