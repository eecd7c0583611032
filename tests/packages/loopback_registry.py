"""A PyPI and npm registry on loopback serving the recorded documents and archives of ``registry/``.

    GET /pypi/{name}/json            the recorded PyPI project document (404 for any other name)
    GET /packages/.../{file}         a recorded sdist, by file name (PyPI's file URLs resolve here)
    GET /{name}                      the recorded npm package document, its tarball URLs pointing here
    GET /{name}/-/{file}             a recorded npm tarball
    GET /site/..., /repos/...        a documentation site's pages, a GitHub API lookalike's answers and archives
                                     (``site``: path -> body, media type; GitHub's API base is this server)

Answers carry an ETag and honour If-None-Match (304), as the real registries do. ``lie`` (a function of the
package name and its document's JSON text) rewrites the documents served: a hostile registry. A request whose
path ends with ``hold`` waits (``held`` is set when it arrives) until ``let_go`` is set. ``requests``
lists every path asked, so a test can prove that a second run asked nothing; ``down`` makes every
answer a 503 (a registry outage); ``tamper`` serves archives with a byte changed. ``documentation``
(a URL) is set as every served package's documentation site: PyPI's ``project_urls`` gets a
``Documentation`` entry and the npm document a ``homepage`` (the rest of the documents stays as recorded).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

DATA = Path(__file__).parent / "registry"
NPM_ORIGIN = b"https://registry.npmjs.org/"


class LoopbackRegistry:
    """The server, started on a free loopback port for the life of a ``with`` block."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.down = False
        self.tamper = False
        self.documentation = ""
        self.lie: Callable[[str, str], str] | None = None
        self.hold = ""
        self.held = threading.Event()
        self.let_go = threading.Event()
        self.site: dict[str, tuple[bytes, str]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def environment(self, **extra: str) -> dict[str, str]:
        """The variables that point docs-mcp at this registry (test mode: loopback fetches allowed)."""
        return {"DOCS_MCP_PYPI_URL": self.url, "DOCS_MCP_NPM_URL": self.url, "DOCS_MCP_GITHUB_API": self.url, "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1",
                **extra}  # fmt: skip

    def __enter__(self) -> LoopbackRegistry:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.let_go.set()
        self._server.shutdown()
        self._server.server_close()

    def serve_as_tomli(self, sdist: bytes, path: str = "/site/tomli-2.0.1.tar.gz") -> None:
        """Serve ``sdist`` (its digest stated right) as tomli 2.0.1's only file, tomli naming no richer source."""
        self.site[path] = (sdist, "application/octet-stream")

        def lie(name: str, text: str) -> str:
            if name != "tomli":
                return text
            document = json.loads(text)
            release = next(f for f in document["releases"]["2.0.1"] if f["packagetype"] == "sdist")
            digest = hashlib.sha256(sdist).hexdigest()
            release.update(url=f"../..{path}", size=len(sdist), digests={"sha256": digest})
            document["releases"]["2.0.1"] = [release]
            document["info"].update(project_urls={}, home_page=None, docs_url=None)
            return json.dumps(document)

        self.lie = lie

    def body(self, path: str) -> tuple[bytes, str] | None:
        """What ``path`` serves, and its media type."""
        parts = [unquote(p) for p in path.split("?", 1)[0].split("/") if p]
        if parts and parts[0] in ("site", "repos"):
            return self.site.get(path.split("?", 1)[0])
        if len(parts) == 3 and parts[0] == "pypi" and parts[2] == "json":
            document = DATA / f"pypi-{parts[1].lower()}.json.gz"
            return (
                (self._documented(gzip.decompress(document.read_bytes()), "pypi", parts[1]), "application/json")
                if document.is_file()
                else None
            )
        if parts and (parts[0] == "packages" or (len(parts) >= 3 and parts[-2] == "-")):
            archive = DATA / parts[-1]
            if not archive.is_file() or archive.suffix not in (".gz", ".tgz"):
                return None
            body = archive.read_bytes()
            return (body[:-1] + bytes([body[-1] ^ 1]) if self.tamper else body), "application/octet-stream"
        if len(parts) == 1:
            document = DATA / f"npm-{parts[0]}.json.gz"
            if document.is_file():
                body = gzip.decompress(document.read_bytes()).replace(NPM_ORIGIN, f"{self.url}/".encode())
                return self._documented(body, "npm", parts[0]), "application/json"
        return None

    def _documented(self, body: bytes, registry: str, name: str) -> bytes:
        """The document with ``documentation`` as the package's documentation site, as ``lie`` rewrites it."""
        if self.lie is not None:
            body = self.lie(name, body.decode()).encode()
        if not self.documentation:
            return body
        document = json.loads(body)
        if registry == "pypi":
            document["info"]["project_urls"] = {
                **(document["info"].get("project_urls") or {}),
                "Documentation": self.documentation,
            }
        else:
            document["homepage"] = self.documentation
        return json.dumps(document).encode()


def _handler(registry: LoopbackRegistry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook
            registry.requests.append(self.path)
            if registry.hold and self.path.endswith(registry.hold):
                registry.held.set()
                registry.let_go.wait(timeout=120)
            if registry.down:
                self._answer(503, b"down", "text/plain")
                return
            found = registry.body(self.path)
            if found is None:
                self._answer(404, b"not found", "text/plain")
                return
            body, media = found
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self._answer(200, body, media, etag)

        def _answer(self, status: int, body: bytes, media: str, etag: str = "") -> None:
            self.send_response(status)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
            if etag:
                self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            return

    return Handler


def client_for(registry: LoopbackRegistry, index: Path, **extra: str):
    """A RegistryClient of ``index`` reading the loopback registry, without retry waits."""
    from docs_mcp.indexer.sources.packages.registry_client import RegistryClient, RegistrySettings

    return RegistryClient(RegistrySettings.for_index(index, registry.environment(**extra)), delays=())
