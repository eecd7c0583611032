"""Connection limits of `docs-mcp serve --transport http` against slow and idle clients: real servers, raw sockets on loopback.

Issue 37: 1,100 unauthenticated idle connections used up a replica's 1,024 descriptors (accept() failed, so every
other client waited for ever) and asyncio logged each failed accept with its traceback, hundreds of MB in minutes.
"""

from __future__ import annotations

import contextlib
import resource
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from docs_mcp.server.team.log_throttle import BURST

TIMEOUT = 60  # seconds; a bound against hangs, never waited on when things work
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
PARTIAL_HEADERS = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def _connect(server: Any) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)


def _slow_body(server: Any, key: str) -> socket.socket:
    """A connection with a request whose headers are complete but whose body never comes: a request running."""
    sock = _connect(server)
    sock.sendall(
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{".encode()
    )
    return sock


def _read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as closed)."""
    received = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _tools_list(server: Any, key: str) -> int:
    return httpx.post(
        f"{server.url}/mcp", json=TOOLS_LIST, headers={**MCP_HEADERS, "Authorization": f"Bearer {key}"}, timeout=TIMEOUT
    ).status_code


def test_a_flood_of_idle_connections_neither_locks_out_a_key_nor_floods_the_log(
    index_dir: Path, servers, new_key
) -> None:
    key = new_key(index_dir, "alice")
    server = servers.start(index_dir, open_files=256)
    listening = next(record for record in server.seen if record.get("msg") == "listening")
    assert listening["open_files_limit"] == 256 and 16 <= listening["max_connections"] < 256 - 64
    with contextlib.ExitStack() as flood:
        for number in range(300):  # more than the process has descriptors
            sock = flood.enter_context(_connect(server))
            if number % 2:
                sock.sendall(PARTIAL_HEADERS)  # half start a request they never finish
        for _ in range(3):
            assert _tools_list(server, key) == 200
    assert server.stop() == 0
    log = server.log()
    about_connections = [
        r
        for r in log
        if r.get("logger") in ("asyncio", "uvicorn.error", "docs_mcp.connections")
        and r.get("level") in ("warning", "error")
    ]
    assert len(about_connections) <= 3 * (BURST + 1), about_connections[-3:]
    assert not any("out of system resource" in record.get("msg", "") for record in log)
    assert any(record.get("msg", "").startswith("connection closed to make room") for record in about_connections)


def test_a_request_that_does_not_arrive_within_the_read_timeout_loses_its_connection(
    index_dir: Path, servers, new_key, clean_env
) -> None:
    key = new_key(index_dir, "alice", "--burst", "100")
    server = servers.start(index_dir, env=clean_env(DOCS_MCP_READ_TIMEOUT="1"))
    with _connect(server) as silent, _connect(server) as slow_headers, _slow_body(server, key) as slow_body:
        slow_headers.sendall(PARTIAL_HEADERS)
        assert _read_to_end(silent) == b""
        assert _read_to_end(slow_headers) == b""
        assert b" 200 " not in _read_to_end(slow_body)
    assert _tools_list(server, key) == 200  # a request sent at once is not affected
    closed = server.wait_for(lambda record: record.get("msg", "").startswith("connection closed: no complete request"))
    assert closed["msg"] == "connection closed: no complete request within http.read_timeout (1 s)"


def test_past_the_limit_with_every_connection_busy_a_new_one_is_refused_at_once(
    index_dir: Path, servers, new_key, clean_env
) -> None:
    key = new_key(index_dir, "alice", "--burst", "100")
    limit = 16
    server = servers.start(index_dir, env=clean_env(DOCS_MCP_MAX_CONNECTIONS=str(limit)))
    health = f"{server.url}/healthz"
    with contextlib.ExitStack() as busy:
        for running in range(1, limit):  # one by one, each seen running before the next (the probe is the limit-th)
            busy.enter_context(_slow_body(server, key))
            while httpx.get(health, timeout=TIMEOUT).json()["in_flight"] < running:
                pass
        for _ in range(50):
            last = busy.enter_context(_slow_body(server, key))
            refused = httpx.get(health, timeout=TIMEOUT)
            if refused.status_code == 503 and refused.json()["code"] == "TOO_MANY_CONNECTIONS":
                break
            assert refused.json()["in_flight"] < limit, "a connection past the limit was served"
            last.close()  # it was closed to make room before its request came in: send it again
        else:
            raise AssertionError("the connection past the limit was never refused")
        assert refused.headers["retry-after"] == "1" and "reuse one connection" in refused.json()["suggestion"]
    assert _tools_list(server, key) == 200  # the slow connections gone, the server answers again


def test_a_file_limit_too_low_for_any_connections_stops_the_start(index_dir: Path, clean_env) -> None:
    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "serve", "--transport", "http", "--index", str(index_dir), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=clean_env(),
        preexec_fn=low_limit,
    )
    assert done.returncode != 0
    assert "error: This process may open only 128 files (RLIMIT_NOFILE), too few to serve HTTP" in done.stderr
    assert "hint: Raise the limit to at least " in done.stderr and "Traceback" not in done.stderr
