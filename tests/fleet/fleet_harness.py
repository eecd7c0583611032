"""What the fleet tests drive: real `docs-mcp serve` replicas, the CLI, raw JSON-RPC over HTTP.

Replicas are real
`docs-mcp serve --transport http` subprocesses on ports chosen in advance (a restarted one
keeps its place behind haproxy), each with its own local index folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from services import STARTUP_TIMEOUT, wait_until

DOCS_MCP = [sys.executable, "-m", "docs_mcp"]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def environ(**overrides: str) -> dict[str, str]:
    """This process's environment without DOCS_MCP_* variables, plus ``overrides``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")}
    env.update(overrides)
    return env


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`docs-mcp ARGS` to completion, in an empty folder (no stray docs-mcp.toml)."""
    with tempfile.TemporaryDirectory() as empty:
        return subprocess.run([*DOCS_MCP, *args], capture_output=True, text=True, timeout=180, env=env, cwd=empty)


@dataclass
class Replica:
    """One `docs-mcp serve --transport http` replica of the fleet."""

    name: str
    port: int
    index: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, env: dict[str, str], *args: str) -> None:
        command = [
            *DOCS_MCP,
            "serve",
            "--transport",
            "http",
            "--index",
            str(self.index),
            "--port",
            str(self.port),
            "--mode",
            "bm25",
            "--search-workers",
            "0",
            *args,
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env={**env, "DOCS_MCP_REPLICA": self.name},
                cwd=self.index.parent,
            )
        wait_until(self.ready, f"replica {self.name} to answer /healthz 200 (log: {self.log})")

    def ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(
                f"replica {self.name} exited with {self.process.returncode}: {self.log.read_text()[-3000:]}"
            )
        try:
            return httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    def health(self) -> dict[str, Any]:
        return httpx.get(f"{self.url}/healthz", timeout=5).json()

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=STARTUP_TIMEOUT)


def rpc(
    url: str, key: str | None, method: str, params: dict[str, Any] | None = None, *, client: httpx.Client | None = None
) -> httpx.Response:
    """One JSON-RPC POST to ``url``/mcp (a new connection unless ``client`` is given)."""
    auth = {"Authorization": f"Bearer {key}"} if key else {}
    message = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params else {})}
    post = client.post if client is not None else httpx.post
    return post(f"{url}/mcp", json=message, headers={**MCP_HEADERS, **auth}, timeout=30)
