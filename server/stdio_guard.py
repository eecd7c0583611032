"""The stdio transport's guard: every line a client sends gets a message to the server or an error back.

The SDK's stdio reader hands a line it cannot validate to the server as an exception, which
the server only logs at debug level: the client never hears back. That covers garbage,
batches, an ``id`` that is an object, and lines too deep (pydantic stops at about 200
levels) or carrying an integer longer than Python converts (4,300 digits). A client
without its own timeout then waits forever. Here each line is checked against size,
depth and number limits first, and a bad one is answered with a JSON-RPC error (with the
request's id when it can be read) while the session goes on. A request whose method name
is longer than any MCP method is answered here too: the SDK would echo the whole name back
in its "Method not found" error (a megabyte for a megabyte).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectSendStream
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from docs_mcp.server.errors import quoted
from docs_mcp.server.pending_answers import DRAIN_SECONDS, PendingAnswers, RecordedAnswers
from docs_mcp.server.stdio_pipes import LoopReader, loop_stdout, stdin_reader

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # a tool call is a few KB; 4 MiB leaves room for any real message
MAX_DEPTH = 64  # a tool call nests about 6 levels
MAX_INTEGER_DIGITS = 1_000  # int() is still quick; the tools answer an out-of-range value with isError
MAX_METHOD_CHARS = 128  # MCP's longest method names are about 40 characters
_CHUNK_BYTES = 64 * 1024
_LAST_WRITES_SECONDS = 5.0  # the least time the last answers get to reach a client once the session is over
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ONE_PER_LINE = "Send one JSON-RPC 2.0 message (an object) per line."


@dataclass(frozen=True)
class Rejected:
    """A line that is not a message the server can take, and the error to answer it with."""

    code: int
    message: str
    request_id: str | int | None = None

    def reply(self) -> SessionMessage:
        error = types.ErrorData(code=self.code, message=self.message)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=self.request_id, error=error))


@dataclass(frozen=True)
class _Oversized:
    """Stands for a line longer than MAX_MESSAGE_BYTES, whose rest is skipped unread; ``head`` is its start."""

    head: bytes = b""

    def rejected(self) -> Rejected:
        """The answer, with the request's id when the head names one (clients put it before the params)."""
        return Rejected(
            types.INVALID_REQUEST,
            f"The message is longer than {MAX_MESSAGE_BYTES} bytes and was skipped. {_ONE_PER_LINE}",
            _head_id(self.head),
        )


# A top-level id among the first members, before any nested object: {"jsonrpc": "2.0", "id": 7, ...
_HEAD_ID = re.compile(rb'\{[^{\[]{0,64}?"id"\s*:\s*(-?\d{1,20}|"[^"\\]{0,100}")\s*[,}]')
_HEAD_BYTES = 256


def _head_id(line: bytes) -> str | int | None:
    """The request's id read from the start of a line that cannot be parsed whole (too long, too deep, not JSON
    further on), so the error still names the request; None when the head names none."""
    found = _HEAD_ID.match(line[:_HEAD_BYTES])
    try:
        return None if found is None else json.loads(found.group(1))
    except ValueError:  # an id that is not UTF-8
        return None


class _Unacceptable(ValueError):
    """A parsed line that breaks a limit; carries what to tell the client."""


@dataclass(frozen=True)
class _LongInteger:
    """Stands for an integer literal too long to convert, so the rest of the line still parses (for its id)."""

    digits: int


def check_line(line: bytes) -> SessionMessage | Rejected:
    """The message a line carries, or why it is refused (never raises)."""
    try:
        # json.loads' own reading of bytes, with one decoder for every line (json.loads builds one a call).
        value = _DECODER.decode(line.decode(json.detect_encoding(line), "surrogatepass"))
    except RecursionError:
        return Rejected(
            types.INVALID_REQUEST,
            f"The message nests more than {MAX_DEPTH} levels deep. {_ONE_PER_LINE}",
            _head_id(line),
        )
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, and the hooks' refusals
        return Rejected(
            types.PARSE_ERROR,
            f"Parse error: the line is not valid JSON ({_short(error)}). {_ONE_PER_LINE}",
            _head_id(line),
        )
    if isinstance(value, list):
        return Rejected(types.INVALID_REQUEST, f"JSON-RPC batches are not supported. {_ONE_PER_LINE}")
    if not isinstance(value, dict):
        return Rejected(types.INVALID_REQUEST, f"The message is not a JSON object. {_ONE_PER_LINE}")
    request_id = _request_id(value)
    if "id" in value and request_id is None:
        return Rejected(types.INVALID_REQUEST, f"The message's id must be a string or an integer. {_ONE_PER_LINE}")
    too_long = long_method(value)
    if too_long is not None:
        return too_long
    try:
        if not _plainly_within_limits(line):
            _check_limits(value)
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except _Unacceptable as error:
        return Rejected(types.INVALID_REQUEST, str(error), request_id)
    except ValidationError:
        return Rejected(
            types.INVALID_REQUEST,
            'Invalid request: expected {"jsonrpc": "2.0", "method": ..., "id": <string or integer>} '
            f"(no id for a notification), or a response to a request of the server. {_ONE_PER_LINE}",
            request_id,
        )


def long_method(value: dict[str, Any]) -> Rejected | None:
    """The answer to a request (or notification) whose method name is too long to be one; None otherwise.

    A notification gets no answer (JSON-RPC), but is still not passed on.
    """
    method = value.get("method")
    if not isinstance(method, str) or len(method) <= MAX_METHOD_CHARS:
        return None
    return Rejected(
        types.METHOD_NOT_FOUND,
        f"Method not found: {quoted(method)}. Call an MCP method such as tools/list or tools/call.",
        _request_id(value),
    )


async def read_lines(stream: LoopReader | anyio.AsyncFile[bytes]) -> AsyncIterator[bytes | _Oversized]:
    """The lines of ``stream``; a line past MAX_MESSAGE_BYTES comes as one _Oversized, never held whole."""
    pending = bytearray()
    skipping = False
    while chunk := await stream.read1(_CHUNK_BYTES):
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            line, pending = bytes(pending[:end]), pending[end + 1 :]
            if skipping:
                skipping = False
            elif len(line) > MAX_MESSAGE_BYTES:
                yield _Oversized(line[:_HEAD_BYTES])
            elif line.strip():
                yield line
        if len(pending) > MAX_MESSAGE_BYTES:
            if not skipping:
                yield _Oversized(bytes(pending[:_HEAD_BYTES]))
            skipping = True
            pending.clear()
    if pending.strip() and not skipping:
        yield bytes(pending)


async def guard(
    stream: LoopReader | anyio.AsyncFile[bytes],
    to_server: ObjectSendStream[SessionMessage | Exception],
    to_client: ObjectSendStream[SessionMessage],
    pending: PendingAnswers | None = None,
) -> None:
    """Pass each good line of ``stream`` to the server and answer each bad one; close ``to_server`` at the end, once
    the requests passed on are answered (``pending``: see pending_answers.py)."""
    pending = pending or PendingAnswers()
    async with to_server:
        async for line in read_lines(stream):
            checked = line.rejected() if isinstance(line, _Oversized) else check_line(line)
            try:
                if isinstance(checked, Rejected):
                    if (
                        checked.code != types.METHOD_NOT_FOUND or checked.request_id is not None
                    ):  # notifications get no answer
                        await to_client.send(checked.reply())
                else:
                    pending.taken(checked.message)
                    await to_server.send(checked)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the server has stopped: nobody is left to answer
        if not await pending.all_answered():
            logger.warning(
                "the input ended with requests still running after %.0f s: they are left unanswered", DRAIN_SECONDS
            )


@asynccontextmanager
async def guarded_stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], RecordedAnswers]
]:
    """The server's streams over stdin and stdout, with stdin read through the guard.

    The SDK's transport writes the answers (to pipes on the event loop: stdio_pipes.py); it gets no lines of its
    own to read. At the end of input, the requests in flight are answered first.
    """
    pending = PendingAnswers()
    with loop_stdout() as stdout, anyio.CancelScope() as writing:
        # The SDK annotates its streams as anyio files; it only iterates stdin and awaits stdout's write and flush.
        stdio = stdio_server(stdin=_NoLines(), stdout=stdout)  # type: ignore[arg-type]
        async with stdio as (_, to_client):
            to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            try:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(guard, stdin_reader(), to_server, to_client, pending)
                    yield from_client, RecordedAnswers(to_client, pending)
            finally:
                # The session is over; the transport still writes what it holds. A client that stopped reading
                # (its end of the pipe open, full) would keep that write, and the process, waiting for ever: it
                # gets what is left of the end of input's wait for answers (a few seconds at least).
                now = anyio.current_time()
                writing.deadline = max(pending.drain_ends or now + DRAIN_SECONDS, now + _LAST_WRITES_SECONDS)
    if writing.cancelled_caught:
        logger.warning("the client stopped reading: the answers it did not read are dropped")


class _NoLines:
    """Stands in for the SDK transport's stdin: the guard reads the real one."""

    def __aiter__(self) -> _NoLines:
        return self

    async def __anext__(self) -> str:
        raise StopAsyncIteration


def _integer(text: str) -> int | _LongInteger:
    # Checked before int(): a long one costs quadratic time, and past 4,300 digits int() refuses it.
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if digits > MAX_INTEGER_DIGITS else int(text)


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_int=_integer, parse_constant=_no_constant)


def _plainly_within_limits(line: bytes) -> bool:
    """Whether a line's bytes alone show that its message keeps every limit _check_limits walks it for (a tool
    call's line does: the walk is 11 us of every request): ASCII without a NUL (so read as UTF-8, one byte a
    character: no surrogate's own bytes, no UTF-16 or UTF-32), no \\u escape, no more brackets than MAX_DEPTH
    levels, and too short for a long integer."""
    return (
        len(line) <= MAX_INTEGER_DIGITS
        and line.isascii()
        and b"\x00" not in line
        and b"\\u" not in line
        and line.count(b"{") + line.count(b"[") <= MAX_DEPTH
    )


def _request_id(value: dict[str, Any]) -> str | int | None:
    request_id = value.get("id")
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


def _check_limits(value: Any) -> None:
    """Depth and strings of a parsed message, walked without recursion."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > MAX_DEPTH:
                raise _Unacceptable(f"The message nests more than {MAX_DEPTH} levels deep. Send flatter arguments.")
            children = [*node.keys(), *node.values()] if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(node, _LongInteger):
            raise _Unacceptable(
                f"The message holds an integer of {node.digits} digits. Send integers of at most {MAX_INTEGER_DIGITS} digits."
            )
        elif isinstance(node, str) and _LONE_SURROGATE.search(node):
            raise _Unacceptable(
                "The message holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff). Send valid Unicode text."
            )


def _short(error: ValueError) -> str:
    return str(error)[:120]
