"""A real HTTP server on loopback serving a folder of built documentation (Python's http.server),
with extra routes (robots.txt, sitemaps) and a log of every request and its status."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

Routes = Mapping[str, tuple[int, str, bytes]]


@dataclass
class SiteLog:
    """(path, status) of every request, in order."""

    requests: list[tuple[str, int]] = field(default_factory=list)
    authorization: list[tuple[str, str]] = field(default_factory=list)  # (path, Authorization header) of each request
    lock: threading.Lock = field(default_factory=threading.Lock)

    def statuses(self, suffix: str = ".html") -> list[int]:
        with self.lock:
            return [status for path, status in self.requests if path.split("?")[0].endswith(suffix)]

    def paths(self) -> list[str]:
        with self.lock:
            return [path for path, _ in self.requests]


class _Handler(SimpleHTTPRequestHandler):
    routes: dict[str, tuple[int, str, bytes]] = {}
    log: SiteLog

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        with self.log.lock:
            self.log.authorization.append((self.path, self.headers.get("Authorization", "")))
        route = self.routes.get(self.path.split("?")[0])
        if route is None:
            super().do_GET()
            return
        status, content_type, body = route
        self.send_response(status)
        if 300 <= status < 400:
            self.send_header("Location", body.decode())
            body = b""
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_request(self, code: object = "-", size: object = "-") -> None:
        with self.log.lock:
            self.log.requests.append((self.path, int(code) if str(code).isdigit() else 0))

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        return


@contextmanager
def serve_site(root: Path, routes: Callable[[str], Routes] | None = None) -> Iterator[tuple[str, SiteLog]]:
    """Serve ``root`` on 127.0.0.1 (a free port) in a thread: yields (base URL, request log).

    ``routes`` gives, from the base URL, extra answers by path (robots.txt, sitemaps): (status, type, body);
    a 3xx answer's body is its Location.
    """
    log = SiteLog()
    handler = type("Handler", (_Handler,), {"routes": {}, "log": log})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    base = f"http://127.0.0.1:{server.server_address[1]}"
    handler.routes = dict(routes(base)) if routes else {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base, log
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
