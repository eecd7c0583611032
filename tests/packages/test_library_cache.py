"""The per-user library cache (indexer/libraries/build_cache.py): a release built once per machine is reused by every
project's `sync` and `add`, with no registry request, no download and no embedding; another model or version misses,
a corrupted entry is deleted and built again, two syncs at once are safe, and `docs-mcp cache` lists, prunes and clears.

Real parts throughout: the loopback registry serving recorded PyPI and npm documents and archives (tests/packages/
registry/README.md says where they come from), the CLI as a subprocess, the default model, real DuckDB files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from loopback_registry import LoopbackRegistry

from docs_mcp.indexer.libraries import build_cache
from docs_mcp.indexer.libraries.build_cache import CacheKey, LibraryCache

LIBRARIES = {"pypi/tomli/v1.2.3", "npm/ms/v2.0.0"}


def _project(root: Path, tomli: str = "1.2.3") -> Path:
    """A project locking tomli (requirements.txt) and ms (package-lock.json): sync plans it without the registry."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text(f"tomli=={tomli}\n")
    (root / "package.json").write_text(json.dumps({"name": "app", "dependencies": {"ms": "^2.0.0"}}))
    (root / "package-lock.json").write_text(
        json.dumps({"lockfileVersion": 3, "packages": {"": {}, "node_modules/ms": {"version": "2.0.0"}}})
    )
    return root


def _run(registry: LoopbackRegistry, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **registry.environment(DOCS_MCP_LIBRARY_CACHE=str(cache))}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, check=False, timeout=600
    )


def _sync(registry: LoopbackRegistry, cache: Path, project: Path, index: Path, *extra: str) -> dict[str, dict]:
    done = _run(registry, cache, "sync", str(project), "--index", str(index), "--json", *extra)
    assert done.returncode == 0, done.stderr
    return {row["library_id"]: row for row in json.loads(done.stdout)["dependencies"]}


def _catalog(index: Path) -> dict:
    return json.loads((index / "metadata.json").read_text())["libraries"]


def test_a_second_project_locking_the_same_versions_downloads_nothing_and_embeds_nothing(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    assert set(first) == LIBRARIES and all(row["status"] == "added" and not row["from_cache"] for row in first.values())
    assert all(row["embedded"] > 0 for row in first.values()) and registry.requests  # built: downloaded, embedded
    assert {entry.library_id for entry in LibraryCache(cache).entries()} == LIBRARIES

    registry.requests.clear()
    second = _sync(registry, cache, _project(tmp_path / "two"), tmp_path / "two-index")
    assert all(row["status"] == "added" and row["from_cache"] for row in second.values())
    assert [row["embedded"] for row in second.values()] == [0, 0]
    assert registry.requests == []  # not one registry document, archive or GitHub API request
    # The second project's index holds the same libraries as the first's: same documents, chunks, provenance, pins.
    one, two = _catalog(tmp_path / "one-index"), _catalog(tmp_path / "two-index")
    for library_id in LIBRARIES:
        same = ("stats", "toc", "provenance", "package", "sources", "source", "pinned", "added_by")
        assert {k: one[library_id][k] for k in same} == {k: two[library_id][k] for k in same}
        assert two[library_id]["pinned"] and two[library_id]["added_by"] == "sync"

    # `docs-mcp add` of a cached release by its version asks the registry nothing either, also into an index that
    # holds other libraries (their vectors come from its live generation, the added one's from the cache).
    for spec in ("npm:ms@2.0.0", "pypi:tomli==1.2.3"):
        added = _run(registry, cache, "add", spec, "--index", str(tmp_path / "three-index"))
        assert added.returncode == 0, added.stderr
        assert "(from the library cache: nothing downloaded, 0 windows embedded)" in added.stdout, added.stdout
    assert registry.requests == [] and set(_catalog(tmp_path / "three-index")) == LIBRARIES


def test_another_model_or_another_version_misses(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    registry.requests.clear()
    full_text = _sync(registry, cache, _project(tmp_path / "two"), tmp_path / "two-index", "--model", "none")
    assert not any(row["from_cache"] for row in full_text.values()) and registry.requests
    registry.requests.clear()
    again = _sync(registry, cache, _project(tmp_path / "three"), tmp_path / "three-index", "--model", "none")
    assert all(row["from_cache"] for row in again.values()) and registry.requests == []

    # A dry run says which releases the cache holds for this index's model, and builds nothing.
    planned = _sync(registry, cache, _project(tmp_path / "four", tomli="2.0.1"), tmp_path / "four-index", "--dry-run")
    assert {k: (row["status"], row["from_cache"]) for k, row in planned.items()} == {
        "pypi/tomli/v2.0.1": ("would fetch", False), "npm/ms/v2.0.0": ("would reuse", True)}  # fmt: skip
    table = _run(registry, cache, "sync", str(tmp_path / "four"), "--index", str(tmp_path / "four-index"), "--dry-run")
    assert table.returncode == 0, table.stderr
    ms_line = next(line for line in table.stdout.splitlines() if "npm/ms/v2.0.0" in line)
    assert ms_line.startswith("would reuse") and "from the library cache: nothing to download or embed" in ms_line
    assert not (tmp_path / "four-index").exists()
    other_model = _run(registry, cache, "sync", str(tmp_path / "four"), "--index", str(tmp_path / "x"), "--dry-run",
                      "--json", "--model", "minilm-static")  # fmt: skip
    assert {row["status"] for row in json.loads(other_model.stdout)["dependencies"]} == {"would fetch"}

    moved = _sync(registry, cache, _project(tmp_path / "four", tomli="2.0.1"), tmp_path / "four-index")
    assert not moved["pypi/tomli/v2.0.1"]["from_cache"] and moved["npm/ms/v2.0.0"]["from_cache"]
    assert any("/pypi/tomli/" in path for path in registry.requests)
    assert not any("/ms" in path for path in registry.requests)


def test_a_corrupted_entry_is_deleted_and_built_again(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    (entry,) = [e for e in LibraryCache(cache).entries() if e.library_id == "pypi/tomli/v1.2.3"]
    chunks = entry.path / "chunks.json"  # still well-formed: only its checksum can tell
    chunks.write_text(
        chunks.read_text().replace('"content":"', '"content":"Injected text that no release of tomli holds. ', 1)
    )

    registry.requests.clear()
    second = _sync(registry, cache, _project(tmp_path / "two"), tmp_path / "two-index")
    tomli = second["pypi/tomli/v1.2.3"]
    assert not tomli["from_cache"] and tomli["embedded"] > 0 and second["npm/ms/v2.0.0"]["from_cache"]
    assert any("failed its check and was deleted" in note for note in tomli["notes"])
    assert any("/pypi/tomli/" in path for path in registry.requests)
    index = tmp_path / "two-index"
    assert "Injected text" not in "".join(p.read_text(errors="replace") for p in index.rglob("*.json"))

    registry.requests.clear()  # the entry was stored again, whole: the next project takes it
    third = _sync(registry, cache, _project(tmp_path / "three"), tmp_path / "three-index")
    assert all(row["from_cache"] for row in third.values()) and registry.requests == []


def test_two_syncs_at_once_both_succeed_and_leave_one_entry_per_release(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, **registry.environment(DOCS_MCP_LIBRARY_CACHE=str(cache))}
    running = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "docs_mcp",
                "sync",
                str(_project(tmp_path / name)),
                "--index",
                str(tmp_path / f"{name}-index"),
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )  # fmt: skip
        for name in ("one", "two")
    ]
    for process in running:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert {row["status"] for row in json.loads(out)["dependencies"]} == {"added"}
    entries = LibraryCache(cache).entries()
    assert sorted(entry.library_id for entry in entries) == sorted(LIBRARIES)  # one each, whichever stored first
    assert not any((cache / ".incoming").glob("*"))

    registry.requests.clear()
    third = _sync(registry, cache, _project(tmp_path / "three"), tmp_path / "three-index")
    assert all(row["from_cache"] and row["embedded"] == 0 for row in third.values()) and registry.requests == []


def test_cache_command_lists_prunes_and_clears(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    listed = _run(registry, cache, "cache", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["entries"]
    assert {row["library_id"] for row in rows} == LIBRARIES and all(row["bytes"] > 0 for row in rows)
    assert {row["model"] for row in rows} == {"sentence-transformers/all-MiniLM-L6-v2"}

    pruned = _run(registry, cache, "cache", "prune", "--max-mb", "0")
    assert pruned.returncode == 0, pruned.stderr
    assert "removed 2 entries" in pruned.stdout and LibraryCache(cache).entries() == []

    _sync(registry, cache, _project(tmp_path / "two"), tmp_path / "two-index")
    cleared = _run(registry, cache, "cache", "clear")
    assert cleared.returncode == 0 and "removed 2 entries" in cleared.stdout
    assert LibraryCache(cache).entries() == []


def test_eviction_deletes_the_entry_used_longest_ago(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")  # stores ms, then tomli
    only_ms = tmp_path / "two"
    only_ms.mkdir()
    for name in ("package.json", "package-lock.json"):
        (only_ms / name).write_text((tmp_path / "one" / name).read_text())
    assert all(row["from_cache"] for row in _sync(registry, cache, only_ms, tmp_path / "two-index").values())

    ms = next(e for e in LibraryCache(cache).entries() if e.library_id == "npm/ms/v2.0.0")
    removed = LibraryCache(cache).evict(max_bytes=ms.bytes)  # room for one: the one used last stays
    assert [entry.library_id for entry in removed] == ["pypi/tomli/v1.2.3"]
    assert [entry.library_id for entry in LibraryCache(cache).entries()] == ["npm/ms/v2.0.0"]


def test_no_secret_of_a_registry_url_reaches_the_cache(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    # A mirror whose archive URLs carry a token (the server ignores the query).
    registry.lie = lambda name, text: text.replace("/ms/-/ms-2.0.0.tgz", "/ms/-/ms-2.0.0.tgz?token=s3cret-value")
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    assert "s3cret-value" in (tmp_path / "one-index" / "metadata.json").read_text()  # the project's index has it
    stored = [p for p in cache.rglob("*") if p.is_file()]
    assert stored and not any(b"s3cret-value" in p.read_bytes() for p in stored)


def test_a_cache_that_cannot_be_written_costs_a_note_never_the_sync(registry: LoopbackRegistry, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    rows = _sync(registry, blocker / "cache", _project(tmp_path / "one"), tmp_path / "one-index")
    assert all(row["status"] == "added" for row in rows.values())
    for row in rows.values():
        assert any(f"library cache: {row['library_id']} was not stored in" in note for note in row["notes"]), row[
            "notes"
        ]
    assert set(_catalog(tmp_path / "one-index")) == LIBRARIES


def test_the_cache_command_says_when_the_cache_is_off(tmp_path: Path) -> None:
    env = {**os.environ, "DOCS_MCP_LIBRARY_CACHE": "off"}
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "cache"], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "error: The library cache is turned off (DOCS_MCP_LIBRARY_CACHE=off)." in done.stderr
    assert "hint: Unset DOCS_MCP_LIBRARY_CACHE, or set it to the cache's folder." in done.stderr


def test_an_entry_recording_another_key_is_deleted_and_built_again(registry: LoopbackRegistry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _sync(registry, cache, _project(tmp_path / "one"), tmp_path / "one-index")
    entries = {entry.library_id: entry.path for entry in LibraryCache(cache).entries()}
    ms = entries["npm/ms/v2.0.0"]
    shutil.rmtree(ms)
    shutil.copytree(entries["pypi/tomli/v1.2.3"], ms)  # whole and checksummed: only its key tells it is tomli's

    registry.requests.clear()
    second = _sync(registry, cache, _project(tmp_path / "two"), tmp_path / "two-index")
    assert not second["npm/ms/v2.0.0"]["from_cache"] and second["pypi/tomli/v1.2.3"]["from_cache"]
    assert any("records another key" in note for note in second["npm/ms/v2.0.0"]["notes"])
    assert _catalog(tmp_path / "two-index")["npm/ms/v2.0.0"]["package"]["name"] == "ms"


def test_a_release_built_by_an_older_pages_format_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A docs-mcp that reads pages differently (MyST, the code literalincludes show) must not serve a release
    # with the text an older one made of it: the pages format is part of the key.
    cache = LibraryCache(tmp_path / "cache")
    key = CacheKey("pypi/tomli/v2.0.1", "https://pypi.org", "none")
    assert cache.store(key, {"note": "built"}, lambda folder: (folder / "chunks.json").write_text("[]"))
    assert cache.holds(key) and cache.lookup(key).folder is not None
    monkeypatch.setattr(build_cache, "PAGES_FORMAT", "1")  # an entry of the previous format, seen from now on
    assert not cache.holds(key) and cache.lookup(key).folder is None
