"""The stdio transport answers every line a client sends: hostile or broken messages get a JSON-RPC
error (with the request's id when it can be read) and the session goes on; a real subprocess."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TIMEOUT = 120  # seconds; a bound against hangs, never waited on when things work
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}


class RawSession:
    """`docs-mcp serve` driven line by line, to send what the SDK client never would."""

    def __init__(self, server: subprocess.Popen, lines: queue.Queue[str]) -> None:
        self.server = server
        self.lines = lines

    def send(self, line: str) -> dict[str, Any]:
        """Write one line and read the one reply it gets."""
        self.server.stdin.write(line + "\n")
        self.server.stdin.flush()
        return json.loads(self.lines.get(timeout=TIMEOUT))


@pytest.fixture(scope="module")
def raw(corpus_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawSession]:
    log = tmp_path_factory.mktemp("guard") / "stderr.log"
    with (
        log.open("w") as stderr,
        subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", "serve", "--index", str(corpus_index)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            bufsize=1,
        ) as server,
    ):
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(line) for line in iter(server.stdout.readline, "")])
        reader.start()
        session = RawSession(server, lines)
        assert session.send(json.dumps(INITIALIZE))["id"] == 0
        session.server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        try:
            yield session
            # A search waits for the background warm-up: leaving during it can still abort the
            # process at exit (issue 12's lifecycle item, fixed apart from the wire guard).
            assert "result" in session.send(_call(99, '{"query": "retries"}'))
        finally:
            server.stdin.close()
            assert server.wait(timeout=TIMEOUT) == 0
            reader.join(TIMEOUT)
    assert "Traceback" not in log.read_text()


def _call(request_id: Any, arguments: str) -> str:
    """A tools/call line whose arguments are given as raw JSON text."""
    return f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "method": "tools/call", "params": {{"name": "search_docs", "arguments": {arguments}}}}}'


def _error(reply: dict[str, Any], request_id: Any, code: int) -> str:
    assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]["message"]


def test_deep_nesting_gets_an_error_with_the_request_id(raw: RawSession) -> None:
    deep = '{"query": ' + "[" * 250 + "]" * 250 + "}"
    message = _error(raw.send(_call(7, deep)), 7, INVALID_REQUEST)
    assert "nest" in message and "levels" in message


def test_a_huge_integer_gets_an_error_with_the_request_id(raw: RawSession) -> None:
    message = _error(raw.send(_call(8, '{"query": "x", "limit": ' + "9" * 5000 + "}")), 8, INVALID_REQUEST)
    assert "digits" in message and len(message) < 300


def test_a_long_integer_argument_is_a_tool_error_not_a_protocol_error(raw: RawSession) -> None:
    reply = raw.send(_call(10, '{"query": "x", "limit": ' + "9" * 30 + "}"))
    assert reply["id"] == 10 and reply["result"]["isError"] is True, reply
    assert "Argument 'limit' must be between 1 and 50" in reply["result"]["content"][0]["text"]


@pytest.mark.parametrize(
    ("request_id", "arguments", "code", "said"),
    [
        (
            21,
            '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}",
            INVALID_REQUEST,
            "levels deep",
        ),  # past the parser's recursion
        (22, '{"query": NaN}', PARSE_ERROR, "NaN is not JSON"),
        ("req-23", '{"query": "cut short"', PARSE_ERROR, "not valid JSON"),
    ],
)
def test_a_line_that_cannot_be_parsed_is_answered_with_the_id_its_start_names(
    raw: RawSession, request_id: Any, arguments: str, code: int, said: str
) -> None:
    """Issue 37: these were answered with id null though the id could be read."""
    assert said in _error(raw.send(_call(request_id, arguments)), request_id, code)


def test_garbage_is_a_parse_error(raw: RawSession) -> None:
    assert "JSON" in _error(raw.send("this is not json {"), None, PARSE_ERROR)


def test_a_batch_is_an_invalid_request(raw: RawSession) -> None:
    batch = json.dumps([{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}])
    assert "batch" in _error(raw.send(batch), None, INVALID_REQUEST).lower()


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "id": {}, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": true, "method": "tools/list"}',
        '{"jsonrpc": "1.0", "id": 3, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": 3}',
        '"just a string"',
        "null",
    ],
)
def test_a_message_that_is_not_json_rpc_is_an_invalid_request(raw: RawSession, line: str) -> None:
    reply = raw.send(line)
    assert reply["error"]["code"] == INVALID_REQUEST, reply
    assert reply["id"] in (None, 3)


def test_an_oversized_line_is_refused_without_reading_it_whole(raw: RawSession) -> None:
    message = _error(
        raw.send(_call(10, '{"query": "' + "a" * 5_000_000 + '"}')), 10, INVALID_REQUEST
    )  # the id, from the head
    assert "bytes" in message and len(message) < 300


def test_the_session_goes_on_after_hostile_lines(raw: RawSession) -> None:
    raw.send("]]]")
    reply = raw.send(json.dumps({"jsonrpc": "2.0", "id": 11, "method": "tools/list"}))
    assert reply["id"] == 11 and reply["result"]["tools"]


def test_lines_past_the_size_limit_are_skipped_not_held() -> None:
    import io

    import anyio

    from docs_mcp.server.stdio_guard import MAX_MESSAGE_BYTES, read_lines

    data = (b'{"a": 1}\n' + b"x" * (MAX_MESSAGE_BYTES + 10) + b"\n\n  \n" + b'{"b": 2}\n'
            + b"y" * (MAX_MESSAGE_BYTES + 70_000) + b'\n{"c": 3}')  # fmt: skip

    async def lines() -> list[Any]:
        stream = anyio.wrap_file(io.BufferedReader(io.BytesIO(data)))
        return [line if isinstance(line, bytes) else "oversized" async for line in read_lines(stream)]

    assert anyio.run(lines) == [b'{"a": 1}', "oversized", b'{"b": 2}', "oversized", b'{"c": 3}']


def test_a_method_name_longer_than_any_mcp_method_is_answered_short_not_echoed():
    from docs_mcp.server.stdio_guard import Rejected, check_line

    answer = check_line(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "m" * 1_000_000}).encode())
    assert isinstance(answer, Rejected) and answer.request_id == 4 and answer.code == -32601
    assert len(answer.message) < 250 and "(1000000 characters)" in answer.message
    assert not isinstance(
        check_line(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).encode()), Rejected
    )


def test_a_plain_line_is_not_walked_and_one_near_a_limit_still_is(monkeypatch):
    """A tool call's line shows by its bytes alone that it keeps the depth, integer and surrogate limits: the walk
    over its parsed value (11 us of every request) is skipped; a line that could break one is walked and refused."""
    from docs_mcp.server import stdio_guard
    from docs_mcp.server.stdio_guard import MAX_DEPTH, Rejected, check_line

    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search_docs", "arguments": {}}}
    walked = stdio_guard._check_limits

    def refuse(value: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(stdio_guard, "_check_limits", refuse)
    assert not isinstance(check_line(json.dumps({**call, "params": {"name": "search_docs"}}).encode()), Rejected)
    monkeypatch.setattr(stdio_guard, "_check_limits", walked)

    def arguments(value: object) -> bytes:
        return json.dumps({**call, "params": {"name": "search_docs", "arguments": {"query": value}}}).encode()

    nested: object = "deep"
    for _ in range(MAX_DEPTH):
        nested = [nested]
    refused = [
        arguments(nested),
        arguments("\ud800 alone"),  # json.dumps writes it as the escape \ud800
        arguments("x").replace(b'"x"', b'"\xed\xa0\x80"'),  # the surrogate's own UTF-8 bytes
        arguments("x").replace(b'"x"', b"1" * 1_001),
        arguments("\ud800 alone").decode().encode("utf-16-le"),  # json.loads reads UTF-16 and UTF-32 lines too
        json.dumps({**call, "params": {"query": "\ud800"}}, ensure_ascii=False).encode("utf-32", "surrogatepass"),
    ]
    for line in refused:
        answer = check_line(line)
        assert isinstance(answer, Rejected) and answer.request_id == 7, line[:120]
    assert not isinstance(check_line(arguments("caf\u00e9 \ud55c \\u escapes")), Rejected)
