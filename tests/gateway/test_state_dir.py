"""The gateway's private state folder (catalog index, upstream logs) does not outlive its process for long."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from docs_mcp.server.gateway.gateway_service import STATE_PREFIX, private_state_dir


def test_a_killed_gateways_state_folder_is_removed_by_the_next(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    stale = tmp_path / f"{STATE_PREFIX}{dead}-abc"
    (stale / "catalog").mkdir(parents=True)
    alive = tmp_path / f"{STATE_PREFIX}1-abc"  # pid 1 always runs
    alive.mkdir()
    mine = private_state_dir()
    assert not stale.exists() and alive.exists() and mine.parent == tmp_path and mine.is_dir()
