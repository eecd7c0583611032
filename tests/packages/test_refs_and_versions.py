"""Package specs, the version ID grammar, version order and version ranges."""

from __future__ import annotations

import pytest

from docs_mcp.indexer.errors import LibraryError, PackageSpecError
from docs_mcp.indexer.libraries.spec import check_library_id
from docs_mcp.indexer.libraries.versions import LibraryRef, default_versions, newest, parse_ref, version_facet
from docs_mcp.indexer.sources.packages.refs import parse_package_spec
from docs_mcp.indexer.sources.packages.specifiers import best_version


@pytest.mark.parametrize(
    ("spec", "library_id", "shown"),
    [
        ("pypi:Tomli==2.0.1", "pypi/tomli/v2.0.1", "pypi:tomli==2.0.1"),
        ("pypi:zope.interface==6.0", "pypi/zope-interface/v6.0", "pypi:zope-interface==6.0"),
        ("npm:ms@2.1.3", "npm/ms/v2.1.3", "npm:ms@2.1.3"),
        ("npm:@types/node@20.1.0", "npm-types/node/v20.1.0", "npm:@types/node@20.1.0"),
        ("npm:react@v18.2.0", "npm/react/v18.2.0", "npm:react@18.2.0"),
    ],
)
def test_a_package_spec_names_a_library_at_a_version(spec: str, library_id: str, shown: str) -> None:
    ref = parse_package_spec(spec)
    assert (ref.library_id, str(ref)) == (library_id, shown)
    assert check_library_id(library_id) == library_id


@pytest.mark.parametrize(
    "spec", ["pypi:", "requests", "cargo:serde", "pypi:../etc==1", "npm:@scope", "pypi:x==latest", "npm:Bad Name"]
)
def test_a_malformed_spec_says_how_to_write_one(spec: str) -> None:
    with pytest.raises(PackageSpecError) as raised:
        parse_package_spec(spec)
    assert "pypi:" in raised.value.hint or "version" in raised.value.hint


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("pypi/tomli", LibraryRef("pypi/tomli")),
        ("pypi/tomli/v2.0.1", LibraryRef("pypi/tomli", "2.0.1")),
        ("/vercel/next.js/v14.3.0-canary.87", LibraryRef("vercel/next.js", "14.3.0-canary.87")),
        ("pypi/tomli@2.0.1", LibraryRef("pypi/tomli", "2.0.1")),
        ("acme/sdk@v1!2.0+local.1", LibraryRef("acme/sdk", "1!2.0+local.1")),
        ("pypi/tomli/2.0.1", None),
        ("pypi/tomli/vlatest", None),
        ("pypi", None),
    ],
)
def test_the_version_id_grammar(text: str, ref: LibraryRef | None) -> None:
    assert parse_ref(text) == ref


def test_a_library_id_with_a_broken_version_is_refused() -> None:
    with pytest.raises(LibraryError):
        check_library_id("pypi/tomli/v")


def test_newest_prefers_final_releases_and_orders_numbers_as_numbers() -> None:
    assert newest(["1.9.0", "1.10.0", "2.0.0rc1", "1.10.0.post1"]) == "1.10.0.post1"
    assert newest(["2.0.0-canary.3", "2.0.0-canary.12"]) == "2.0.0-canary.12"
    assert newest(["3.0.0-rc.1", "2.9.9"]) == "2.9.9"


def test_the_pinned_version_answers_for_the_library_else_the_newest() -> None:
    entries = {"pypi/tomli/v1.2.3": {}, "pypi/tomli/v2.0.1": {}, "npm/ms/v2.1.3": {}, "acme/cli": {}}
    assert default_versions(entries) == {"npm/ms": "npm/ms/v2.1.3", "pypi/tomli": "pypi/tomli/v2.0.1"}
    entries["pypi/tomli/v1.2.3"] = {"pinned": True}
    assert default_versions(entries)["pypi/tomli"] == "pypi/tomli/v1.2.3"
    facet = version_facet(entries)
    assert facet["aliases"]["pypi/tomli"] == "pypi/tomli/v1.2.3"
    assert facet["unfiltered_values"] == ["acme/cli", "npm/ms/v2.1.3", "pypi/tomli/v1.2.3"]


@pytest.mark.parametrize(
    ("ecosystem", "specifier", "chosen"),
    [
        ("npm", "^1.2.3", "1.3.0"),
        ("npm", "~1.2.3", "1.2.4"),
        ("npm", ">=1.3 <2", "1.3.0"),
        ("npm", "1.x || >=2.1", "2.1.0"),
        ("npm", "^0.2.5", "0.2.9"),
        ("npm", "1.2.3 - 1.2", "1.2.4"),
        ("npm", "^2.0.0-rc.1", "2.1.0"),
        ("npm", ">2.0.0-rc.0 <2.0.1", "2.0.0"),
        ("npm", "*", "2.1.0"),
        ("npm", "^9", ""),
        ("pypi", ">=1.2,<2", "1.3.0"),
        ("pypi", "~=1.2.3", "1.2.4"),
        ("pypi", "==2.0.0rc1", "2.0.0rc1"),
    ],
)
def test_a_range_picks_the_newest_release_it_allows(ecosystem: str, specifier: str, chosen: str) -> None:
    versions = [
        "1.2.3",
        "1.2.4",
        "1.3.0",
        "2.0.0-rc.1" if ecosystem == "npm" else "2.0.0rc1",
        "2.0.0",
        "2.1.0",
        "0.2.5",
        "0.2.9",
        "0.3.0",
    ]
    assert best_version(ecosystem, specifier, versions) == chosen
