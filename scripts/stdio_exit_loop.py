"""A client that connects, lists tools and quits, N times: does `docs-mcp serve` (stdio) always exit 0?

Each run starts `docs-mcp serve --index IDX`, sends initialize, initialized and
tools/list, reads the two replies, closes stdin and waits for the exit status.
The server is still warming its index in the background then, which is the
race this checks (a crash shows as exit 134, SIGABRT).

    python scripts/stdio_exit_loop.py --index .docs-mcp --runs 100

Prints the exit statuses counted and the time per run; exit status 1 unless every run exited 0.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
from pathlib import Path

TIMEOUT = 60  # seconds per run: a bound against hangs
MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "exit-loop", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def connect_list_quit(index: Path) -> tuple[int, str]:
    """One client session; returns the server's exit status and its stderr."""
    with subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write("".join(json.dumps(message) + "\n" for message in MESSAGES))
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(2)]
        if [reply.get("id") for reply in replies] != [1, 2] or "tools" not in replies[1].get("result", {}):
            raise AssertionError(f"unexpected replies: {replies}")
        server.stdin.close()  # the client goes away right after start
        status = server.wait(timeout=TIMEOUT)
        return status, server.stderr.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="index folder built by `docs-mcp index`")
    parser.add_argument("--runs", type=int, default=100, help="client sessions to run (default 100)")
    args = parser.parse_args()
    statuses: collections.Counter[int] = collections.Counter()
    started = time.perf_counter()
    for run in range(args.runs):
        status, stderr = connect_list_quit(args.index)
        statuses[status] += 1
        if status != 0:
            print(f"run {run}: exit {status}\n{stderr[-2000:]}", file=sys.stderr)
    seconds = time.perf_counter() - started
    print(f"{args.runs} runs in {seconds:.1f} s ({seconds / args.runs:.2f} s each): exit statuses {dict(statuses)}")
    return 0 if set(statuses) == {0} else 1


if __name__ == "__main__":
    sys.exit(main())
