"""Stdin and stdout read and written on the event loop, for the pipes and sockets an MCP client starts a server with.

anyio's file wrapper, which the SDK's stdio transport writes with (and the guard read with), runs each read,
write and flush in a worker thread: a request waited for one hand-over to be read and its answer for two
more to be written, each a wake-up of a thread and then of the loop. On a pipe or a socket the event loop
waits for readiness itself and reads or writes at once (a full-text search over stdio: p50 2.87 -> 2.51 ms,
FastAPI, four alternating runs). A terminal or a file keeps the worker threads: the loop cannot wait on a
file, and a terminal's modes are the user's.

Reading changes nothing on stdin: once the loop says it is readable, a read returns at once. Writing does:
a client that stops reading must stall the answers, not the loop, so the answers go to a non-blocking
descriptor (as Node writes its pipes), our own duplicate of fd 1, while fd 1 points at stderr (as the SDK's
transport points it: a stray print misses the wire). Not when stderr is the same pipe (``2>&1``): log
lines must not meet a full pipe in non-blocking mode.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import anyio

__all__ = ["LoopReader", "LoopWriter", "loop_stdout", "stdin_reader"]

STDIN, STDOUT, STDERR = 0, 1, 2


class LoopReader:
    """The bytes of a pipe or socket as they come (``read1``, as the guard reads them), read on the event loop."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read1(self, size: int) -> bytes:
        while True:
            await anyio.wait_readable(self._fd)
            try:
                return os.read(self._fd, size)  # b"" at the end of input
            except BlockingIOError:
                continue  # readiness without data: a descriptor shared with another non-blocking one


class LoopWriter:
    """Text written whole to a non-blocking descriptor on the event loop, waiting while the pipe is full."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> None:
        data = memoryview(text.encode())
        while data:
            try:
                data = data[os.write(self._fd, data) :]
            except BlockingIOError:
                await anyio.wait_writable(self._fd)

    async def flush(self) -> None:
        """Nothing is held back: ``write`` returns once the pipe has it all."""


def stdin_reader() -> LoopReader | anyio.AsyncFile[bytes]:
    """What the guard reads requests from: stdin on the event loop when it is a pipe or socket, else through threads."""
    return LoopReader(STDIN) if _loop_can_wait_on(STDIN) else anyio.wrap_file(sys.stdin.buffer)


@contextmanager
def loop_stdout() -> Iterator[LoopWriter | None]:
    """A writer of the answers on the event loop, with fd 1 pointed at stderr until the end; None where the SDK's
    transport writes stdout itself (not a pipe or socket, the same pipe as stderr, descriptors that cannot move)."""
    if not _loop_can_wait_on(STDOUT) or _same_file(STDOUT, STDERR):
        yield None
        return
    import fcntl  # POSIX only, as the check above

    try:
        private = fcntl.fcntl(STDOUT, fcntl.F_DUPFD_CLOEXEC, 3)  # above the standard three, closed in children
    except OSError:
        yield None
        return
    try:
        os.dup2(STDERR, STDOUT)
    except OSError:
        os.close(private)
        yield None
        return
    os.set_blocking(private, False)
    try:
        yield LoopWriter(private)
    finally:
        with suppress(OSError):
            os.set_blocking(private, True)  # the pipe's mode is shared with whoever holds it after us
            os.dup2(private, STDOUT)
        os.close(private)


def _loop_can_wait_on(fd: int) -> bool:
    """A pipe or a socket, where the event loop can wait for readiness (not on Windows: its loop waits on sockets only)."""
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(fd: int, other: int) -> bool:
    try:
        mine, theirs = os.fstat(fd), os.fstat(other)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)
