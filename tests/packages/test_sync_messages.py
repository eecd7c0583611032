"""What `docs-mcp sync` says about the folder it was given: run in a folder without a project, it names that folder
by its full path (the default '.' read "No dependencies found in .." before)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_sync_in_a_folder_without_dependencies_names_the_folder_by_its_path(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")}
    done = subprocess.run([sys.executable, "-m", "docs_mcp", "sync", "--index", str(tmp_path / "index")], cwd=tmp_path / "empty",
                          capture_output=True, text=True, env=env, check=False, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"error: No dependencies found in {(tmp_path / 'empty').resolve()}.",
        "hint: sync reads pyproject.toml, uv.lock, poetry.lock, requirements*.txt, package.json and its lock files.",
    ]
