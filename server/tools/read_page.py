"""read_page: lines of an indexed document by its path, or of a page by its URL (fetched, cached and indexed on
first read); long pages come in line ranges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from docs_mcp.indexer.libraries.library import Library
from docs_mcp.server.core.arguments import integer, schema_arguments, string
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_registry import ToolSpec
from docs_mcp.server.errors import InvalidArgumentError
from docs_mcp.server.libraries.answers import catalog_of
from docs_mcp.server.libraries.pages import line_fields, locate, read_lines
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.tools.context import ToolContext
from docs_mcp.server.tools.library_tools import LIBRARY_ID, MAX_OFFSET, closed_schema, library_spec, text

NAME = "read_page"
MAX_PATH_CHARS = 1024
MAX_URL_CHARS = 2048

DESCRIPTION = (
    "Use it when a whole page is worth reading (a tutorial, a reference page), by the path get_library_info, "
    "search_docs or get_docs gave, or by the url of a table-of-contents entry (fetched on first read, then cached; "
    "stale: true marks a copy being refreshed). Returns the page as markdown with its token count; long pages come "
    "in line ranges: when has_more is true, call again with offset = offset + lines_returned."
)
SCHEMA = closed_schema(
    {
        "path": {
            "type": "string",
            "maxLength": MAX_PATH_CHARS,
            "description": "Document path from get_library_info, search_docs (filepath) or get_docs (related_pages).",
        },
        "url": {
            "type": "string",
            "maxLength": MAX_URL_CHARS,
            "description": "Instead of path: a page URL from get_library_info's table of contents (llms.txt libraries); fetched, cached and indexed on first read.",
        },
        "library_id": {
            **LIBRARY_ID,
            "description": "Library the path belongs to; lets you pass a path relative to the library.",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_OFFSET,
            "default": 0,
            "description": "First line to return (0-based). To continue, pass offset + lines_returned.",
        },
        "max_lines": {
            "type": "integer",
            "minimum": 1,
            "maximum": 5000,
            "default": 200,
            "description": "Most lines to return.",
        },
    },
    [],
)


@dataclass(frozen=True)
class PageArgs:
    path: str | None  # exactly one of path and url
    url: str | None
    library_id: str | None
    offset: int
    max_lines: int


def parse(arguments: Mapping[str, Any] | None) -> PageArgs:
    """Check read_page arguments.

    Raises:
        InvalidArgumentError: an argument is missing, unknown, empty, too long or of the wrong type or range.
    """
    given = schema_arguments(NAME, arguments, SCHEMA)
    library_id = string(given, "library_id")
    if ("path" in given) == ("url" in given):
        raise InvalidArgumentError(
            "Pass exactly one of 'path' and 'url'.",
            "Use path for a document path from get_library_info or search_docs, url for a table-of-contents URL.",
        )
    return PageArgs(
        path=text(given, "path", "a document path from get_library_info", MAX_PATH_CHARS) if "path" in given else None,
        url=text(given, "url", "a page URL from get_library_info", MAX_URL_CHARS) if "url" in given else None,
        library_id=library_id.strip() if library_id and library_id.strip() else None,
        offset=integer(given, "offset", SCHEMA),
        max_lines=integer(given, "max_lines", SCHEMA),
    )


def run(index: ServedIndex, args: PageArgs, sources: Sources) -> dict[str, Any]:
    """Run read_page: ``max_lines`` lines of an indexed document from ``offset``, or of a page by URL.

    A path from an llms.txt library's table of contents that is not indexed yet is read by its URL;
    the URL of a crawled site's page is read from the index.

    Raises:
        InvalidArgumentError: an argument does not fit the schema.
        LibraryNotFoundError: ``library_id`` names no library.
        PathNotAllowedError: the path tries to leave the indexed documents.
        PageNotFoundError: no indexed document has that path.
        SourceError: the URL is refused (URL_NOT_ALLOWED) or cannot be read (SOURCE_UNAVAILABLE, INVALID_CONTENT...).
    """
    catalog = catalog_of(index, sources.registered())
    if args.url:
        crawled = _crawled_path(catalog, args.url)
        if crawled is None:
            return sources.read_url(args.url, args.offset, args.max_lines)
        args = replace(args, url=None, path=crawled)  # a page of a crawled site: read as indexed
    library = catalog.get(args.library_id) if args.library_id else None
    files = index.engine.metadata.get("files") or {}
    url = _unindexed_url(catalog, files, args.path or "", library)
    if url:
        return sources.read_url(url, args.offset, args.max_lines)
    path = locate(catalog, files, args.path or "", library)
    content, total, returned = read_lines(index.engine.store, path, args.offset, args.max_lines)
    entry = catalog.entry(path)
    owner = catalog.owner(path)
    return {
        "library_id": owner.library_id,
        "version": owner.version or None,
        "path": path,
        "title": entry.title if entry else path,
        **line_fields(content, total, args.offset, returned),
        "provenance": owner.origin_of(path),
    }


def _crawled_path(catalog: LibraryCatalog, url: str) -> str | None:
    """The indexed path of ``url`` when it is a page of a crawled site or a repository library (None otherwise)."""
    # Imported here: the kinds bring the crawler's and the fetcher's modules (BeautifulSoup, httpx, the index
    # writer), which a server that only searches never needs (tests/server/test_start_imports.py).
    from docs_mcp.indexer.sources.kinds import kind_of
    from docs_mcp.indexer.sources.web.site_links import normal_url

    wanted = {url, normal_url(url)}
    for library in catalog.libraries.values():
        kind = kind_of(library.origin)
        if kind is not None and kind.pages_have_urls:
            for entry in library.toc:
                if entry.url and entry.url in wanted:
                    return entry.path
    return None


def _unindexed_url(catalog: LibraryCatalog, files: Mapping[str, Any], path: str, library: Library | None) -> str:
    """The URL of the llms.txt TOC entry ``path`` names when its page is not indexed yet ('' otherwise)."""
    pool = library.toc if library else [entry for lib in catalog.libraries.values() for entry in lib.toc]
    wanted = {path, library.mount + path} if library else {path}
    return next((e.url for e in pool if e.url and e.path in wanted and e.path not in files), "")


def spec(context: ToolContext) -> ToolSpec[PageArgs]:
    """read_page; slow: a page read by its URL is fetched."""
    return library_spec(
        NAME, DESCRIPTION, SCHEMA, parse, lambda index, args: run(index, args, context.needed_sources()), slow=True
    )
