"""A stdio client that connects, lists tools and quits right away sees exit 0, every time.

The server is still warming its index then (loading the model, in a thread); a
warm-up racing interpreter shutdown used to abort the process (SIGABRT, exit
134) in most runs, so 10 runs here (5 with the model, 5 full-text only) would miss it with a
chance under 1 in 1,000 and keep the suite fast; ``scripts/stdio_exit_loop.py --runs 100`` is the long version.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.indexer import build_index

RUNS = 5
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stdio_exit_loop.py"


@pytest.fixture(scope="module")
def text_only_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("exit-docs")
    (docs / "a.md").write_text("# Alpha\n\n## Setup\n\nThe alpha guide.\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("exit-index") / "index"
    build_index(docs, out, embeddings="none")
    return out


@pytest.mark.parametrize("which", ["model", "text-only"])
def test_connect_list_tools_quit_always_exits_0(which: str, tiny_index: Path, text_only_index: Path) -> None:
    index = tiny_index if which == "model" else text_only_index
    done = subprocess.run([sys.executable, str(SCRIPT), "--index", str(index), "--runs", str(RUNS)],
                          capture_output=True, text=True, timeout=60 * RUNS)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert f"exit statuses {{0: {RUNS}}}" in done.stdout
