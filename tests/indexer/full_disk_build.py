"""Run inside a private mount namespace with a small tmpfs at FOLDER: build an index that fits, then
rebuild from DOCS (larger) with `docs-mcp index`, and report as JSON what the rebuild said and left.

    python full_disk_build.py FOLDER DOCS EMBEDDINGS

Used by test_disk_full.py through `unshare -rm sh -c 'mount -t tmpfs ... && python full_disk_build.py ...'`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from docs_mcp.indexer import build_index, open_index

FIRST = {"first.md": "# First\n\nThe first index of this folder, which must stay live.\n\n## Setup\n\nInstall it.\n"}


def main(folder: Path, docs: Path, embeddings: str) -> dict:
    first_docs = folder / "first-docs"
    first_docs.mkdir()
    for name, text in FIRST.items():
        (first_docs / name).write_text(text, encoding="utf-8")
    index = folder / "index"
    build_index(first_docs, index, embeddings="none")
    before = (index / "CURRENT").read_text().strip()
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(index), "--embeddings", embeddings, "-q"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    after = (index / "CURRENT").read_text().strip()
    with open_index(index) as reader:
        files = sorted(reader.metadata.get("files") or {})
    leftovers = sorted(p.name for p in index.iterdir() if p.is_dir() and p.name not in (before, after))
    return {
        "returncode": done.returncode,
        "stderr": done.stderr,
        "before": before,
        "after": after,
        "files": files,
        "leftovers": leftovers,
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])))
