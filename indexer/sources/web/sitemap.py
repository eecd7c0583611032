"""Sitemaps for the site crawler: the page URLs (and their last-modified dates) a site lists.

Reads ``<urlset>`` and ``<sitemapindex>`` documents (gzip-compressed too), namespaced or not, with
the standard library's expat parser (which refuses entity expansion attacks). Decompression is
bounded like a download, and a document that is not a sitemap gives nothing rather than an error:
the crawler then follows links instead.
"""

from __future__ import annotations

import gzip
import io
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

# A sitemap may list 50,000 URLs in 50 MB uncompressed (sitemaps.org); nothing larger is read.
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` of a urlset."""

    url: str
    lastmod: str = ""


@dataclass(frozen=True)
class Sitemap:
    """What one sitemap document lists: pages, and further sitemaps (a sitemap index)."""

    pages: tuple[SitemapEntry, ...] = ()
    sitemaps: tuple[str, ...] = ()


def parse_sitemap(body: bytes) -> Sitemap:
    """The pages and child sitemaps of a sitemap document (empty when it is none)."""
    data = _decompressed(body)
    if data is None:
        return Sitemap()
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return Sitemap()
    kind = _local(root.tag)
    if kind == "urlset":
        pages = []
        for item in root:
            if _local(item.tag) == "url":
                fields = {_local(child.tag): (child.text or "").strip() for child in item}
                if fields.get("loc"):
                    pages.append(SitemapEntry(fields["loc"], fields.get("lastmod", "")))
        return Sitemap(pages=tuple(pages))
    if kind == "sitemapindex":
        children = []
        for item in root:
            loc = next(((child.text or "").strip() for child in item if _local(child.tag) == "loc"), "")
            if loc:
                children.append(loc)
        return Sitemap(sitemaps=tuple(children))
    return Sitemap()


def _decompressed(body: bytes) -> bytes | None:
    if not body.startswith(_GZIP_MAGIC):
        return body[:MAX_SITEMAP_BYTES]
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
            data = stream.read(MAX_SITEMAP_BYTES + 1)
    except (OSError, EOFError):
        return None
    return data if len(data) <= MAX_SITEMAP_BYTES else None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
