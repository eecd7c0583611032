"""Source kinds: where a library's documents come from, one module each, dispatched from one table.

A kind module (folder.py, llms_txt.py, site.py, github.py, package.py) exports ``KIND``, a
:class:`SourceKind`: the origins its catalog entries record, how a library of that kind is added and
refreshed, and its ``Source`` (what hands its documents to the one writer, ``build.write_source``).
`docs-mcp refresh`, read_page and every other caller ask this table, never a kind's name. Adding a
kind is one module exporting ``KIND`` and a row of ``KIND_MODULES`` for each origin it writes. The
table names modules, not objects: a kind loads on first use, so `docs-mcp --help` imports none (their
fetchers and parsers are slow to import).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from docs_mcp.indexer.sources.errors import SourceError

if TYPE_CHECKING:
    from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry
    from docs_mcp.indexer.sources.source_settings import SourceSettings

# The one table: a catalog entry's origin -> the module of indexer/sources/ whose kind writes it.
KIND_MODULES = {
    "": "folder",
    "llms-txt": "llms_txt",
    "site": "site",
    "github": "github",
    "pypi": "package",
    "npm": "package",
}


@dataclass(frozen=True)
class RefreshOutcome:
    """What refreshing one URL did: ``unchanged``, ``updated`` or ``failed`` (the cached copy kept)."""

    library_id: str
    url: str
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Refreshing:
    """What a kind's refresh works with: the index's source settings and its open source service."""

    settings: SourceSettings
    service: Any  # the index's SourceService (service.py, which uses this module: not named, no import cycle)
    quiet: bool = False  # no crawl or build progress on stderr (`refresh --quiet`)


# refresh(refreshing, library_id, its catalog entry: None when not indexed yet) -> one outcome per URL
# revalidated (llms.txt) or per library.
RefreshFn = Callable[[Refreshing, str, "CatalogEntry | None"], list[RefreshOutcome]]


@dataclass(frozen=True)
class SourceKind:
    """One kind of source: the catalog origins it writes, its add, its refresh (None: added again, never refreshed)."""

    name: str  # as the guide and `docs-mcp add` say it
    origins: tuple[str, ...]  # the catalog entries' "origin" values ('' for a docs folder)
    add: Callable[..., Any]  # adds one library of this kind (or writes nothing when it is indexed as it is)
    source: type  # its Source: the documents it hands to the one writer
    refresh: RefreshFn | None = None
    pages_have_urls: bool = False  # an indexed page keeps its URL: read_page finds it by URL
    pages_on_demand: bool = False  # pages are fetched when first read (read_page, get_docs), by the SourceService


def fetches_on_demand(origin: str) -> bool:
    """Whether the libraries of ``origin`` have their pages fetched when first read (their table of contents first)."""
    kind = kind_of(origin)
    return kind is not None and kind.pages_on_demand


def refresh_failed(entry: CatalogEntry, error: SourceError) -> RefreshOutcome:
    """The outcome of a library whose refresh failed: the index keeps it as it was."""
    return RefreshOutcome(entry.library_id, entry.source, "failed", error.message)


def kind_of(origin: str) -> SourceKind | None:
    """The kind whose catalog entries record ``origin`` (None for an origin no kind writes); imports that kind only."""
    module = KIND_MODULES.get(origin)
    return None if module is None else import_module(f"{__package__}.{module}").KIND
