"""`docs-mcp sync` on real project files against the loopback registry: locked versions indexed and pinned, the
pinned version answering for its library, unknown dependencies reported, a second run fetching nothing, a new lock
replacing the version sync pinned before, and `docs-mcp add` through the same registry."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from loopback_registry import LoopbackRegistry

UV_LOCK = """version = 1
requires-python = ">=3.10"

[[package]]
name = "app"
version = "0.1.0"
source = {{ virtual = "." }}
dependencies = [{{ name = "tomli" }}, {{ name = "no-such-package" }}]

[[package]]
name = "tomli"
version = "{tomli}"
source = {{ registry = "https://pypi.org/simple" }}

[[package]]
name = "no-such-package"
version = "1.0.0"
source = {{ registry = "https://pypi.org/simple" }}
"""


def _project(root: Path, tomli: str) -> Path:
    root.mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["tomli>=1", "no-such-package"]\n'
    )
    (root / "uv.lock").write_text(UV_LOCK.format(tomli=tomli))
    (root / "package.json").write_text(json.dumps({"name": "app", "dependencies": {"ms": "^2.0.0"}}))
    (root / "package-lock.json").write_text(
        json.dumps({"lockfileVersion": 3, "packages": {"": {}, "node_modules/ms": {"version": "2.0.0"}}})
    )
    return root


def _cli(registry: LoopbackRegistry, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **registry.environment()}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, check=False, timeout=600
    )


def _catalog(index: Path) -> dict:
    return json.loads((index / "metadata.json").read_text())["libraries"]


def test_sync_indexes_locked_versions_reports_unknown_ones_and_a_rerun_fetches_nothing(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project, index = _project(tmp_path / "app", tomli="1.2.3"), tmp_path / "index"
    dry = _cli(registry, "sync", str(project), "--index", str(index), "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    planned = {row["name"]: row for row in json.loads(dry.stdout)["dependencies"]}
    assert planned["tomli"]["status"] == "would fetch" and planned["tomli"]["library_id"] == "pypi/tomli/v1.2.3"
    assert planned["ms"]["status"] == "would fetch" and planned["ms"]["library_id"] == "npm/ms/v2.0.0"
    assert not index.exists() and registry.requests == []  # locked versions: planning asked the registry nothing

    # Someone added a newer tomli by hand first: the project's pin must still win.
    assert _cli(registry, "add", "pypi:tomli==2.0.1", "--index", str(index)).returncode == 0
    first = _cli(registry, "sync", str(project), "--index", str(index), "--json")
    assert first.returncode == 0, first.stderr
    outcome = {row["name"]: row for row in json.loads(first.stdout)["dependencies"]}
    assert outcome["tomli"]["status"] == outcome["ms"]["status"] == "added"
    assert all(
        0 <= row["download_seconds"] <= row["seconds"] > 0 for row in (outcome["tomli"], outcome["ms"])
    )  # the rest is indexing (rounded to 0.01 s)
    assert (
        outcome["no-such-package"]["status"] == "failed"
        and "PyPI has no package 'no-such-package'" in outcome["no-such-package"]["detail"]
    )
    assert "1 dependencies have no documentation in the index" in first.stderr
    catalog = _catalog(index)
    assert (
        catalog["pypi/tomli/v1.2.3"]["pinned"]
        and not catalog["pypi/tomli/v2.0.1"]["pinned"]
        and catalog["npm/ms/v2.0.0"]["pinned"]
    )
    taxonomy = json.loads((index / "metadata.json").read_text())["taxonomy"]["library"]
    assert taxonomy["aliases"]["pypi/tomli"] == "pypi/tomli/v1.2.3"  # pinned beats newest

    registry.requests.clear()
    again = _cli(registry, "sync", str(project), "--index", str(index), "--json")
    assert again.returncode == 0, again.stderr
    statuses = {row["name"]: row["status"] for row in json.loads(again.stdout)["dependencies"]}
    assert statuses["tomli"] == statuses["ms"] == "unchanged"
    assert registry.requests == []  # indexed deps: not one request (and the unknown one: the registry's "no" is cached)

    # The lock moves tomli to 2.0.1: sync pins it and drops 1.2.3, which it had added itself.
    _project(project, tomli="2.0.1")
    moved = _cli(registry, "sync", str(project), "--index", str(index), "--json")
    rows = json.loads(moved.stdout)["dependencies"]
    assert any(row["status"] == "removed" and "pypi/tomli/v1.2.3" in row["detail"] for row in rows)
    catalog = _catalog(index)
    assert (
        "pypi/tomli/v1.2.3" not in catalog
        and catalog["pypi/tomli/v2.0.1"]["pinned"]
        and catalog["pypi/tomli/v2.0.1"]["added_by"] == "add"
    )


def test_sync_resolves_an_unlocked_range_to_the_newest_release_it_allows(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project, index = tmp_path / "web", tmp_path / "index"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "web", "dependencies": {"ms": "~2.0.0"}}))
    done = _cli(registry, "sync", str(project), "--index", str(index), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "npm/ms/v2.0.0" in done.stdout and "would fetch" in done.stdout
    assert registry.requests == ["/ms"]


def test_add_reports_an_unknown_version_with_the_newest_ones(registry: LoopbackRegistry, tmp_path: Path) -> None:
    done = _cli(registry, "add", "npm:ms@9.9.9", "--index", str(tmp_path / "index"))
    assert done.returncode == 1 and "npm has no version 9.9.9 of ms" in done.stderr and "2.1.3" in done.stderr
    done = _cli(registry, "add", "cargo:serde", "--index", str(tmp_path / "index"))
    assert done.returncode == 2


def test_add_and_sync_take_the_model_of_a_new_index_and_keep_an_existing_ones(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    added = _cli(registry, "add", "pypi:tomli==2.0.1", "--index", str(index), "--model", "none")
    assert added.returncode == 0, added.stderr
    assert json.loads((index / "metadata.json").read_text()).get("embedding") is None  # full text only, as asked
    # The index exists now: another model asked for later is not mixed in; the index keeps its own.
    more = _cli(registry, "add", "npm:ms@2.0.0", "--index", str(index), "--model", "default")
    assert more.returncode == 0, more.stderr
    metadata = json.loads((index / "metadata.json").read_text())
    assert metadata.get("embedding") is None and {"pypi/tomli/v2.0.1", "npm/ms/v2.0.0"} <= set(metadata["libraries"])

    project, synced = _project(tmp_path / "app", tomli="1.2.3"), tmp_path / "synced"
    done = _cli(registry, "sync", str(project), "--index", str(synced), "--model", "none", "--json")
    assert done.returncode == 0, done.stderr
    metadata = json.loads((synced / "metadata.json").read_text())
    assert metadata.get("embedding") is None and {"pypi/tomli/v1.2.3", "npm/ms/v2.0.0"} <= set(metadata["libraries"])


def _lying_unpacked_size(name: str, text: str) -> str:
    """ms's document with a size no number can be: its 2.0.0 manifest says unpackedSize "abc"."""
    if name != "ms":
        return text
    document = json.loads(text)
    document["versions"]["2.0.0"]["dist"]["unpackedSize"] = "abc"
    return json.dumps(document)


def test_one_bad_package_never_aborts_sync_and_strict_makes_it_an_error(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project, index = _project(tmp_path / "app", tomli="1.2.3"), tmp_path / "index"
    registry.lie = _lying_unpacked_size
    done = _cli(registry, "sync", str(project), "--index", str(index), "--json", "--model", "none")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    outcome = {row["name"]: row for row in json.loads(done.stdout)["dependencies"]}
    assert outcome["tomli"]["status"] == "added"
    assert outcome["ms"]["status"] == "failed"
    assert (
        "npm's document for 'ms' cannot be used: versions['2.0.0'].dist.unpackedSize is 'abc', not a count of bytes."
        in outcome["ms"]["detail"]
    )
    assert "2 dependencies have no documentation in the index (see above); the others are indexed." in done.stderr

    strict = _cli(registry, "sync", str(project), "--index", str(index), "--strict")
    assert strict.returncode == 1
    assert (
        "error: 2 dependencies have no documentation in the index: npm:ms@2.0.0, pypi:no-such-package==1.0.0."
        in strict.stderr
    )
    assert "hint: Each one's reason is in the table above (DETAIL)" in strict.stderr
    assert (
        "unchanged" in strict.stdout and "versions['2.0.0'].dist.unpackedSize" in strict.stdout
    )  # the table is printed first


def test_ctrl_c_during_sync_says_what_was_indexed_and_what_was_not_and_exits_130(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project, index = _project(tmp_path / "app", tomli="1.2.3"), tmp_path / "index"
    registry.hold = "/ms-2.0.0.tgz"  # ms's download hangs until the test lets it go
    env = {**os.environ, **registry.environment()}
    process = subprocess.Popen([sys.executable, "-m", "docs_mcp", "sync", str(project), "--index", str(index), "--model", "none"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        assert registry.held.wait(timeout=300)
        lines = []
        for line in process.stderr:  # the progress lines, one per dependency finished
            lines.append(line)
            if line.startswith("added") and "pypi:tomli==1.2.3" in line:
                break
        process.send_signal(signal.SIGINT)
        stdout, rest = process.communicate(timeout=120)
    finally:
        registry.let_go.set()
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = "".join(lines) + rest
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert ("interrupted: 2 dependencies done (listed above), 1 not: npm:ms@2.0.0. "
            "What is indexed stays: run docs-mcp sync again to do the rest.") in stderr  # fmt: skip
    assert "pypi/tomli/v1.2.3" in stdout and "ms" not in stdout.split("read ", 1)[1].split("\n", 1)[1]
    assert "pypi/tomli/v1.2.3" in _catalog(index)


def test_ctrl_c_while_sync_reads_the_registries_says_nothing_was_indexed_and_exits_130(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project = tmp_path / "web"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "web", "dependencies": {"ms": "~2.0.0"}})
    )  # unlocked: planning asks npm
    registry.hold = "/ms"
    env = {**os.environ, **registry.environment()}
    process = subprocess.Popen([sys.executable, "-m", "docs_mcp", "sync", str(project), "--index", str(tmp_path / "index")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        assert registry.held.wait(timeout=300)
        process.send_signal(signal.SIGINT)
        _stdout, stderr = process.communicate(timeout=120)
    finally:
        registry.let_go.set()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert (
        stderr.strip().splitlines()[-1]
        == "interrupted: nothing was indexed (sync was reading the registries): run docs-mcp sync again."
    )
