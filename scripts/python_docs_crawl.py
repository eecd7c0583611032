"""The Python documentation site (Debian's python3-doc) crawled on loopback, searched, and crawled again.

Serves the built HTML with Python's http.server (Last-Modified, so a revalidation answers 304) on
127.0.0.1, runs `docs-mcp add site` on it as a real subprocess (full text only unless --model), prints the
pages, chunks and times of the crawl, then crawls again (every page should answer 304 Not Modified and
the index stay unwritten), and measures NDCG@5 of eval/devsets/python-docs-report.jsonl on the crawled
library (its paths moved under the library ID).

    python scripts/python_docs_crawl.py --out /tmp/pydocs-site          # full text
    python scripts/python_docs_crawl.py --out /tmp/pydocs-site --model default
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "eval" / "devsets" / "python-docs-report.jsonl"
PYTHON_DOCS = Path("/usr/share/doc/python3/html")
LIBRARY = "python/docs"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, seconds: float = 10.0) -> None:
    """Until the server accepts connections (or ``seconds`` pass)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"the server on port {port} did not start")
            time.sleep(0.05)


def crawl(url: str, out: Path, model: str) -> tuple[str, float]:
    """One `docs-mcp add site` run (loopback allowed: the test switch): its stdout and wall time."""
    env = {**os.environ, "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1"}
    command = ["docs-mcp", "add", "site", url, "--library", LIBRARY, "--index", str(out), "--model", model, "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"docs-mcp add site failed:\n{done.stderr}")
    return done.stdout, elapsed


def site_golden(out: Path) -> Path:
    """The dev set with its file paths under the library ID, as the crawled library names its pages."""
    moved = out.parent / f"{out.name}-golden.jsonl"
    with GOLDEN.open(encoding="utf-8") as source, moved.open("w", encoding="utf-8") as target:
        for line in source:
            entry = json.loads(line)
            for relevant in entry["relevant"]:
                relevant["filepath"] = f"{LIBRARY}/{relevant['filepath']}"
            target.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="Index folder to create (must not exist).")
    parser.add_argument("--model", default="none", help="Embedding model of the index (default: none, full text only).")
    parser.add_argument("--docs", type=Path, default=PYTHON_DOCS, help="The built HTML (default: python3-doc's).")
    args = parser.parse_args()
    if args.out.exists():
        sys.exit(f"{args.out} exists: give a new folder")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(args.docs.resolve())],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(port)
        url = f"http://127.0.0.1:{port}/index.html"
        first, first_s = crawl(url, args.out, args.model)
        second, second_s = crawl(url, args.out, args.model)
    finally:
        server.terminate()
        server.wait()
    print(first.strip(), f"\n[first crawl and index: {first_s:.1f} s wall]")
    print(second.strip(), f"\n[second crawl: {second_s:.1f} s wall]")
    chunks = re.search(r"into (\d[\d,]*) chunks", first)
    print(f"chunks: {chunks.group(1) if chunks else '?'}")
    mode = "bm25" if args.model == "none" else "hybrid"
    golden = site_golden(args.out)
    subprocess.run(["docs-mcp", "eval", str(golden), "--index", str(args.out), "--mode", mode], check=True)


if __name__ == "__main__":
    main()
