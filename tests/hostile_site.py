"""A hostile documentation site on 127.0.0.1: raw sockets that misbehave the ways real servers do.

Each route is an async behaviour that writes whatever bytes it likes to the connection, when it
likes: response headers one byte at a time, a body that trickles, a body that never ends, a
Content-Length that lies, HTML nested thousands of levels deep. The server is a plain asyncio
socket server on its own thread (no HTTP library in between that would tidy the bytes up),
and records every request line so a test can count the attempts a fetcher made.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

Behaviour = Callable[[asyncio.StreamWriter], Awaitable[None]]
_SITES: dict[asyncio.AbstractEventLoop, HostileSite] = {}  # a behaviour finds its site by the loop it runs on
STOP_AFTER = 20.0  # seconds: a trickle ends by then, so a fetcher without a deadline finishes (and its test fails) rather than hangs


def response_head(
    status: str = "200 OK",
    content_type: str = "text/markdown; charset=utf-8",
    length: int | None = None,
    extra: str = "",
) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nConnection: close\r\n"
    if length is not None:
        head += f"Content-Length: {length}\r\n"
    return (head + extra + "\r\n").encode()


def whole(body: bytes, content_type: str = "text/markdown; charset=utf-8", status: str = "200 OK") -> Behaviour:
    """A well-behaved answer."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(response_head(status, content_type, len(body)) + body)

    return send


def slow_headers(body: bytes, every: float) -> Behaviour:
    """The status line and headers one byte every ``every`` seconds (each read of the client gets a byte in time)."""

    async def send(writer: asyncio.StreamWriter) -> None:
        head = response_head(length=len(body))
        started = asyncio.get_running_loop().time()
        for byte in head:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0 if asyncio.get_running_loop().time() - started > STOP_AFTER else every)
        writer.write(body)

    return send


def slow_body(body: bytes, every: float) -> Behaviour:
    """Headers at once, then the body one byte every ``every`` seconds."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(response_head(length=len(body)))
        started = asyncio.get_running_loop().time()
        for byte in body:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0 if asyncio.get_running_loop().time() - started > STOP_AFTER else every)

    return send


def endless_body(chunk: bytes = b"word " * 200, every: float = 0.01) -> Behaviour:
    """No Content-Length, and a body that never ends (until the client gives up or STOP_AFTER)."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(response_head())
        started = asyncio.get_running_loop().time()
        while asyncio.get_running_loop().time() - started < STOP_AFTER:
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(every)

    return send


def lying_length(declared: int, body: bytes) -> Behaviour:
    """A Content-Length far larger than what is sent, then silence (the connection held open)."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(response_head(length=declared) + body)
        await writer.drain()
        await asyncio.sleep(STOP_AFTER)

    return send


def held(body: bytes, content_type: str = "text/markdown; charset=utf-8") -> Behaviour:
    """Say nothing until the test calls ``HostileSite.release_held()``, then answer in full."""

    async def send(writer: asyncio.StreamWriter) -> None:
        site = _SITES[asyncio.get_running_loop()]
        await site._released.wait()
        writer.write(response_head(length=len(body), content_type=content_type) + body)

    return send


def silent() -> Behaviour:
    """Accept the connection, read the request, never answer."""

    async def send(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(STOP_AFTER)

    return send


def deep_html(levels: int) -> bytes:
    """A page with ``levels`` nested <div>s around one paragraph of real text."""
    text = b"<p>Skyhook retries failed requests with exponential backoff and jitter.</p>"
    return (
        b"<!doctype html><html><head><title>Deep</title></head><body>"
        + b"<div>" * levels
        + text
        + b"</div>" * levels
        + b"</body></html>"
    )


@dataclass
class HostileSite:
    """The running site: ``route(path, behaviour)`` then ``url(path)``."""

    routes: dict[str, Behaviour] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._arrived = threading.Condition()
        self._loop = asyncio.new_event_loop()
        _SITES[self._loop] = self
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True, name="hostile-site")
        self._thread.start()
        ready.wait(10)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def route(self, path: str, behaviour: Behaviour) -> str:
        self.routes[path] = behaviour
        return self.url(path)

    def hits(self, path: str) -> int:
        return sum(line.split(" ")[1:2] == [path] for line in self.requests)

    def release_held(self) -> None:
        """Let every ``held`` response (waiting now or later) answer."""
        self._loop.call_soon_threadsafe(self._released.set)

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> bool:
        """Whether ``count`` requests have arrived within ``timeout`` (an event, not a timer)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve(ready))
        _SITES.pop(self._loop, None)
        self._loop.close()

    async def _serve(self, ready: threading.Event) -> None:
        self._stop = asyncio.Event()
        self._released = asyncio.Event()
        server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await reader.readline()).decode("latin-1").strip()
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # the request headers: read and ignored
            with self._arrived:
                self.requests.append(line)
                self._arrived.notify_all()
            path = line.split(" ")[1] if line.count(" ") >= 2 else "/"
            behaviour = self.routes.get(path) or whole(b"not found", "text/plain", "404 Not Found")
            await behaviour(writer)
            await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client gave up (what a deadline is for), or the site is closing
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()


def running_hostile_site() -> Iterator[HostileSite]:
    site = HostileSite()
    try:
        yield site
    finally:
        site.close()
