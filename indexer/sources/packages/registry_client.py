"""PyPI and npm over HTTP: package documents (cached with a TTL) and release archives, bounded and SSRF-safe.

Every request goes through the sources' fetcher (indexer/sources/web/fetch.py): http(s) only, the
registries' hosts (and the archive hosts their documents name) only, never a private address,
bounded in size and time. A document is fresh for ``ttl_hours``; after that it is revalidated
with its ETag (a ``304`` costs no download). When a registry cannot be reached, a cached answer
is served however old, and ``offline`` says so.
Configured by the environment::

    DOCS_MCP_PYPI_URL               the PyPI to read (default https://pypi.org; a mirror with the JSON API)
    DOCS_MCP_NPM_URL                the npm registry (default https://registry.npmjs.org)
    DOCS_MCP_REGISTRY_TTL_HOURS     how long a package document stays fresh (default 24)
    DOCS_MCP_REGISTRY_CACHE         the cache file (default INDEX_DIR/sources/registry.sqlite)
    DOCS_MCP_REGISTRY_NETWORKS      private networks a registry mirror is reached on (CIDRs, comma-separated;
                                    e.g. 10.20.0.0/16): registry requests only, never metadata addresses
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from docs_mcp.environment import environment
from docs_mcp.indexer.errors import PackageFetchError, PackageNotFoundError
from docs_mcp.indexer.sources.errors import (
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
    UrlNotAllowedError,
)
from docs_mcp.indexer.sources.github_api import GitHubSettings
from docs_mcp.indexer.sources.packages.metadata_cache import CachedPackage, MetadataCache
from docs_mcp.indexer.sources.packages.npm import DEFAULT_NPM, package_url, read_package
from docs_mcp.indexer.sources.packages.package_info import PackageInfo, Release
from docs_mcp.indexer.sources.packages.pypi import DEFAULT_PYPI, project_url, read_project
from docs_mcp.indexer.sources.packages.refs import PYPI, PackageRef
from docs_mcp.indexer.sources.web.fetch import DEFAULT_DELAYS, Fetched, Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy, host_of, loopback_allowed

logger = logging.getLogger(__name__)

PYPI_ENV = "DOCS_MCP_PYPI_URL"
NPM_ENV = "DOCS_MCP_NPM_URL"
TTL_ENV = "DOCS_MCP_REGISTRY_TTL_HOURS"
CACHE_ENV = "DOCS_MCP_REGISTRY_CACHE"
NETWORKS_ENV = "DOCS_MCP_REGISTRY_NETWORKS"
CACHE_FILE = Path("sources") / "registry.sqlite"
DEFAULT_TTL_HOURS = 24.0
FILE_HOSTS = ("files.pythonhosted.org",)  # where PyPI keeps release files
DOCUMENT_MAX_BYTES = 32 * 1024 * 1024  # npm documents of packages with thousands of versions run to megabytes
DOCUMENT_TIMEOUT = 30.0
ARCHIVE_MAX_BYTES = 64 * 1024 * 1024
ARCHIVE_TIMEOUT = 120.0
LOOKUP_TIMEOUT = 5.0  # resolve_library's live lookups: an agent is waiting
_HEX_DIGESTS = ("sha256", "sha1")  # "sha256:<hex>" (PyPI), "sha1:<hex>" (npm's shasum)
_INTEGRITY_DIGESTS = ("sha512", "sha384", "sha256", "sha1")  # npm's integrity (SRI), strongest first


@dataclass(frozen=True)
class RegistrySettings:
    """Where the registries are, how long their answers are kept, and where."""

    cache_path: Path
    pypi_url: str = DEFAULT_PYPI
    npm_url: str = DEFAULT_NPM
    ttl_hours: float = DEFAULT_TTL_HOURS
    allow_loopback: bool = False
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    github: GitHubSettings = (
        GitHubSettings()
    )  # where a package's repository is read at its release tag (sources/packages/repository_docs.py)

    @classmethod
    def for_index(cls, index_dir: Path, environ: Mapping[str, str] | None = None) -> RegistrySettings:
        """The settings of the index at ``index_dir`` from ``environ`` (default: the process environment)."""
        env = dict(environment() if environ is None else environ)
        try:
            ttl = float(env.get(TTL_ENV) or DEFAULT_TTL_HOURS)
        except ValueError:
            ttl = DEFAULT_TTL_HOURS
        return cls(
            cache_path=Path(env[CACHE_ENV]) if env.get(CACHE_ENV) else Path(index_dir) / CACHE_FILE,
            pypi_url=(env.get(PYPI_ENV) or DEFAULT_PYPI).rstrip("/"),
            npm_url=(env.get(NPM_ENV) or DEFAULT_NPM).rstrip("/"),
            ttl_hours=max(0.0, ttl),
            allow_loopback=loopback_allowed(env),
            networks=registry_networks(env),
            github=GitHubSettings.from_environment(env),
        )

    def policy(self, max_bytes: int, timeout: float) -> FetchPolicy:
        """What a registry request may reach: the registries' hosts (and PyPI's file host), and the trusted networks."""
        hosts = frozenset({host_of(self.pypi_url), host_of(self.npm_url), *FILE_HOSTS} - {""})
        return FetchPolicy(hosts, self.allow_loopback, max_bytes, timeout, allowed_networks=self.networks)

    def document_url(self, ecosystem: str, name: str) -> str:
        return project_url(self.pypi_url, name) if ecosystem == PYPI else package_url(self.npm_url, name)

    def registry_name(self, ecosystem: str) -> str:
        return "PyPI" if ecosystem == PYPI else "npm"


@dataclass(frozen=True)
class Lookup:
    """A package as a quick lookup found it: ``info`` None when unknown or unreachable; ``offline`` names the failure."""

    info: PackageInfo | None
    offline: str = ""  # why the registry could not be asked ('' when it answered or the cache was fresh)
    fetched_at: float = 0.0


@dataclass(frozen=True)
class Downloaded:
    """A release archive: its bytes, where they came from and the digest checked."""

    url: str
    body: bytes
    digest: str
    etag: str


class RegistryClient:
    """The registries of one index: documents (cached), release archives."""

    def __init__(
        self,
        settings: RegistrySettings,
        *,
        delays: tuple[float, ...] = DEFAULT_DELAYS,
        sleep: Callable[[float], None] = time.sleep,
        cache: MetadataCache | None = None,
    ) -> None:
        self.settings = settings
        self._policy = settings.policy(DOCUMENT_MAX_BYTES, DOCUMENT_TIMEOUT)
        self._fetcher = Fetcher(settings.policy(ARCHIVE_MAX_BYTES, ARCHIVE_TIMEOUT), delays=delays, sleep=sleep)
        self._quick = Fetcher(settings.policy(DOCUMENT_MAX_BYTES, LOOKUP_TIMEOUT), delays=(), sleep=sleep)
        self._cache = cache
        self._own_cache = cache is None
        self._cache_lock = threading.Lock()  # lookups run on a pool: one of them opens the cache

    @property
    def cache(self) -> MetadataCache:
        """The registry answers kept beside the index, opened on first use (by one thread).

        Raises:
            SourceUnavailableError: the cache file cannot be opened.
        """
        with self._cache_lock:
            if self._cache is None:
                try:
                    self._cache = MetadataCache(self.settings.cache_path)
                except (OSError, sqlite3.Error) as error:
                    raise SourceUnavailableError(
                        f"The registry cache {self.settings.cache_path} cannot be opened ({error}).",
                        f"Set {CACHE_ENV} to a writable file, or check the index folder's permissions.",
                    ) from error
            return self._cache

    def close(self) -> None:
        self._fetcher.close()
        self._quick.close()
        if self._own_cache and self._cache is not None:
            self._cache.close()

    def package(self, ecosystem: str, name: str) -> PackageInfo:
        """The package's registry record: cached while fresh, else fetched (or revalidated); a stale copy when offline.

        Raises:
            PackageNotFoundError: the registry has no such package.
            PackageFetchError: the registry cannot be read and nothing is cached.
        """
        cached = self.cache.get(ecosystem, name)
        if cached is not None and self._fresh(cached):
            return self._known(cached)
        try:
            entry = self._refresh(ecosystem, name, cached, self._fetcher)
        except SourceUnavailableError as error:
            if cached is None:
                raise PackageFetchError(
                    f"{self.settings.registry_name(ecosystem)} cannot be reached: {error.message}",
                    "Check the network (or DOCS_MCP_PYPI_URL / DOCS_MCP_NPM_URL) and try again.",
                ) from error
            logger.warning(
                "%s unreachable, using its answer of %s for %s",
                self.settings.registry_name(ecosystem),
                _iso(cached.fetched_at),
                name,
            )
            entry = cached
        except SourceError as error:
            raise PackageFetchError(
                f"{self.settings.registry_name(ecosystem)} answer for '{name}' cannot be read: {error.message}",
                _hint(error),
            ) from error
        return self._known(entry)

    def lookup(self, ecosystem: str, name: str) -> Lookup:
        """A quick, never-raising lookup for resolve_library: one attempt, LOOKUP_TIMEOUT seconds."""
        cached = self.cache.get(ecosystem, name)
        if cached is not None and self._fresh(cached):
            return Lookup(cached.info, fetched_at=cached.fetched_at)
        try:
            entry = self._refresh(ecosystem, name, cached, self._quick)
        except (SourceError, PackageFetchError) as error:
            # A malformed answer says so itself; anything else is the registry out of reach.
            registry = self.settings.registry_name(ecosystem)
            reason = (
                error.message
                if isinstance(error, PackageFetchError)
                else f"{registry} could not be reached ({error.message})"
            )
            return Lookup(cached.info if cached else None, reason, cached.fetched_at if cached else 0.0)
        return Lookup(entry.info, fetched_at=entry.fetched_at)

    def release(self, ref: PackageRef) -> tuple[PackageInfo, Release]:
        """The package and the release ``ref`` names (its newest when ``ref`` has no version).

        Raises:
            PackageNotFoundError: no such package, or no such version (the message lists the nearest ones).
            PackageFetchError: the registry cannot be read.
        """
        info = self.package(ref.ecosystem, ref.name)
        version = ref.version or info.newest
        release = info.releases.get(version)
        if release is None:
            recent = ", ".join(info.versions[-8:][::-1])
            raise PackageNotFoundError(
                f"{self.settings.registry_name(ref.ecosystem)} has no version {version} of {info.name or ref.name}.",
                f"Its newest versions are: {recent}." if recent else "It has no release yet.",
            )
        return info, release

    def download(self, release: Release) -> Downloaded:
        """The release's archive, its digest checked against the registry's.

        Raises:
            PackageFetchError: no archive, the download fails, is too large, or its digest does not match.
        """
        if not release.archive_url:
            raise PackageFetchError(f"Version {release.version} has no file to download.", "Pick another version.")
        policy = self._fetcher.policy.allowing({host_of(release.archive_url)})
        try:
            fetched: Fetched = self._fetcher.get(release.archive_url, policy=policy)
        except SourceError as error:
            raise PackageFetchError(
                f"The archive of version {release.version} cannot be downloaded: {error.message}",
                _hint(error) or "Try again later.",
            ) from error
        digest = _check_digest(fetched.body, release)
        return Downloaded(fetched.url, fetched.body, digest, fetched.etag)

    def _fresh(self, cached: CachedPackage) -> bool:
        return cached.age(self.cache.clock()) < self.settings.ttl_hours * 3600

    def _refresh(self, ecosystem: str, name: str, cached: CachedPackage | None, fetcher: Fetcher) -> CachedPackage:
        url = self.settings.document_url(ecosystem, name)
        try:
            fetched = fetcher.get(
                url,
                etag=cached.etag if cached and cached.info else "",
                headers={"Accept": "application/json"},
                policy=_with(self._policy, fetcher),
            )
        except RemotePageNotFoundError:
            return self.cache.put(ecosystem, name, None)
        if fetched.not_modified and cached is not None:
            return self.cache.put(ecosystem, name, cached.info, cached.etag)
        try:
            document = json.loads(fetched.body)
        except (ValueError, UnicodeDecodeError) as error:
            raise PackageFetchError(
                f"{url} is not a JSON document ({error}).",
                "Check DOCS_MCP_PYPI_URL / DOCS_MCP_NPM_URL: it must serve the registry's JSON API.",
            ) from error
        if not isinstance(document, dict):
            raise PackageFetchError(f"{url} is not a package document.", "Check the registry URL.")
        info = (
            read_project(document, fetched.url, name)
            if ecosystem == PYPI
            else read_package(document, fetched.url, name)
        )
        return self.cache.put(ecosystem, name, info, fetched.etag)

    def _known(self, entry: CachedPackage) -> PackageInfo:
        if entry.info is None:
            registry = self.settings.registry_name(entry.ecosystem)
            raise PackageNotFoundError(
                f"{registry} has no package '{entry.name}'.",
                f"Check the name (as you would `{'pip install' if entry.ecosystem == PYPI else 'npm install'}` it).",
            )
        return entry.info


def _hint(error: SourceError) -> str:
    """What to do about a failed registry request: a refused private address may be a mirror the operator trusts."""
    if isinstance(error, UrlNotAllowedError) and ("private" in error.message or "loopback address" in error.message):
        return f"A registry mirror (or a proxy) on a private network is reached only when {NETWORKS_ENV} lists it, e.g. {NETWORKS_ENV}=10.20.0.0/16."
    return error.hint


def _with(policy: FetchPolicy, fetcher: Fetcher) -> FetchPolicy:
    """The document policy with the fetcher's time limit (the quick fetcher's is shorter)."""
    return replace(policy, timeout=min(policy.timeout, fetcher.policy.timeout))


def registry_networks(
    environ: Mapping[str, str] | None = None,
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The CIDRs of DOCS_MCP_REGISTRY_NETWORKS (the private networks a registry or its mirror is reached on); a
    malformed one is skipped with a warning."""
    text = (environment() if environ is None else environ).get(NETWORKS_ENV, "")
    networks = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            logger.warning("%s: '%s' is not a network (CIDR such as 10.20.0.0/16); ignored", NETWORKS_ENV, part)
    return tuple(networks)


def _check_digest(body: bytes, release: Release) -> str:
    """The archive's digest in the registry's notation, checked when the registry gave one: ``sha256:<hex>`` or
    ``sha1:<hex>`` (PyPI, npm's shasum), or npm's integrity ``sha512-<base64>`` (several: the strongest known).

    Raises:
        PackageFetchError: the digest differs (a tampered mirror, a truncated download), or is in an algorithm docs-mcp
            cannot check (it is never taken as checked).
    """
    if not release.digest:
        return f"sha256:{hashlib.sha256(body).hexdigest()}"
    if ":" in release.digest:
        algorithm, _, expected = release.digest.partition(":")
        known = algorithm in _HEX_DIGESTS
        actual = hashlib.new(algorithm, body).hexdigest() if known else ""
    else:
        entries = [entry.partition("-")[::2] for entry in release.digest.split()]
        checkable = sorted(
            (e for e in entries if e[0] in _INTEGRITY_DIGESTS), key=lambda e: _INTEGRITY_DIGESTS.index(e[0])
        )
        algorithm, expected = checkable[0] if checkable else (", ".join(e[0] for e in entries), "")
        known = bool(checkable)
        actual = base64.b64encode(hashlib.new(algorithm, body).digest()).decode() if known else ""
    if not known:
        raise PackageFetchError(
            f"The archive of version {release.version} has a digest in {algorithm[:40]!r}, an algorithm docs-mcp cannot check; it was not used.",
            "PyPI states sha256 digests and npm sha512 integrity: check DOCS_MCP_PYPI_URL / DOCS_MCP_NPM_URL, or ask the mirror's operator to state one of those.",
        )
    if actual != expected:
        raise PackageFetchError(
            f"The archive of version {release.version} does not match the registry's {algorithm} digest; it was not used.",
            "The download was corrupted or the mirror altered it: try again, or check DOCS_MCP_PYPI_URL / DOCS_MCP_NPM_URL.",
        )
    return release.digest


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
