"""The stdio transport to an upstream server, bounded in what the server may send back.

The SDK's stdio client hands each line to pydantic as it comes: a 50 MB line is read whole,
and a message nested deeper than pydantic's parser goes (about 200 levels: one tool schema
nested 100 levels) fails as a whole, taking the upstream's whole tools/list with it. Here
each line is read up to ``max_message_bytes``: a longer message is dropped and the request
it answered gets an error that says so (RESPONSE_TOO_LARGE); a message is parsed with
orjson, and what nests deeper than ``MAX_JSON_DEPTH`` levels is replaced by a marker, so the
rest of it (the upstream's other tools) arrives, and the catalog bounds say what was cut.

The process is handled as the SDK does: its default environment plus the configured one, a
process group of its own, stdin closed to stop it, then SIGTERM and SIGKILL to the group.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import IO, Any

import anyio
import mcp_types as types
import orjson
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

logger = logging.getLogger(__name__)

MAX_JSON_DEPTH = 128  # below pydantic's own parsing limit; the catalog bounds cut tool schemas far sooner
RESPONSE_TOO_LARGE = -32099  # JSON-RPC server-error range: the error a dropped answer's request gets
STOP_TIMEOUT = 2.0  # seconds an upstream has to exit once its stdin is closed, then again after SIGTERM
DEEP_MARKER = f"[nested deeper than {MAX_JSON_DEPTH} levels: cut by the docs-mcp gateway]"
_HEAD_BYTES = 4096  # of a dropped message, kept to find the ID of the request it answered
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


class _DroppedLine:
    """A line longer than the cap: its first bytes and its size."""

    def __init__(self, head: bytes, size: int) -> None:
        self.head, self.size = head, size


@asynccontextmanager
async def bounded_stdio(
    params: StdioServerParameters, errlog: IO[str], max_message_bytes: int
) -> AsyncIterator[Streams]:
    """Start the upstream's process and yield the (read, write) streams of SessionMessages the SDK's Client takes."""
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        cwd=params.cwd,
        stderr=errlog,
        start_new_session=sys.platform != "win32",
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert process.stdout is not None
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                async for line in _lines(process.stdout, max_message_bytes):
                    message = _message(line, max_message_bytes)
                    if message is not None:
                        await read_writer.send(message)

    async def write() -> None:
        assert process.stdin is not None
        async with write_reader:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for outgoing in write_reader:
                    await process.stdin.send(
                        outgoing.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                    )
        await read_writer.aclose()  # the server cannot be written to: the session must see the connection end

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
                await _stop(process)
            group.cancel_scope.cancel()


async def _lines(stream: ByteReceiveStream, cap: int) -> AsyncIterator[bytes | _DroppedLine]:
    """The stream's lines (without their newline); a line over ``cap`` bytes as _DroppedLine, never held whole."""
    buffer, dropping, size = bytearray(), b"", 0
    async for chunk in stream:
        buffer += chunk
        while (end := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            if dropping or size:
                yield _DroppedLine(dropping or line[:_HEAD_BYTES], size + len(line))
                dropping, size = b"", 0
            elif len(line) > cap:
                yield _DroppedLine(line[:_HEAD_BYTES], len(line))
            else:
                yield line
        if len(buffer) > cap or size:
            dropping = dropping or bytes(buffer[:_HEAD_BYTES])
            size += len(buffer)
            buffer.clear()


def _message(line: bytes | _DroppedLine, cap: int) -> SessionMessage | Exception | None:
    """The SessionMessage of one line (deep parts cut), an error answer for a dropped one, or an exception for garbage."""
    if isinstance(line, _DroppedLine):
        return _refused(
            line.head,
            f"its answer takes {line.size:,} bytes, more than the {cap:,} the gateway reads (gateway.max_message_bytes)",
        )
    if not line.strip():
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        if "recursion" in str(error).lower():
            return _refused(line[:_HEAD_BYTES], "its answer nests deeper than the gateway reads")
        logger.warning("an upstream wrote a line that is not JSON: %s", line[:200])
        return error
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(_pruned(value, 0)))
    except ValueError as error:  # not a JSON-RPC message: the session surfaces it
        return error


def _refused(head: bytes, why: str) -> SessionMessage | Exception:
    match = _ID.search(head)
    logger.warning("an upstream's message was dropped: %s", why)
    if match is None:
        return ValueError(f"An upstream message was dropped: {why}.")
    request_id: Any = orjson.loads(match.group(1))
    error = types.ErrorData(code=RESPONSE_TOO_LARGE, message=f"The upstream answered, but {why}.")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _pruned(value: Any, depth: int) -> Any:
    if not isinstance(value, (dict, list)):
        return value
    if depth >= MAX_JSON_DEPTH:
        return DEEP_MARKER
    if isinstance(value, dict):
        return {key: _pruned(item, depth + 1) for key, item in value.items()}
    return [_pruned(item, depth + 1) for item in value]


async def _stop(process: Process) -> None:
    """Close stdin and give the server STOP_TIMEOUT to exit, then stop its whole process group."""
    assert process.stdin is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(STOP_TIMEOUT):
        await process.wait()
    if process.returncode is None:
        if sys.platform == "win32":  # pragma: no cover - no process groups
            process.kill()
        else:
            from mcp.os.posix.utilities import terminate_posix_process_tree

            await terminate_posix_process_tree(process, STOP_TIMEOUT)
    with anyio.move_on_after(STOP_TIMEOUT), suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.aclose()
