"""MCP resources: server health, the libraries this session looked up, and documents marked for it.

- ``docs-mcp://health``: status, uptime, index generation, chunk/file/library counts, embedding model
  (name, dimensions, weights checksum, runtime, and each model file's sha256 and source package).
- ``docs-mcp://session/resolved-libraries``: libraries ``get_library_info`` described in this
  session; when it grows the server sends ``notifications/resources/list_changed``.
- ``docs:///{filepath}``: each document carrying a taxonomy value marked ``mcp_resource``
  in the corpus manifest, as markdown.

Unknown URIs are protocol errors (invalid params), not tool errors.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
import orjson
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared.exceptions import MCPError

from docs_mcp import __version__
from docs_mcp.indexer.libraries.catalog import RESOURCE_PROPERTY
from docs_mcp.indexer.libraries.library import Library
from docs_mcp.indexer.ranker import ranking_facts
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.errors import quoted
from docs_mcp.server.libraries.answers import catalog_of
from docs_mcp.server.libraries.pages import read_lines
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.sessions import SessionStore, SessionValues, redis_sessions, request_session

HEALTH_URI = "docs-mcp://health"
RESOLVED_URI = "docs-mcp://session/resolved-libraries"
DOCUMENT_SCHEME = "docs:///"
JSON = "application/json"
MARKDOWN = "text/markdown"
WHOLE_PAGE = 10**9
# resources/list changes as the session resolves libraries: say so in the capabilities.
# tools_changed: an index swap can change search_docs' filter enums (see app.AnnouncedTools).
NOTIFICATIONS = NotificationOptions(resources_changed=True, tools_changed=True)


@dataclass(frozen=True)
class ResolvedLibrary:
    """What a session remembers of a library it looked up (what the resolved-libraries resource shows)."""

    library_id: str
    name: str
    languages: tuple[str, ...]


def _encode_resolved(libraries: list[ResolvedLibrary]) -> bytes:
    return orjson.dumps([[lib.library_id, lib.name, list(lib.languages)] for lib in libraries])


def _decode_resolved(raw: bytes) -> list[ResolvedLibrary]:
    return [ResolvedLibrary(library_id, name, tuple(languages)) for library_id, name, languages in orjson.loads(raw)]


@dataclass
class LibrarySessions:
    """Per-session memory of the libraries an agent looked up (see server.sessions for what a session is).

    Also holds the server's start time, for the health resource. ``redis_url``: keep the sessions
    in that Redis, shared by every replica, instead of this process.
    """

    started: float = field(default_factory=time.monotonic)
    _resolved: SessionValues[list[ResolvedLibrary]] = field(default_factory=SessionStore)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def in_redis(cls, url: str, prefix: str) -> LibrarySessions:
        return cls(_resolved=redis_sessions(url, prefix, "libraries", _encode_resolved, _decode_resolved))

    def record(self, session: str, library: Library) -> bool:
        """Remember ``library`` for ``session``; True if it is new there."""
        with self._lock:
            seen = self._resolved.get(session) or []
            if any(lib.library_id == library.library_id for lib in seen):
                return False
            self._resolved.put(
                session, [*seen, ResolvedLibrary(library.library_id, library.name, tuple(library.languages))]
            )
            return True

    def resolved(self, session: str) -> list[ResolvedLibrary]:
        """The libraries ``session`` looked up, in the order it did."""
        with self._lock:
            return list(self._resolved.get(session) or [])


# The handlers' context holds server.app's AppState (live, sessions), which this package may not import: Any.
def session_key(ctx: ServerRequestContext[Any, Any]) -> str:
    """Which session a request belongs to: its caller (and MCP session) over HTTP, the one client over stdio."""
    return request_session(ctx.request)


async def remember_library(
    ctx: ServerRequestContext[Any, Any], sessions: LibrarySessions, live: Any, arguments: Mapping[str, Any] | None
) -> None:
    """After a successful get_library_info: remember the library it described, announce a new one."""
    if not arguments:
        return
    index = await anyio.to_thread.run_sync(live.current)
    library = catalog_of(index).get(str(arguments.get("library_id")).strip())
    if sessions.record(session_key(ctx), library):
        await ctx.session.send_resource_list_changed()


def list_resources(index: ServedIndex, sessions: LibrarySessions, session: str) -> list[types.Resource]:
    """The fixed resources, then one per marked document."""
    fixed = [
        types.Resource(
            name="health",
            uri=HEALTH_URI,
            mime_type=JSON,
            description="Server status, uptime, index generation and size, embedding model.",
        ),
        types.Resource(
            name="resolved-libraries",
            uri=RESOLVED_URI,
            mime_type=JSON,
            description=f"Libraries looked up in this session ({len(sessions.resolved(session))}); grows with each get_library_info.",
        ),
    ]
    catalog = catalog_of(index)
    documents = [
        types.Resource(
            name=path,
            title=entry.title,
            uri=DOCUMENT_SCHEME + path,
            mime_type=MARKDOWN,
            description=entry.description or None,
        )
        for path in sorted(marked_documents(index))
        if (entry := catalog.entry(path)) is not None
    ]
    return fixed + documents


def read_resource(index: ServedIndex, sessions: LibrarySessions, session: str, uri: str) -> types.TextResourceContents:
    """The content of the resource at ``uri``.

    Raises:
        MCPError: no resource has that URI.
    """
    if uri == HEALTH_URI:
        return _json_contents(uri, health(index, sessions))
    if uri == RESOLVED_URI:
        libraries = [
            {"id": lib.library_id, "name": lib.name, "languages": list(lib.languages)}
            for lib in sessions.resolved(session)
        ]
        return _json_contents(uri, {"libraries": libraries})
    path = uri.removeprefix(DOCUMENT_SCHEME) if uri.startswith(DOCUMENT_SCHEME) else None
    if path is None or path not in marked_documents(index):
        raise MCPError(
            types.INVALID_PARAMS, f"Unknown resource {quoted(str(uri))}. List the resources with resources/list."
        )
    text, _, _ = read_lines(index.engine.store, path, 0, WHOLE_PAGE)
    return types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)


def health(index: ServedIndex, sessions: LibrarySessions) -> dict[str, Any]:
    """The health resource's content."""
    metadata = index.engine.metadata
    stats = metadata.get("stats") or {}
    catalog: LibraryCatalog = catalog_of(index)
    return {
        "status": "healthy",
        "version": __version__,
        "uptime": int(time.monotonic() - sessions.started),
        "index": {
            "generation": index.generation,
            "indexed_at": stats.get("indexed_at"),
            "chunks": index.engine.size,
            "files": len(metadata.get("files") or {}),
            "libraries": len(catalog.libraries),
        },
        # The model as the index recorded it: name, weights checksum, runtime, every file's digest.
        "embedding": None if index.engine.store.model is None else index.engine.store.model.as_json(),
        "ranking": ranking_facts(metadata.get("ranker")),  # learned or the fusion: origin, off-topic floor
        # Per library: version, where its documents came from, when indexed, how many fetched pages are past their TTL.
        "libraries": [library.freshness() for library in catalog.libraries.values() if library.indexed],
    }


def marked_documents(index: ServedIndex) -> set[str]:
    """Paths of the documents with at least one chunk carrying a value marked ``mcp_resource``."""
    marks = {
        (key, value)
        for key, entry in (index.engine.metadata.get("taxonomy") or {}).items()
        for value, props in ((entry or {}).get("properties") or {}).items()
        if (props or {}).get(RESOURCE_PROPERTY)
    }
    if not marks:
        return set()
    columns = index.engine.columns
    return {
        path for path, meta in zip(columns.filepath, columns.metadata) if any((k, v) in marks for k, v in meta.items())
    }


async def on_list_resources(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    """The resources/list handler."""
    state = ctx.lifespan_context
    index = await anyio.to_thread.run_sync(state.live.current)
    return types.ListResourcesResult(resources=list_resources(index, state.sessions, session_key(ctx)))


async def on_list_resource_templates(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    """The resources/templates/list handler: none, every resource is listed by its own URI.

    Clients call it on connect; "Method not found" would fill their logs with errors.
    """
    return types.ListResourceTemplatesResult(resource_templates=[])


async def on_read_resource(
    ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    """The resources/read handler."""
    state = ctx.lifespan_context
    index = await anyio.to_thread.run_sync(state.live.acquire)
    try:
        contents = await anyio.to_thread.run_sync(read_resource, index, state.sessions, session_key(ctx), params.uri)
    finally:
        state.live.release(index)
    return types.ReadResourceResult(contents=[contents])


def _json_contents(uri: str, value: Any) -> types.TextResourceContents:
    return types.TextResourceContents(
        uri=uri, mime_type=JSON, text=orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    )
