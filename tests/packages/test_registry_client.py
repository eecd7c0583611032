"""The registry client against a loopback registry serving recorded PyPI and npm data: metadata, cache, outages, digests."""

from __future__ import annotations

from pathlib import Path

import pytest
from loopback_registry import client_for

from docs_mcp.indexer.errors import PackageFetchError, PackageNotFoundError
from docs_mcp.indexer.sources.packages.metadata_cache import MetadataCache
from docs_mcp.indexer.sources.packages.refs import parse_package_spec
from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings


def test_the_pypi_document_gives_name_summary_licence_urls_versions_and_archives(registry, tmp_path: Path) -> None:
    client = client_for(registry, tmp_path)
    try:
        info = client.package("pypi", "tomli")
    finally:
        client.close()
    assert (info.name, info.summary, info.license, info.latest) == ("tomli", "A lil' TOML parser", "MIT", "2.5.0")
    assert info.repository == info.homepage == "https://github.com/hukkin/tomli"
    assert len(info.versions) == 32 and info.versions[:2] == ["0.2.0", "0.2.1"]
    release = info.releases["2.0.1"]
    # The mirror served relative file URLs: resolved against the document, they reach the registry that served it.
    assert release.archive_kind == "sdist" and release.archive_url.startswith(registry.url + "/packages/")
    assert release.digest == "sha256:de526c12914f0c550d15924c62d72abc48d6fe7364aa87328337a31007fe8a4f"


def test_the_npm_document_gives_the_latest_manifests_metadata_and_every_tarball(registry, tmp_path: Path) -> None:
    client = client_for(registry, tmp_path)
    try:
        info = client.package("npm", "ms")
    finally:
        client.close()
    assert (info.name, info.latest, info.license, info.repository) == (
        "ms",
        "2.1.3",
        "MIT",
        "https://github.com/vercel/ms",
    )
    assert info.summary == "Tiny millisecond conversion utility"
    assert info.releases["2.1.3"].archive_url == f"{registry.url}/ms/-/ms-2.1.3.tgz"
    assert info.releases["2.1.3"].digest.startswith("sha512-")
    assert info.newest == "2.1.3"  # the latest dist-tag, not the 4.0.0 nightlies


def test_answers_are_cached_for_the_ttl_then_revalidated_with_their_etag(registry, tmp_path: Path) -> None:
    cache = MetadataCache(tmp_path / "registry.sqlite", clock=lambda: now[0])
    now = [1000.0]
    settings = RegistrySettings.for_index(tmp_path, registry.environment(DOCS_MCP_REGISTRY_TTL_HOURS="1"))
    client = RegistryClient(settings, delays=(), cache=cache)
    try:
        client.package("npm", "ms")
        client.package("npm", "ms")
        assert registry.requests == ["/ms"]  # the second answer came from the cache
        now[0] += 3601
        assert client.package("npm", "ms").latest == "2.1.3"
        assert registry.requests == ["/ms", "/ms"]  # revalidated: the registry answered 304, nothing downloaded
    finally:
        client.close()
        cache.close()


def test_an_unknown_package_or_version_names_what_exists(registry, tmp_path: Path) -> None:
    client = client_for(registry, tmp_path)
    try:
        with pytest.raises(PackageNotFoundError, match="PyPI has no package 'no-such-package'"):
            client.package("pypi", "no-such-package")
        with pytest.raises(PackageNotFoundError, match="no version 9.9.9 of tomli") as raised:
            client.release(parse_package_spec("pypi:tomli==9.9.9"))
        assert "2.5.0, 2.4.1" in raised.value.hint
        with pytest.raises(PackageNotFoundError):
            client.package("pypi", "no-such-package")  # the registry's "no" is cached too
        assert registry.requests.count("/pypi/no-such-package/json") == 1
    finally:
        client.close()


def test_a_registry_outage_serves_the_cached_answer_and_otherwise_says_so(registry, tmp_path: Path) -> None:
    client = client_for(registry, tmp_path, DOCS_MCP_REGISTRY_TTL_HOURS="0")
    try:
        client.package("npm", "ms")
        registry.down = True
        assert client.package("npm", "ms").latest == "2.1.3"  # stale, but better than nothing
        lookup = client.lookup("pypi", "tomli")
        assert lookup.info is None and "PyPI could not be reached" in lookup.offline
        with pytest.raises(PackageFetchError, match="PyPI cannot be reached"):
            client.package("pypi", "tomli")
    finally:
        client.close()


def test_an_archive_that_does_not_match_the_registry_digest_is_refused(registry, tmp_path: Path) -> None:
    client = client_for(registry, tmp_path)
    try:
        _info, release = client.release(parse_package_spec("npm:ms@2.0.0"))
        assert client.download(release).digest == release.digest
        registry.tamper = True
        with pytest.raises(PackageFetchError, match="does not match the registry's sha512 digest"):
            client.download(release)
    finally:
        client.close()


def test_registry_requests_never_reach_private_addresses_unless_the_operator_trusts_the_network(
    registry, tmp_path: Path
) -> None:
    refused = RegistryClient(RegistrySettings.for_index(tmp_path, {"DOCS_MCP_PYPI_URL": registry.url}), delays=())
    trusted = RegistryClient(
        RegistrySettings.for_index(
            tmp_path / "b", {"DOCS_MCP_PYPI_URL": registry.url, "DOCS_MCP_REGISTRY_NETWORKS": "127.0.0.0/8"}
        ),
        delays=(),
    )
    try:
        with pytest.raises(PackageFetchError, match="loopback") as refusal:
            refused.package("pypi", "tomli")
        assert "DOCS_MCP_REGISTRY_NETWORKS=10.20.0.0/16" in refusal.value.hint  # what to do when it is a mirror
        assert trusted.package("pypi", "tomli").name == "tomli"
    finally:
        refused.close()
        trusted.close()
