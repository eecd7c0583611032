"""A hostile registry on loopback: the recorded PyPI and npm documents with lies in them (fields of the wrong shape,
digests in algorithms nobody can check, versions that would climb out of a library ID). Each is one clear error
naming the package and the field, a refusal, or a version left out: never a traceback, never accepted unchecked."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loopback_registry import LoopbackRegistry, client_for

from docs_mcp.indexer.errors import PackageFetchError, PackageSpecError
from docs_mcp.indexer.sources.packages.refs import PYPI, package_ref, parse_package_spec


def _lie(
    package: str, edit: Callable[[dict[str, Any]], None], raw: Callable[[str], str] = lambda text: text
) -> Callable[[str, str], str]:
    """A rewrite of ``package``'s document: ``edit`` on its JSON, then ``raw`` on its text (for what JSON cannot say)."""

    def rewrite(name: str, text: str) -> str:
        if name != package:
            return text
        document = json.loads(text)
        edit(document)
        return raw(json.dumps(document))

    return rewrite


def _each_file(version: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        for file in document["releases"][version]:
            file[key] = value

    return edit


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


LIES = {
    "size-abc": (
        "pypi",
        "tomli",
        _lie("tomli", _each_file("2.0.1", "size", "abc")),
        r"releases\['2.0.1'\]\[\d\]\.size is 'abc', not a count of bytes",
    ),
    "size-1e400": (
        "pypi",
        "tomli",
        _lie("tomli", _each_file("2.0.1", "size", "HUGE"), lambda t: t.replace('"HUGE"', "1e400")),
        r"releases\['2.0.1'\]\[\d\]\.size is inf, not a count of bytes",
    ),
    "project-urls-list": (
        "pypi",
        "tomli",
        _lie("tomli", _set(("info", "project_urls"), ["https://example.org"])),
        r"info\.project_urls is \['https://example.org'\], not an object",
    ),
    "classifiers-number": (
        "pypi",
        "tomli",
        _lie("tomli", _set(("info", "classifiers"), 5)),
        r"info\.classifiers is 5, not an array",
    ),
    "releases-list": (
        "pypi",
        "tomli",
        _lie("tomli", _set(("releases",), ["2.0.1"])),
        r"releases is \['2.0.1'\], not an object",
    ),
    "unpacked-size-abc": (
        "npm",
        "ms",
        _lie("ms", _set(("versions", "2.1.3", "dist", "unpackedSize"), "abc")),
        r"versions\['2.1.3'\]\.dist\.unpackedSize is 'abc', not a count of bytes",
    ),
    "dist-tags-string": (
        "npm",
        "ms",
        _lie("ms", _set(("dist-tags",), "2.1.3")),
        r"dist-tags is '2.1.3', not an object",
    ),
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_document_field_of_the_wrong_shape_is_one_line_naming_the_package_and_the_field(
    registry: LoopbackRegistry, tmp_path: Path, lie: str
) -> None:
    ecosystem, name, rewrite, field = LIES[lie]
    registry.lie = rewrite
    client = client_for(registry, tmp_path / "index")
    try:
        with pytest.raises(PackageFetchError) as raised:
            client.package(ecosystem, name)
        looked_up = client.lookup(ecosystem, name)  # resolve_library's lookup says why it has nothing, never raises
        assert looked_up.info is None and looked_up.offline == raised.value.message
    finally:
        client.close()
    registry_name = "PyPI" if ecosystem == "pypi" else "npm"
    assert raised.value.message.startswith(f"{registry_name}'s document for '{name}' cannot be used: ")
    assert "\n" not in raised.value.message and raised.value.hint
    assert re.search(field, raised.value.message), raised.value.message


@pytest.mark.parametrize(("ecosystem", "spec", "rewrite", "algorithm"), [
    ("pypi", "pypi:tomli==2.0.1", _lie("tomli", _each_file("2.0.1", "digests", {"md5": "0" * 32})), "'md5'"),
    ("npm", "npm:ms@2.1.3", _lie("ms", _set(("versions", "2.1.3", "dist", "integrity"), "sha3-AAAA sha999-BBBB")), "'sha3, sha999'"),
])  # fmt: skip
def test_a_digest_in_an_algorithm_docs_mcp_cannot_check_is_refused_not_taken_as_checked(
    registry: LoopbackRegistry,
    tmp_path: Path,
    ecosystem: str,
    spec: str,
    rewrite: Callable[[str, str], str],
    algorithm: str,
) -> None:
    registry.lie = rewrite
    client = client_for(registry, tmp_path / "index")
    try:
        _info, release = client.release(parse_package_spec(spec))
        with pytest.raises(
            PackageFetchError, match=f"has a digest in {algorithm}, an algorithm docs-mcp cannot check; it was not used"
        ):
            client.download(release)
    finally:
        client.close()


def test_a_version_that_would_climb_out_of_its_library_id_is_left_out_and_never_chosen(
    registry: LoopbackRegistry, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    evil = "1.0/../../x"

    def edit(document: dict[str, Any]) -> None:
        document["releases"] = {
            "2.0.1": document["releases"]["2.0.1"],
            evil: document["releases"]["2.0.1"],
            "3.0..1": [],
        }
        document["info"]["version"] = evil

    registry.lie = _lie("tomli", edit)
    client = client_for(registry, tmp_path / "index")
    try:
        with caplog.at_level(logging.WARNING):
            info, release = client.release(package_ref(PYPI, "tomli"))
    finally:
        client.close()
    assert info.versions == ["2.0.1"] and release.version == "2.0.1" and info.latest == ""
    assert any(
        "lists version '1.0/../../x' in releases" in r.getMessage() and "left out" in r.getMessage()
        for r in caplog.records
    )
    for version in (evil, "1..0", "1.0\\x", "1.0\x00", "1.0\x1b"):
        with pytest.raises(PackageSpecError):
            package_ref(PYPI, "tomli", version)
