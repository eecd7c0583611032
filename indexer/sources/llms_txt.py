"""An llms.txt library: ``docs-mcp add llms-txt URL --library ORG/NAME``.

The llms.txt (parsed by llms_txt_parse.py) is the library's table of contents; its pages are fetched when
first read (read_page, get_docs) and kept in the page cache. ``SourceService`` (service.py) fetches, caches
and revalidates them, refusing what llms_txt_fetch.py says an llms.txt may not be; ``SourcePages``
(ingest.py) hands the llms.txt and the cached pages to the one writer. A refresh revalidates the llms.txt
and every cached page with conditional GETs and writes the library again only if one changed.
"""

from __future__ import annotations

from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
from docs_mcp.indexer.sources.ingest import SourcePages
from docs_mcp.indexer.sources.kinds import Refreshing, RefreshOutcome, SourceKind
from docs_mcp.indexer.sources.known_libraries import LLMS_TXT, RegisteredLibrary
from docs_mcp.indexer.sources.llms_txt_parse import LlmsTxt
from docs_mcp.indexer.sources.service import SourceService
from docs_mcp.indexer.sources.source_settings import SourceSettings


def add_llms_txt(settings: SourceSettings, library: RegisteredLibrary) -> LlmsTxt:
    """Fetch and parse the library's llms.txt and index it; the parsed llms.txt.

    Raises:
        UrlNotAllowedError, LlmsTxtNotFoundError, SourceUnavailableError, InvalidContentError.
    """
    service = SourceService(settings)
    try:
        return service.add(library)
    finally:
        service.close()


def refresh_llms_txt(refreshing: Refreshing, library_id: str, entry: CatalogEntry | None) -> list[RefreshOutcome]:
    """Revalidate the llms.txt and every cached page (one outcome each); re-index the library if one changed.

    A library the registry lists may be refreshed before it is indexed (``entry`` None): that fetches it.
    """
    return refreshing.service.refresh(library_id)


KIND = SourceKind("llms.txt", (LLMS_TXT,), add_llms_txt, SourcePages, refresh_llms_txt, pages_on_demand=True)
