"""resolve_library looks names the index does not hold up in PyPI and npm (a real server, the loopback registry),
and says in one line when a registry cannot be reached."""

from __future__ import annotations

from pathlib import Path

from loopback_registry import LoopbackRegistry
from mcp_session import serve_over_stdio


def test_an_unknown_name_is_looked_up_in_both_registries_and_an_outage_is_one_line(
    registry: LoopbackRegistry, versions_index: Path, tmp_path: Path
) -> None:
    env = registry.environment(DOCS_MCP_REGISTRY_LOOKUPS="1", DOCS_MCP_REGISTRY_CACHE=str(tmp_path / "registry.sqlite"))
    with serve_over_stdio(versions_index, tmp_path / "server.log", env=env) as server:
        answer = server.json("resolve_library", {"query": "ms", "language": "python"})
        assert (
            answer["results"] == [] and "packages" not in answer and registry.requests == ["/pypi/ms/json"]
        )  # python: PyPI only
        registry.requests.clear()
        tomli = server.json("resolve_library", {"query": "tomli"})
        assert "packages" not in tomli and registry.requests == []  # the index holds it: nobody was asked
        unknown = server.json("resolve_library", {"query": "ms", "language": "javascript"})
        assert [r["library_id"] for r in unknown["results"]] == ["npm/ms/v2.1.3"] and "packages" not in unknown
        registry.requests.clear()
        found = server.json("resolve_library", {"query": "left-pad"})
        assert sorted(registry.requests) == ["/left-pad", "/pypi/left-pad/json"]  # both registries, once each
        assert found["results"] == [] and "packages" not in found and "registry_note" not in found  # neither has it
        server.json("resolve_library", {"query": "left-pad"})
        assert len(registry.requests) == 2  # their "no" is cached for the TTL
        registry.down = True
        offline = server.json("resolve_library", {"query": "chalkboard-renderer"})
        assert offline["results"] == [] and "packages" not in offline
        assert offline["registry_note"].count("could not be reached") == 2 and "\n" not in offline["registry_note"]


def test_a_registry_package_shows_name_summary_licence_versions_and_how_to_add_it(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    index = _index_without_packages(tmp_path)
    env = registry.environment(DOCS_MCP_REGISTRY_LOOKUPS="1")
    with serve_over_stdio(index, tmp_path / "server.log", env=env) as server:
        answer = server.json("resolve_library", {"query": "tomli"})
    (package,) = answer["packages"]
    assert package["registry"] == "pypi" and package["library_id"] == "pypi/tomli" and package["indexed"] is False
    assert (package["summary"], package["license"], package["latest"]) == ("A lil' TOML parser", "MIT", "2.5.0")
    assert package["versions"][:3] == ["2.5.0", "2.4.1", "2.4.0"] and package["version_count"] == 32
    assert (
        package["repository"] == "https://github.com/hukkin/tomli"
        and package["add"] == "docs-mcp add pypi:tomli==2.5.0"
    )
    assert "packages" in answer["hint"]


def test_the_offer_is_the_version_the_project_pins_and_typescript_asks_npm(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    import json

    index = _index_without_packages(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"dependencies": {"ms": "^2.0.0"}}))
    lock = {
        "lockfileVersion": 3,
        "packages": {"": {"dependencies": {"ms": "^2.0.0"}}, "node_modules/ms": {"version": "2.0.0"}},
    }
    (project / "package-lock.json").write_text(json.dumps(lock))
    env = registry.environment(DOCS_MCP_REGISTRY_LOOKUPS="1", DOCS_MCP_PROJECT=str(project))
    with serve_over_stdio(index, tmp_path / "server.log", env=env) as server:
        answer = server.json("resolve_library", {"query": "ms", "language": "typescript"})
    assert registry.requests == ["/ms"]  # typescript is npm's
    (package,) = answer["packages"]
    assert package["latest"] == "2.1.3" and package["pinned"] == "2.0.0"
    assert package["add"] == "docs-mcp add npm:ms@2.0.0"  # the project's version, not the newest


def _index_without_packages(tmp_path: Path) -> Path:
    """A real index (full text only) of one small page, which names no package."""
    from docs_mcp.indexer import build_index

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nA small guide about deployment and configuration.\n")
    build_index(docs, tmp_path / "index", embeddings="none")
    return tmp_path / "index"
