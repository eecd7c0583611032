"""A full disk during `docs-mcp index`: one error that says so and what to free, and the live index untouched.

Where the machine allows a private mount (root, or an unprivileged user namespace: `unshare -rm`),
the rebuild runs on a real tmpfs too small for it (tests/indexer/full_disk_build.py), once failing
before anything goes live and once after the full text went live; on any machine, fault points
make each write step fail the way a full disk does (OSError ENOSPC, numpy's short write).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer import build_index, open_index

REPO = Path(__file__).resolve().parents[2]
HELPER = Path(__file__).with_name("full_disk_build.py")
DOCS = {
    f"page{n}.md": f"# Page {n}\n\n## Usage\n\nHow to use part {n} of the tool, with examples and options.\n"
    for n in range(30)
}


def on_a_small_disk(tmp_path: Path, size: str, embeddings: str) -> dict:
    """full_disk_build.py's report, run on a private tmpfs of ``size``; skipped where no private mount can be made."""
    if shutil.which("unshare") is None:
        pytest.skip(
            "unshare is missing: the real full-disk test needs a private mount (the fault-point tests still run)"
        )
    folder = tmp_path / "disk"
    folder.mkdir()
    script = f'mount -t tmpfs -o size={size} tmpfs "{folder}" && exec "{sys.executable}" "{HELPER}" "{folder}" "{REPO / "corpus"}" {embeddings}'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=900, cwd=REPO)
    if done.returncode != 0 and not done.stdout.strip():
        pytest.skip(
            f"no private tmpfs here (unshare -rm / mount refused: {done.stderr.strip()[-200:]}); the fault-point tests still run"
        )
    return json.loads(done.stdout)


def assert_one_clean_error(stderr: str) -> list[str]:
    lines = [line for line in stderr.splitlines() if line.startswith(("error:", "hint:"))]
    assert "Traceback" not in stderr and "Errno" not in stderr and "Rebuild it" not in stderr, stderr
    assert [line.split(":", 1)[0] for line in lines] == ["error", "hint"], stderr
    assert (
        "is full" in lines[0] and "Free space on that disk" in lines[1] and "--out a folder on another disk" in lines[1]
    )
    return lines


def test_a_rebuild_that_fills_a_real_disk_says_so_and_leaves_the_live_index_untouched(tmp_path):
    report = on_a_small_disk(tmp_path, "4m", "none")
    error, _ = assert_one_clean_error(report["stderr"])
    assert report["returncode"] == 1 and report["after"] == report["before"]
    assert error.endswith(f"the live index (generation {report['before']}) is untouched.")
    assert (
        report["files"] == ["first.md"] and report["leftovers"] == []
    )  # still served; the half-written generation is gone


def test_a_disk_that_fills_while_writing_the_vectors_says_what_went_live(tmp_path):
    # The full text of corpus/ must fit and its vectors must not: with corpus/ at 356 KB, 10 MiB was too small for
    # the full text and 12 and 16 MiB both failed at the vectors (8 MiB free); 14 MiB leaves room as the guide grows.
    report = on_a_small_disk(tmp_path, "14m", "default")
    error, _ = assert_one_clean_error(report["stderr"])
    assert report["returncode"] == 1 and report["after"] != report["before"]
    assert "note: full-text search of the new docs is live" in report["stderr"]
    assert error.endswith("the new index could not be finished; its vectors were not written.")
    assert "guide/index.md" in report["files"] and report["leftovers"] == []


@pytest.mark.parametrize(
    ("fault", "embeddings"),
    [("staging:enospc", "none"), ("fts:enospc", "none"), ("arrays:short-write", "none"), ("replace:enospc", "none")],
)
def test_each_write_step_that_meets_a_full_disk_gives_the_one_error(tmp_path, fault, embeddings):
    docs = write_corpus(tmp_path / "docs", DOCS)
    index = tmp_path / "index"
    build_index(write_corpus(tmp_path / "first", {"first.md": "# First\n\nStays live.\n"}), index, embeddings="none")
    before = (index / "CURRENT").read_text()
    env = {**os.environ, "DOCS_MCP_TEST_FAULT": fault}
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index), "--embeddings", embeddings, "-q"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    error, _ = assert_one_clean_error(done.stderr)
    assert done.returncode == 1 and (index / "CURRENT").read_text() == before and "is untouched" in error
    with open_index(index) as reader:
        assert list(reader.metadata["files"]) == ["first.md"]
    assert sorted(p.name for p in index.iterdir() if p.is_dir()) == [before.strip()]
