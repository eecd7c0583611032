"""A real HTTP server on 127.0.0.1 for tests: each GET answered by a function of its path, every path asked recorded.

The fetcher refuses loopback addresses; a test that fetches from this server sets the test-only allowance
``DOCS_MCP_ALLOW_PRIVATE_FETCH=1`` (indexer/sources/web/safety.py), never a weaker production rule.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Answer:
    """What the server answers to one GET."""

    body: bytes = b""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LoopbackServer:
    """The server's base URL (``http://127.0.0.1:PORT``) and the paths asked so far, in order."""

    url: str
    asked: list[str]


@contextmanager
def serve_loopback(answer: Callable[[str], Answer]) -> Iterator[LoopbackServer]:
    """Serve ``answer(path)`` to every GET on 127.0.0.1 (a free port) until the block ends."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook
            asked.append(self.path)
            reply = answer(self.path)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LoopbackServer(f"http://127.0.0.1:{server.server_address[1]}", asked)
    finally:
        server.shutdown()
        server.server_close()
