"""A bounded load test of `docs-mcp serve --transport http` on loopback.

Starts a server on a free port (with a throw-away key store, so the index is
not touched), then N concurrent clients call search_docs in a loop for a fixed
time and the script reports latency percentiles, errors, requests/s and
requests/s per server CPU-second ("per core": the server's CPU time is read
from /proc, so the load generator's own CPU use does not count).

    python scripts/loadtest.py --index .docs-mcp --clients 20 --duration 30
    python scripts/loadtest.py --url http://127.0.0.1:3100 --key dm_... --client sdk

Exit status 1 if any request failed other than an intended 429.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

MAX_CLIENTS = 200
MAX_DURATION = 300.0
GOLDEN = Path(__file__).resolve().parent.parent / "eval" / "golden" / "corpus.jsonl"
FALLBACK_QUERIES = (
    "RateLimitError",
    "how to paginate results",
    "get_token",
    "retry with backoff",
    "next_cursor",
    "authentication with an API key",
    "error handling",
    "webhooks",
)
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass
class Tally:
    """What the clients saw: per-call latencies (ms) of answered calls, and failures by kind."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    rate_limited: int = 0

    def fail(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def load_queries() -> list[str]:
    if GOLDEN.is_file():
        queries = [
            json.loads(line)["query"] for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
        if queries:
            return queries
    return list(FALLBACK_QUERIES)


async def raw_client(url: str, key: str, queries: list[str], offset: int, deadline: float, tally: Tally) -> None:
    """One client speaking plain JSON-RPC over one keep-alive connection (the lightest load generator)."""
    async with httpx.AsyncClient(headers={**HEADERS, "Authorization": f"Bearer {key}"}, timeout=60) as http:
        n = offset
        while time.perf_counter() < deadline:
            body = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "search_docs", "arguments": {"query": queries[n % len(queries)]}},
            }
            n += 1
            started = time.perf_counter()
            try:
                response = await http.post(f"{url}/mcp", json=body)
            except httpx.HTTPError as error:
                tally.fail(type(error).__name__)
                continue
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code == 429:
                tally.rate_limited += 1
            elif response.status_code != 200:
                tally.fail(f"http_{response.status_code}")
            elif "error" in (answer := response.json()) or answer["result"].get("isError"):
                tally.fail("tool_error")
            else:
                tally.latencies.append(elapsed)


async def sdk_client(url: str, key: str, queries: list[str], offset: int, deadline: float, tally: Tally) -> None:
    """One client through the MCP SDK: a session, then call_tool in a loop."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.exceptions import MCPError

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            n = offset
            while time.perf_counter() < deadline:
                query = queries[n % len(queries)]
                n += 1
                started = time.perf_counter()
                try:
                    result = await client.call_tool("search_docs", {"query": query})
                except MCPError as error:
                    if "RATE_LIMITED" in str(error):
                        tally.rate_limited += 1
                    else:
                        tally.fail("MCPError")
                    continue
                if result.is_error:
                    tally.fail("tool_error")
                else:
                    tally.latencies.append((time.perf_counter() - started) * 1000)


async def run_clients(url: str, key: str, clients: int, duration: float, kind: str) -> tuple[Tally, float]:
    queries = load_queries()
    tally = Tally()
    client = raw_client if kind == "raw" else sdk_client
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for i in range(clients):
            group.start_soon(client, url, key, queries, i * 7, started + duration, tally)
    return tally, time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def create_key(store: Path, name: str) -> str:
    """A key with no practical rate limit in the key store at ``store`` (made if missing)."""
    env = {**os.environ, "DOCS_MCP_KEY_STORE": str(store), "DOCS_MCP_LOG_LEVEL": "warning"}
    created = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "keys", "create", name, "--rate", "1000000", "--burst", "1000000"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return created.stdout.strip()


def start_replica(
    index: Path, store: Path, extra: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Start `docs-mcp serve --transport http` on a free port with the key store at ``store``; returns (process, url)."""
    # The "listening" line (at info level) says which port was picked.
    env = {**os.environ, **(env or {}), "DOCS_MCP_KEY_STORE": str(store), "DOCS_MCP_LOG_LEVEL": "info"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "serve",
            "--transport",
            "http",
            "--index",
            str(index),
            "--port",
            "0",
            *extra,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if '"listening"' in line:
            port = json.loads(line)["port"]
            break
    else:
        raise SystemExit(f"server exited with {process.wait()} before listening")
    # Keep reading (and dropping) its log so the pipe never fills up.
    threading.Thread(target=process.stderr.read, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    httpx.get(f"{url}/healthz", timeout=60).raise_for_status()
    return process, url


def start_server(index: Path, store: Path, extra: list[str]) -> tuple[subprocess.Popen[str], str, str]:
    """Create a key in a private store, start the server on a free port; returns (process, url, key)."""
    key = create_key(store, "loadtest")
    process, url = start_replica(index, store, extra)
    return process, url, key


def warm_up(url: str, key: str) -> None:
    """One untimed search first: the server loads postings, vectors and the model on first use."""
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": "warm up"}},
    }
    httpx.post(
        f"{url}/mcp", json=body, headers={**HEADERS, "Authorization": f"Bearer {key}"}, timeout=120
    ).raise_for_status()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, default=Path(".docs-mcp"), help="index to serve (default .docs-mcp)")
    parser.add_argument("--url", help="test a running server instead of starting one (needs --key)")
    parser.add_argument("--key", help="API key for --url")
    parser.add_argument("--clients", type=int, default=20, help=f"concurrent clients (default 20, max {MAX_CLIENTS})")
    parser.add_argument("--duration", type=float, default=30.0, help=f"seconds (default 30, max {MAX_DURATION:g})")
    parser.add_argument(
        "--client",
        choices=("raw", "sdk"),
        default="raw",
        help="raw: plain JSON-RPC POSTs (default, lightest); sdk: the MCP SDK's client",
    )
    parser.add_argument(
        "--server-arg", action="append", default=[], help="extra `docs-mcp serve` argument (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    clients, duration = min(max(1, args.clients), MAX_CLIENTS), min(max(1.0, args.duration), MAX_DURATION)

    process = None
    with tempfile.TemporaryDirectory() as scratch:
        if args.url:
            if not args.key:
                parser.error("--url needs --key")
            url, key = args.url.rstrip("/"), args.key
        else:
            process, url, key = start_server(args.index, Path(scratch) / "keys.sqlite", args.server_arg)
        try:
            warm_up(url, key)
            cpu_before = cpu_seconds(process.pid) if process else None
            tally, elapsed = anyio.run(run_clients, url, key, clients, duration, args.client)
            server_cpu = cpu_seconds(process.pid) - cpu_before if process and cpu_before is not None else None
        finally:
            if process is not None:
                process.terminate()
                process.wait(timeout=60)

    answered = len(tally.latencies)
    figures: dict[str, Any] = {
        "clients": clients,
        "duration_s": round(elapsed, 1),
        "client": args.client,
        "requests": answered + tally.rate_limited + sum(tally.errors.values()),
        "ok": answered,
        "rate_limited": tally.rate_limited,
        "errors": tally.errors,
        "requests_per_s": round(answered / elapsed, 1),
        "p50_ms": round(percentile(tally.latencies, 0.50), 2),
        "p90_ms": round(percentile(tally.latencies, 0.90), 2),
        "p99_ms": round(percentile(tally.latencies, 0.99), 2),
        "mean_ms": round(statistics.fmean(tally.latencies), 2) if tally.latencies else None,
        "server_cpu_s": round(server_cpu, 1) if server_cpu is not None else None,
        "requests_per_server_cpu_s": round(answered / server_cpu, 1) if server_cpu else None,
        "machine_cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures.items():
            print(f"{name:>26}: {value}")
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
