"""A minimal MCP client over a child process's stdio, for timing servers the way an agent meets them.

The serving benchmark (bench_serve.py) drives our server and the reference server alike, so
the client is the same thin one for both: newline-delimited JSON-RPC written to the child's
stdin, its stdout read with ``os.read`` (no reader thread, no SDK between the clock and the
pipe), notifications skipped, and the child's peak resident memory taken from ``wait4`` when
it exits.  Every read has a deadline: a server that hangs fails the benchmark with its stderr,
instead of hanging it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.eval.errors import EvalRunError

PROTOCOL_VERSION = "2025-06-18"
REPLY_TIMEOUT = 120.0  # seconds a server may take to answer one request (a cold model load included)
_READ_BLOCK = 1 << 16


@dataclass(frozen=True)
class Exited:
    """How a server process ended: its peak resident memory and the CPU time it used."""

    peak_rss_mb: float
    cpu_seconds: float


class StdioServer:
    """One server process spoken to over stdio; ``start`` it, send requests, then ``close`` it."""

    def __init__(
        self, argv: Sequence[str], *, log: Path, cwd: Path | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        self.argv = tuple(argv)
        self._log_path = log
        self._log = log.open("wb")
        self.started = time.perf_counter()
        try:
            self._process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                cwd=cwd,
                env=dict(env) if env else None,
            )
        except OSError as error:
            self._log.close()
            raise EvalRunError(
                f"Cannot start {argv[0]}: {error.strerror or error}.", "Check the path of the server to benchmark."
            ) from error
        self._buffer = b""
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self._process.pid

    def initialize(self) -> dict[str, Any]:
        """The MCP handshake: ``initialize``, then the ``initialized`` notification; the server's info."""
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "docs-mcp-bench", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        return result

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The result of ``tools/call`` (a tool error is a result too: its ``isError`` is true)."""
        return self.request("tools/call", {"name": name, "arguments": dict(arguments)})

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, **({"params": dict(params)} if params else {})})

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its response; requests the server sends meanwhile get an empty result.

        Raises:
            EvalRunError: the server answered with an error, closed its stdout, or took longer than REPLY_TIMEOUT.
        """
        self._next_id += 1
        wanted = self._next_id
        self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": dict(params)})
        deadline = time.monotonic() + REPLY_TIMEOUT
        while True:
            message = self._read_message(deadline)
            if message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise self._failure(
                        f"answered {method} with an error: {message['error'].get('message', message['error'])}"
                    )
                return message.get("result") or {}
            if "method" in message and "id" in message:  # a request of the server's (ping, roots/list): answer it
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": {}})

    def close(self) -> Exited:
        """Close the server's stdin (an MCP stdio server exits on EOF) and reap it; kill it after 30 s."""
        try:
            if self._process.stdin:
                self._process.stdin.close()
        except OSError:
            pass
        deadline = time.monotonic() + 30
        while True:
            pid, status, usage = os.wait4(self._process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                self._process.kill()
                pid, status, usage = os.wait4(self._process.pid, 0)
                break
            time.sleep(0.02)
        self._process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
        if self._process.stdout:
            self._process.stdout.close()
        self._log.close()
        # ru_maxrss is in KiB on Linux, in bytes on macOS.
        peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        return Exited(peak / (1024 * 1024), usage.ru_utime + usage.ru_stime)

    def kill(self) -> None:
        """Stop the server at once (an error path); safe to call after close."""
        if self._process.returncode is None:
            self._process.kill()
            self._process.wait()
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe:
                pipe.close()
        self._log.close()

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(message).encode() + b"\n")
            self._process.stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise self._failure("closed its input") from error

    def _read_message(self, deadline: float) -> dict[str, Any]:
        """The next JSON-RPC message on the server's stdout (lines that are not JSON objects are skipped)."""
        assert self._process.stdout is not None
        descriptor = self._process.stdout.fileno()
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    return message
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                raise self._failure(f"gave no answer within {REPLY_TIMEOUT:.0f} s")
            block = os.read(descriptor, _READ_BLOCK)
            if not block:
                raise self._failure("exited")
            self._buffer += block

    def _failure(self, what: str) -> EvalRunError:
        self._log.flush()
        tail = self._log_path.read_text(errors="replace").strip()[-2000:] if self._log_path.exists() else ""
        return EvalRunError(
            f"The server {' '.join(self.argv[:4])} ... {what}." + (f"\n{tail}" if tail else ""),
            f"See {self._log_path}.",
        )
