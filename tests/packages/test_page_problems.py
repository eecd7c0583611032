"""A release whose archive holds hostile pages (an rst include of ../../etc/passwd, a notebook nested 150 deep) is
indexed without them, and `add pypi:` and `sync` say which page was skipped or cut short, and why: one line each on
stderr (under its library for sync, which writes several), and per dependency in `sync --json`. The archive is built
here and served by the loopback registry in place of tomli 2.0.1's sdist."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from concurrent.futures import Future
from pathlib import Path

from loopback_registry import LoopbackRegistry, client_for

from docs_mcp.indexer.sources.packages.project import Dependency
from docs_mcp.indexer.sources.packages.refs import parse_package_spec
from docs_mcp.indexer.sources.packages.source import fetch_release
from docs_mcp.indexer.sources.packages.sync import FETCH, SyncItem, _write_batch

ARCHIVE_PATH = "/site/tomli-2.0.1.tar.gz"
DEEP = "its JSON nests 152 levels deep (at most 100 are converted); skipped it. Fix the file or exclude it (--exclude)."
OUTSIDE = ("../../etc/passwd is outside the docs folder: not included, by design (a page reads only files inside the folder being indexed); "
           "indexed the rest of the page. To include the project's root files, index the project folder: "
           "docs-mcp index PROJECT --include 'docs/**' --include '*.rst'.")  # fmt: skip
PROBLEMS = [f"error: docs/deep.ipynb: {DEEP}", f"warning: docs/evil.rst: {OUTSIDE}"]


def _hostile_sdist() -> bytes:
    nested: dict = {"x": 1}
    for _ in range(150):
        nested = {"x": nested}
    notebook = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Deep\n"]}],
        "metadata": {"deep": nested},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    members = {
        "README.md": "# Tomli\n\nA TOML parser.\n",
        "docs/guide.md": "# Guide\n\nParse TOML with tomli.loads.\n",
        "docs/evil.rst": "Evil\n====\n\nThe page's own words.\n\n.. include:: ../../etc/passwd\n",
        "docs/deep.ipynb": json.dumps(notebook),
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in members.items():
            body = text.encode()
            info = tarfile.TarInfo(f"tomli-2.0.1/{name}")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def _serve_hostile_tomli(registry: LoopbackRegistry) -> None:
    registry.serve_as_tomli(_hostile_sdist(), ARCHIVE_PATH)


def _cli(registry: LoopbackRegistry, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **registry.environment()}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, check=False, timeout=600
    )


def _problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("error: ", "warning: "))]


def _project(root: Path, dependencies: dict[str, str]) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["tomli==2.0.1"]\n'
    )
    if dependencies:
        (root / "package.json").write_text(json.dumps({"name": "app", "dependencies": dependencies}))
    return root


def test_add_pypi_names_each_hostile_page_it_skipped_or_cut_short_above_its_summary(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    _serve_hostile_tomli(registry)
    added = _cli(registry, "add", "pypi:tomli==2.0.1", "--index", str(tmp_path / "index"), "--model", "none")
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr
    assert _problem_lines(added.stderr) == PROBLEMS
    assert added.stdout.startswith("added pypi/tomli/v2.0.1: 3 documents, ") and added.stdout.rstrip().endswith(
        f"from {registry.url}{ARCHIVE_PATH}"
    )


def test_sync_lists_each_librarys_page_problems_under_it_in_its_text_and_json_and_strict_does_not_fail_on_them(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    _serve_hostile_tomli(registry)
    project = _project(tmp_path / "app", {"ms": "2.1.3"})
    done = _cli(registry, "sync", str(project), "--index", str(tmp_path / "index"), "--model", "none", "--strict")
    assert done.returncode == 0, done.stderr  # a page problem is no missing library: --strict accepts it
    assert "Traceback" not in done.stderr
    assert _problem_lines(done.stderr) == [
        line.replace(": ", ": pypi/tomli/v2.0.1: ", 1) for line in PROBLEMS
    ]  # ms's clean readme: none

    again = _cli(registry, "sync", str(project), "--index", str(tmp_path / "json"), "--model", "none", "--json")
    assert again.returncode == 0, again.stderr
    rows = {row["name"]: row for row in json.loads(again.stdout)["dependencies"]}
    assert rows["tomli"]["problems"] == [
        {"severity": "error", "path": "docs/deep.ipynb", "message": DEEP},
        {"severity": "warning", "path": "docs/evil.rst", "message": OUTSIDE},
    ]
    assert rows["ms"]["status"] == "added" and rows["ms"]["problems"] == []


def test_a_batch_written_in_one_build_gives_each_library_its_own_page_problems(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    # Which downloads share a build depends on when they finish: the batch is written here as sync writes it.
    _serve_hostile_tomli(registry)
    index = tmp_path / "index"
    client = client_for(registry, index)
    batch = []
    try:
        for spec in ("npm:ms@2.1.3", "pypi:tomli==2.0.1"):
            ref = parse_package_spec(spec)
            fetched: Future = Future()
            fetched.set_result((fetch_release(client, ref, pinned=True, added_by="sync"), 0.0))
            batch.append((SyncItem(Dependency(ref.ecosystem, ref.name, ref.version), ref, FETCH), fetched))
    finally:
        client.close()
    outcomes = {item.ref.library_id: item.added for item in _write_batch(batch, index, lambda _: None, "none")}
    assert [f"{p.severity}: {p}" for p in outcomes["pypi/tomli/v2.0.1"].problems] == PROBLEMS
    assert outcomes["npm/ms/v2.1.3"].problems == ()
    assert json.loads((index / "metadata.json").read_text())["libraries"].keys() >= {
        "pypi/tomli/v2.0.1",
        "npm/ms/v2.1.3",
    }  # one build wrote both
