"""A bounded load test of two team replicas while callers read pages from a slow documentation site.

Starts a hostile site on loopback whose answers send their headers one byte every 2 s (the
audit's slow site, tests/hostile_site.py), and two `docs-mcp serve --transport http` replicas
of one index sharing one key store. Fast clients (search_docs, several API keys, half pinned
to each replica as a balancer's keep-alive connections are) run three times for the same time:
alone, with slow-site callers running (read_page on the slow site, 45 per slow key as in the
audit, each retrying a TOO_BUSY answer after the second its hint asks for), and alone again. The figure
is the fast clients' p99 with the slow callers over their p99 without (two runs alone, one
before and one after, pooled); each replica's /healthz is read during the slow phase.

    python scripts/slow_site_load.py --index .docs-mcp --duration 30

Exit status 1 if the p99 ratio is above --max-ratio (default 2) or a fast call failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from itertools import count
from pathlib import Path
from typing import Any

import anyio
import httpx
from loadtest import HEADERS, Tally, create_key, load_queries, percentile, raw_client, start_replica, warm_up

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from hostile_site import HostileSite, slow_headers  # noqa: E402 - the tests' hostile site, on loopback

BYTE_EVERY = 2.0  # seconds between header bytes, as in the audit
SLOW_PAGE = b"# Slow page\n\nThis page is served one header byte every two seconds.\n"
SITE_ENV = {  # the slow site is on loopback: allow it, and keep the curated and custom libraries off the network
    "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1",
    "DOCS_MCP_FETCH_ALLOW": "127.0.0.1",
    "DOCS_MCP_CURATED_LIBRARIES": "0",
}


async def slow_caller(
    http: httpx.AsyncClient, url: str, key: str, pages: list[str], turn: count, deadline: float, outcomes: Counter[str]
) -> None:
    """read_page on the slow site in a loop, a new page each time; a TOO_BUSY answer is retried after a second."""
    headers = {**HEADERS, "Authorization": f"Bearer {key}"}
    while time.perf_counter() < deadline:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "read_page", "arguments": {"url": pages[next(turn) % len(pages)]}},
        }
        try:
            response = await http.post(f"{url}/mcp", json=body, headers=headers)
        except httpx.HTTPError as error:
            outcomes[type(error).__name__] += 1
            continue
        if response.status_code != 200:
            outcomes[f"http_{response.status_code}"] += 1
            continue
        result = response.json().get("result")
        outcome = (
            "jsonrpc_error"
            if result is None
            else result.get("structuredContent", {}).get("code", "error")
            if result.get("isError")
            else "ok"
        )
        outcomes[outcome] += 1
        if outcome == "TOO_BUSY":
            await anyio.sleep(1.0)  # what its hint asks: retry in a few seconds


async def health_samples(urls: list[str], deadline: float, seen: dict[str, Counter[str]]) -> None:
    """Each replica's /healthz status and capacity status, once a second."""
    async with httpx.AsyncClient(timeout=30) as http:
        while time.perf_counter() < deadline:
            for url in urls:
                response = await http.get(f"{url}/healthz")
                body = response.json()
                seen[url][
                    f"{response.status_code} {body.get('status')} capacity={body.get('checks', {}).get('capacity', {}).get('status')}"
                ] += 1
            await anyio.sleep(1.0)


async def phase(
    replicas: list[str], fast_keys: list[str], clients_per_key: int, duration: float, slow: dict[str, Any] | None
) -> tuple[dict[str, Any], list[float]]:
    """Run the fast clients for ``duration`` seconds (and the slow callers, when given); their figures and latencies (ms)."""
    if slow is not None and "http" not in slow:
        # One client for every slow caller, made before the clock starts: making 90 (an SSL context each) would
        # hold this event loop for seconds, and the fast clients' latencies with it.
        async with httpx.AsyncClient(
            timeout=120, limits=httpx.Limits(max_connections=None, max_keepalive_connections=None)
        ) as http:
            return await phase(replicas, fast_keys, clients_per_key, duration, {**slow, "http": http})
    tally, outcomes, health = Tally(), Counter[str](), {url: Counter[str]() for url in replicas}
    queries = load_queries()
    started = time.perf_counter()
    deadline = started + duration
    async with anyio.create_task_group() as group:
        n = 0
        for key in fast_keys:
            for _ in range(clients_per_key):
                group.start_soon(raw_client, replicas[n % len(replicas)], key, queries, n * 7, deadline, tally)
                n += 1
        if slow is not None:
            turn = count()
            for k, key in enumerate(slow["keys"]):
                for i in range(slow["callers_per_key"]):
                    group.start_soon(
                        slow_caller,
                        slow["http"],
                        replicas[(k + i) % len(replicas)],
                        key,
                        slow["pages"],
                        turn,
                        deadline,
                        outcomes,
                    )
            group.start_soon(health_samples, replicas, deadline, health)
    latencies = tally.latencies
    figures: dict[str, Any] = {
        "fast_calls": len(latencies),
        "fast_errors": dict(tally.errors),
        "fast_rate_limited": tally.rate_limited,
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if slow is not None:
        figures["slow_calls"] = dict(sorted(outcomes.items()))
        figures["healthz"] = {url: dict(seen) for url, seen in health.items()}
    return figures, latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--index", type=Path, default=Path(".docs-mcp"), help="index both replicas serve (default .docs-mcp)"
    )
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per phase (default 30, at most 300)")
    parser.add_argument(
        "--warm-up", type=float, default=10.0, help="seconds of fast clients before the timed runs (default 10)"
    )
    parser.add_argument("--fast-keys", type=int, default=4, help="API keys of the fast clients (default 4)")
    parser.add_argument("--clients-per-key", type=int, default=2, help="fast clients per key (default 2)")
    parser.add_argument("--slow-keys", type=int, default=2, help="API keys reading the slow site (default 2)")
    parser.add_argument(
        "--callers-per-slow-key", type=int, default=45, help="slow callers per slow key (default 45, as in the audit)"
    )
    parser.add_argument("--max-ratio", type=float, default=2.0, help="largest p99 ratio that passes (default 2)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    duration = min(max(args.duration, 5.0), 300.0)

    site = HostileSite()
    pages = [site.route(f"/slow-{n}.md", slow_headers(SLOW_PAGE, BYTE_EVERY)) for n in range(2_000)]
    processes = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            store = Path(scratch) / "keys.sqlite"
            fast_keys = [create_key(store, f"fast{n}") for n in range(max(1, args.fast_keys))]
            slow_keys = [create_key(store, f"slow{n}") for n in range(max(1, args.slow_keys))]
            env = {**SITE_ENV, "DOCS_MCP_CUSTOM_LIBRARIES": str(Path(scratch) / "none.json")}
            replicas = []
            for _ in range(2):
                process, url = start_replica(args.index, store, [], env)
                processes.append(process)
                warm_up(url, fast_keys[0])
                replicas.append(url)
            # Alone, with the slow callers, alone again: the two runs alone bracket the other, so a change in
            # the machine's load (other work on it) shows as a gap between them rather than in the ratio.
            slow = {"keys": slow_keys, "callers_per_key": args.callers_per_slow_key, "pages": pages}
            anyio.run(
                phase, replicas, fast_keys, args.clients_per_key, args.warm_up, None
            )  # untimed: search workers warm up
            before, before_ms = anyio.run(phase, replicas, fast_keys, args.clients_per_key, duration, None)
            with_slow, _ = anyio.run(phase, replicas, fast_keys, args.clients_per_key, duration, slow)
            after, after_ms = anyio.run(phase, replicas, fast_keys, args.clients_per_key, duration, None)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=60)
        site.close()

    alone_p99 = percentile(before_ms + after_ms, 0.99)
    ratio = with_slow["p99_ms"] / alone_p99 if alone_p99 else float("inf")
    figures = {
        "replicas": 2,
        "fast_clients": len(fast_keys) * args.clients_per_key,
        "slow_callers": len(slow_keys) * args.callers_per_slow_key,
        "alone_before": before,
        "with_slow_callers": with_slow,
        "alone_after": after,
        "alone_p99_ms": round(alone_p99, 1),
        "p99_ratio": round(ratio, 2),
        "max_ratio": args.max_ratio,
        "slow_site_requests": len(site.requests),
    }
    print(
        json.dumps(figures, indent=2) if args.json else "\n".join(f"{name}: {value}" for name, value in figures.items())
    )
    failed = before["fast_errors"] or with_slow["fast_errors"] or after["fast_errors"] or ratio > args.max_ratio
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
