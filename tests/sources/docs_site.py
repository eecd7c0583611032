"""A documentation site on 127.0.0.1 for the remote-source tests: routes of canned responses.

Each route answers with a body, content type and validators (ETag, Last-Modified, honoured
for conditional GETs), or fails a given number of times, redirects, or holds the
response until the test ends (a slow source). Every request is recorded, so a test can
tell a cache hit (no request) from a revalidation (a 304) from a fetch.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy


@dataclass
class Route:
    body: bytes = b""
    content_type: str = "text/markdown; charset=utf-8"
    status: int = 200
    etag: str = ""
    last_modified: str = ""
    failures: int = 0  # answer 503 this many times first
    location: str = ""  # redirect target (status 302)
    hold: bool = False  # never answer before the site closes (a hung source)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]


class DocsSite:
    """A running site; ``url(path)`` is its address for ``path``."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Request] = []
        self._release = threading.Event()
        self._arrived = threading.Condition()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                with site._arrived:
                    site.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}))
                    site._arrived.notify_all()
                site._answer(self)

            def log_message(self, *_args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def serve(self, path: str, body: str | bytes, **kwargs: object) -> str:
        """Add a route; returns its URL."""
        self.routes[path] = Route(body=body.encode() if isinstance(body, str) else body, **kwargs)  # type: ignore[arg-type]
        return self.url(path)

    def hits(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]

    def wait_for_hits(self, path: str, count: int, timeout: float = 30.0) -> list[Request]:
        """The requests for ``path`` once ``count`` have arrived (or ``timeout`` passed): a client that gave up
        may have sent its request before this site's thread got to read it."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.hits(path)) >= count, timeout)
            return self.hits(path)

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        route = self.routes.get(handler.path) or self.routes.get(handler.path.split("?", 1)[0])
        if route is None:
            return _send(handler, 404, b"not found", "text/plain")
        if route.hold:
            self._release.wait(30)
            return None
        if route.failures > 0:
            route.failures -= 1
            return _send(handler, 503, b"down", "text/plain")
        if route.location:
            return _send(handler, 302, b"", "text/plain", {"Location": route.location})
        validators = {k: v for k, v in (("ETag", route.etag), ("Last-Modified", route.last_modified)) if v}
        inm, ims = handler.headers.get("If-None-Match"), handler.headers.get("If-Modified-Since")
        if (route.etag and inm == route.etag) or (
            route.last_modified and ims == route.last_modified and not route.etag
        ):
            return _send(handler, 304, b"", route.content_type, validators)
        return _send(handler, route.status, route.body, route.content_type, {**validators, **route.headers})


def _send(
    handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    if status != 304:
        handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    if status != 304:
        handler.wfile.write(body)


def running_site() -> Iterator[DocsSite]:
    site = DocsSite()
    try:
        yield site
    finally:
        site.close()


_OPEN: list[Fetcher] = []


def open_fetcher(policy: FetchPolicy, **kwargs: Any) -> Fetcher:
    """A Fetcher that tests/sources/conftest.py closes when the test ends."""
    _OPEN.append(Fetcher(policy, **kwargs))
    return _OPEN[-1]


def close_fetchers() -> None:
    while _OPEN:
        _OPEN.pop().close()
