"""How a stdio server ends: exit 0 for a client that quits right away, every time; every request piped in
answered before the end of input stops it; a client that stops reading ends it quietly.

The server is still warming its index then (loading the model, in a thread); a
warm-up racing interpreter shutdown used to abort the process (SIGABRT, exit
134) in most runs, so 10 runs here (5 with the model, 5 full-text only) would miss it with a
chance under 1 in 1,000 and keep the suite fast; ``scripts/stdio_exit_loop.py --runs 100`` is the long version.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

RUNS = 5
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stdio_exit_loop.py"
_SERVE = [sys.executable, "-m", "docs_mcp", "serve"]


@pytest.mark.parametrize("which", ["model", "text-only"])
def test_connect_list_tools_quit_always_exits_0(which: str, tiny_index: Path, text_only_index: Path) -> None:
    index = tiny_index if which == "model" else text_only_index
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--index", str(index), "--runs", str(RUNS)],
        capture_output=True,
        text=True,
        timeout=60 * RUNS,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert f"exit statuses {{0: {RUNS}}}" in done.stdout


def _lines(*messages: dict) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}},
}
_SEARCHES = [
    {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": f"alpha setup {n}"}},
    }
    for n in range(1, 21)
]


@pytest.mark.parametrize("which", ["model", "text-only"])
def test_requests_piped_in_at_once_are_all_answered_before_the_server_exits(
    which: str, tiny_index: Path, text_only_index: Path
) -> None:
    # `printf ... | docs-mcp serve`: the input ends while the searches are still running; each gets its answer.
    index = tiny_index if which == "model" else text_only_index
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = subprocess.run(
        _SERVE + ["--index", str(index)],
        input=_lines(_INITIALIZE, initialized, *_SEARCHES),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(answer["id"] for answer in answers) == list(range(21))
    assert all("result" in answer and not answer["result"].get("isError") for answer in answers)


def test_a_client_that_stops_reading_ends_the_server_with_exit_0_and_no_traceback(text_only_index: Path) -> None:
    with subprocess.Popen(
        _SERVE + ["--index", str(text_only_index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as server:
        server.stdout.close()  # the client goes away without reading a line: every answer meets a broken pipe
        server.stdin.write(_lines(_INITIALIZE, *_SEARCHES))
        server.stdin.close()
        stderr = server.stderr.read().decode()
        assert server.wait(timeout=120) == 0, stderr[-3000:]
    assert "Traceback" not in stderr and "the client closed the connection" in stderr


def test_a_client_that_stops_reading_but_keeps_the_pipe_open_ends_the_server_after_the_drain(
    text_only_index: Path,
) -> None:
    # The answers fill the pipe and stay there: the last writes wait on it, but only within the end of input's
    # wait for answers (DRAIN_SECONDS, 60 s), then the server drops them and exits 0. It used to wait for ever.
    searches = [{**_SEARCHES[0], "id": n} for n in range(1, 400)]
    server = subprocess.Popen(
        _SERVE + ["--index", str(text_only_index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    logged: list[bytes] = []
    reader = threading.Thread(target=lambda: logged.append(server.stderr.read()))
    reader.start()
    try:
        server.stdin.write(_lines(_INITIALIZE, *searches))
        server.stdin.close()  # stdout stays open and unread
        code = server.wait(timeout=240)
    finally:
        server.kill()
        reader.join()
        server.stdout.close()
        server.stderr.close()
    stderr = b"".join(logged).decode()
    assert code == 0, stderr[-3000:]
    assert "the client stopped reading" in stderr and "Traceback" not in stderr
