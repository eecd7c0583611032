"""Why a package library holds only its archive's documents reaches everything that describes it: `sync`'s
summary (as `add` prints it), `docs-mcp libraries --json`, get_library_info and a page's provenance.

The loopback registry's lookalike knows no hukkin/tomli repository: tomli 2.0.1 is indexed from its real sdist with
the note the repository step leaves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from loopback_registry import LoopbackRegistry
from mcp_session import serve_over_stdio

TOMLI = "pypi/tomli/v2.0.1"
NOTE = "github: github.com/hukkin/tomli has no tag v2.0.1 or 2.0.1 (or is private); not read."


def _cli(registry: LoopbackRegistry, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **registry.environment()}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, check=False, timeout=600
    )


def test_source_notes_reach_the_sync_summary_the_listing_library_info_and_provenance(
    registry: LoopbackRegistry, tmp_path: Path
) -> None:
    project, index = tmp_path / "app", tmp_path / "index"
    project.mkdir()
    (project / "requirements.txt").write_text("tomli==2.0.1\n")
    synced = _cli(registry, "sync", str(project), "--index", str(index), "--model", "none")
    assert synced.returncode == 0, synced.stderr
    assert f"note: {TOMLI}: {NOTE}" in synced.stderr.splitlines()

    listed = _cli(registry, "libraries", "--index", str(index), "--json")
    assert listed.returncode == 0, listed.stderr
    (library,) = [item for item in json.loads(listed.stdout) if item["library_id"] == TOMLI]
    assert library["source_notes"] == [NOTE]

    with serve_over_stdio(index, tmp_path / "server.log") as session:
        info = json.loads(session.call("get_library_info", {"library_id": TOMLI}).content[0].text)
        readme = next(entry["path"] for entry in info["toc"] if entry["path"].lower().startswith(f"{TOMLI}/readme"))
        page = json.loads(session.call("read_page", {"path": readme}).content[0].text)
    assert info["source_notes"] == [NOTE]
    assert page["provenance"]["source_notes"] == [NOTE]
