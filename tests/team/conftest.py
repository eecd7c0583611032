"""Team-mode fixtures: a real redis-server, a real index, and real `docs-mcp serve --transport http` processes.

Servers bind port 0 and report the port in their "listening" log line; tests
wait on that line and on /healthz (bounded), never on a timer.
"""

from __future__ import annotations

import json
import os
import queue
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from services import RedisServer

STARTUP_TIMEOUT = 60.0  # seconds; generous for a loaded CI machine, never waited on when things work
DOCS_MCP = [sys.executable, "-m", "docs_mcp"]

TEAM_CORPUS = {
    "guides/auth.md": (
        "# Authentication\n\nEvery request carries an API key.\n\n"
        "## Tokens\n\nCall `get_token` to exchange the key for a short-lived token.\n\n"
        "## Errors\n\nA `RateLimitError` means the key used its quota; retry later.\n"
    ),
    "guides/pagination.md": (
        "# Pagination\n\nList endpoints return pages.\n\n"
        "## Cursors\n\nPass `next_cursor` back to get the following page.\n"
    ),
}


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `docs-mcp ARGS` to completion in a subprocess (the way an administrator would).

    It runs in an empty folder with no DOCS_MCP_* variables unless ``env`` says
    otherwise, so no stray docs-mcp.toml or variable changes what is tested.
    """
    with tempfile.TemporaryDirectory() as empty:
        return subprocess.run(
            [*DOCS_MCP, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env if env is not None else environ(),
            cwd=empty,
        )


@pytest.fixture(scope="session")
def team_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real full-text-only index of a two-file corpus (no model: fast to build)."""
    from docs_mcp.indexer import build_index

    root = tmp_path_factory.mktemp("team-corpus")
    for relative, text in TEAM_CORPUS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    out = tmp_path_factory.mktemp("team-index") / "index"
    build_index(root / "guides", out, embeddings="none")
    return out


@pytest.fixture
def index_dir(team_index: Path, tmp_path: Path) -> Path:
    """A private copy of the index, so each test has its own key store next to it."""
    copy = tmp_path / "index"
    shutil.copytree(team_index, copy)
    return copy


def create_key(index: Path, name: str, *extra: str) -> str:
    """Create a key through the CLI and return it (stdout holds only the key)."""
    done = run_cli("keys", "create", name, "--index", str(index), *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@dataclass
class ServerProcess:
    """A running `docs-mcp serve --transport http`; its stderr (JSON logs) is collected by a thread."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)
    pump: threading.Thread | None = None
    seen: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_for(
        self, wanted: str | Callable[[dict[str, Any]], bool], timeout: float = STARTUP_TIMEOUT
    ) -> dict[str, Any]:
        """Read log records until one has ``msg == wanted`` (or satisfies ``wanted``); return it."""
        matches = (lambda record: record.get("msg") == wanted) if isinstance(wanted, str) else wanted
        while (line := self.lines.get(timeout=timeout)) is not None:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                record = {"raw": line}
            self.seen.append(record)
            if matches(record):
                return record
        self.lines.put(None)  # keep the end marker for later calls
        raise AssertionError(f"server exited ({self.process.wait()}) before logging {wanted!r}: {self.seen}")

    def log(self) -> list[dict[str, Any]]:
        """Every log record the server wrote, once it has exited (reads what wait_for has not)."""
        self.process.wait(timeout=STARTUP_TIMEOUT)
        while (line := self.lines.get(timeout=STARTUP_TIMEOUT)) is not None:
            try:
                self.seen.append(json.loads(line))
            except json.JSONDecodeError:
                self.seen.append({"raw": line})
        self.lines.put(None)
        return self.seen

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the process and wait for it to exit; returns its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=STARTUP_TIMEOUT)

    def close(self) -> None:
        """Kill the process if it still runs, and release its stderr pipe."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=STARTUP_TIMEOUT)
        if self.pump is not None:
            self.pump.join(timeout=STARTUP_TIMEOUT)
        if self.process.stderr is not None:
            self.process.stderr.close()


class Servers:
    """The servers a test starts; every one is stopped and its pipe closed when the test ends."""

    def __init__(self) -> None:
        self.started: list[ServerProcess] = []

    def start(
        self, index: Path, *args: str, env: dict[str, str] | None = None, open_files: int | None = None
    ) -> ServerProcess:
        """Start `docs-mcp serve --transport http --port 0 ARGS` and wait until /healthz answers 200.

        ``open_files``: the RLIMIT_NOFILE of the server process (soft and hard).
        """
        command = [*DOCS_MCP, "serve", "--transport", "http", "--index", str(index), "--port", "0", *args]
        limit = (
            None
            if open_files is None
            else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files)))
        )
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env if env is not None else environ(),
            cwd=index.parent,
            preexec_fn=limit,
        )
        server = ServerProcess(process)
        self.started.append(server)

        def pump() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                server.lines.put(line)
            server.lines.put(None)

        server.pump = threading.Thread(target=pump, daemon=True)
        server.pump.start()
        # JSON logs carry the port as a field; --log-format pretty writes "listening ... port=N".
        listening = server.wait_for(lambda r: r.get("msg") == "listening" or " listening " in r.get("raw", ""))
        server.port = (
            int(listening["port"]) if "port" in listening else int(re.search(r" port=(\d+)", listening["raw"])[1])
        )
        response = httpx.get(f"{server.url}/healthz", timeout=STARTUP_TIMEOUT)
        assert response.status_code == 200, response.text
        return server


@pytest.fixture
def servers() -> Iterator[Servers]:
    started = Servers()
    yield started
    for server in started.started:
        server.close()


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`cli("keys", "list", ...)` runs docs-mcp in a subprocess."""
    return run_cli


@pytest.fixture
def new_key() -> Callable[..., str]:
    """`new_key(index, "alice", "--rate", "10")` creates a key through the CLI and returns it."""
    return create_key


@pytest.fixture
def clean_env() -> Callable[..., dict[str, str]]:
    """`clean_env(DOCS_MCP_X="1")`: this environment without DOCS_MCP_* variables, plus the overrides."""
    return environ


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a redis-server shared by the session's tests; skipped if Redis is not installed."""
    redis = RedisServer(tmp_path_factory.mktemp("redis"))
    yield redis.url
    redis.stop()


@pytest.fixture
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server for one test, which it may stop."""
    redis = RedisServer(tmp_path_factory.mktemp("own-redis"))
    yield redis
    redis.stop()


REDIS_PASSWORD = "s3cr3t-redis-pw-7f1c"


@pytest.fixture
def password_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server for one test that requires ``REDIS_PASSWORD`` (its URL carries it)."""
    redis = RedisServer(tmp_path_factory.mktemp("pw-redis"), REDIS_PASSWORD)
    yield redis
    redis.stop()


def environ(**overrides: str) -> dict[str, str]:
    """This process's environment without DOCS_MCP_* variables, plus ``overrides``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")}
    env.update(overrides)
    return env
