"""Stdio on the event loop: pipes read and written whole and in order, stdout claimed and given back, and a
server whose stdin, stdout or stderr is not a pipe of its own (a file, ``2>&1``) answering through threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import anyio
import pytest

from docs_mcp.server.stdio_pipes import LoopReader, LoopWriter

_SERVE = [sys.executable, "-m", "docs_mcp", "serve"]


def test_a_writer_on_a_full_pipe_leaves_the_loop_free_and_delivers_everything_in_order():
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    text = "".join(f"line {n} " + "x" * (n % 97) + "\n" for n in range(40_000))  # 2.5 MB: the pipe fills many times
    received = bytearray()
    drain_at = threading.Event()
    stuck = threading.Event()

    def drain() -> None:
        if not drain_at.wait(timeout=60):  # a deadlock detector, not a timing: the loop never got back
            stuck.set()
        while chunk := os.read(read_end, 7_000):
            received.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()

    async def write() -> None:
        writer = LoopWriter(write_end)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(writer.write, text)
            await anyio.wait_all_tasks_blocked()  # the writer waits for the full pipe without holding the loop
            drain_at.set()
        await writer.write("é\n")  # text goes out as UTF-8
        await writer.flush()

    anyio.run(write)
    os.close(write_end)
    reader.join(timeout=60)
    os.close(read_end)
    assert not stuck.is_set()
    assert received.decode() == text + "é\n"


def test_a_reader_gets_the_bytes_as_they_come_then_the_end():
    read_end, write_end = os.pipe()

    async def read_all() -> list[bytes]:
        reader, chunks = LoopReader(read_end), []
        os.write(write_end, b'{"a": 1}\n')
        chunks.append(await reader.read1(1 << 16))
        os.write(write_end, b'{"b": 2}\n')
        os.close(write_end)
        while chunk := await reader.read1(1 << 16):
            chunks.append(chunk)
        return chunks

    assert anyio.run(read_all) == [b'{"a": 1}\n', b'{"b": 2}\n']
    os.close(read_end)


_CLAIM = textwrap.dedent(
    """
    import os, anyio
    from docs_mcp.server.stdio_pipes import loop_stdout

    async def main():
        with loop_stdout() as writer:
            print("stray print", flush=True)  # fd 1 points at stderr meanwhile
            await writer.write("wire\\n")
            print("blocking:", os.get_blocking(writer._fd), flush=True)
        print("after: fd 1 is the wire again, blocking:", os.get_blocking(1), flush=True)

    anyio.run(main)
    """
)


def test_stdout_is_claimed_on_a_pipe_and_given_back_blocking():
    done = subprocess.run([sys.executable, "-c", _CLAIM], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wire\nafter: fd 1 is the wire again, blocking: True\n"
    assert "stray print" in done.stderr and "blocking: False" in done.stderr


def test_stdout_shared_with_stderr_is_not_claimed():
    # 2>&1: one pipe for both; put in non-blocking mode, log lines could meet a full pipe. The SDK's transport writes.
    script = "from docs_mcp.server.stdio_pipes import loop_stdout\nwith loop_stdout() as writer:\n    print(writer)\n"
    done = subprocess.run(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60
    )
    assert done.stdout == "None\n"


def _requests() -> bytes:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "pipes", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "search_docs", "arguments": {"query": "alpha setup"}},
            }
            for n in range(1, 6)
        ),
    ]
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def _answered(output: bytes) -> list[int]:
    answers = [json.loads(line) for line in output.splitlines() if line.startswith(b'{"jsonrpc"')]
    assert all("result" in answer and not answer["result"].get("isError") for answer in answers)
    return sorted(answer["id"] for answer in answers)


@pytest.mark.parametrize("stdio", ["pipes", "files", "stderr on stdout"])
def test_a_server_answers_over_pipes_files_and_a_shared_pipe(stdio: str, text_only_index: Path, tmp_path: Path) -> None:
    command = _SERVE + ["--index", str(text_only_index)]
    if stdio == "files":  # docs-mcp serve < requests.jsonl > answers.jsonl: threads read and write
        (tmp_path / "requests.jsonl").write_bytes(_requests())
        with (tmp_path / "requests.jsonl").open("rb") as stdin, (tmp_path / "answers.jsonl").open("wb") as stdout:
            done = subprocess.run(command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=120)
        output = (tmp_path / "answers.jsonl").read_bytes()
    else:
        stderr = subprocess.STDOUT if stdio == "stderr on stdout" else subprocess.PIPE
        done = subprocess.run(command, input=_requests(), stdout=subprocess.PIPE, stderr=stderr, timeout=120)
        output = done.stdout
    assert done.returncode == 0, (done.stderr or b"").decode()[-3000:]
    assert _answered(output) == [0, 1, 2, 3, 4, 5]
