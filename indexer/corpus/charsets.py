"""A page's bytes as text, in the encoding the page declares: local HTML files and fetched pages alike.

HTML declares its encoding where the HTML standard looks for it, in this order: a byte order mark
(UTF-8, UTF-16), the HTTP ``Content-Type`` header's ``charset`` (fetched pages only), then, in the
first PRESCAN_BYTES bytes, a ``<meta charset>``, a ``<meta http-equiv="Content-Type"
content="...; charset=...">`` or an XML declaration's ``encoding`` (XHTML). As in browsers,
``iso-8859-1``, ``latin1`` and ``us-ascii`` read as windows-1252 (their superset, which such pages
really use), a ``<meta>`` naming UTF-16 reads as UTF-8 (a page that can be read as ASCII is not
UTF-16), and a label Python does not know, or one that names no web encoding (``zlib``,
``unicode-escape``...), is no declaration. Bytes the declared encoding cannot
decode become U+FFFD, as a browser shows them.

A page that declares nothing is UTF-8. Markdown, reStructuredText and notebooks are UTF-8 always
(a byte order mark allowed): nothing in them is read as a declaration.
"""

from __future__ import annotations

import codecs
import re

PRESCAN_BYTES = 4096  # the standard looks 1024 bytes in; generated heads put scripts and styles before <meta>
WEB_FALLBACK = "cp1252"  # what browsers read an undeclared page that is not UTF-8 as
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_AS_WINDOWS_1252 = frozenset({"iso8859-1", "ascii", "latin-1"})
_NOT_WEB = frozenset({"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"})
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_META_CHARSET = re.compile(r"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(r"^\s*<\?xml\b[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']", re.IGNORECASE)


def declared_encoding(data: bytes, content_type: str = "") -> str:
    """The Python codec the HTML page ``data`` (served as ``content_type``) declares, or ``""``."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    header = _HEADER_CHARSET.search(content_type)
    if header and _codec(header.group(1)):
        return _codec(header.group(1))
    head = data[:PRESCAN_BYTES].decode("latin-1")
    for pattern in (_XML_ENCODING, _META_CHARSET):
        match = pattern.search(head)
        if match and _codec(match.group(1)):
            codec = _codec(match.group(1))
            return "utf-8" if codec.startswith("utf-16") else codec
    return ""


def html_text(data: bytes, content_type: str = "") -> str:
    """The text of an HTML page: in its declared encoding, else UTF-8, else (not UTF-8) as a browser reads it."""
    encoding = declared_encoding(data, content_type)
    if encoding:
        return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(WEB_FALLBACK, errors="replace")


def utf8_html(data: bytes, content_type: str = "") -> bytes:
    """The page as UTF-8 bytes that read the same without its HTTP header: ``data`` itself when it is UTF-8
    already, else its text in UTF-8 after a byte order mark (which outranks the ``<meta>`` it may still carry)."""
    encoding = declared_encoding(data, content_type)
    if encoding in ("", "utf-8", "utf-8-sig"):
        try:
            data.decode("utf-8")
            return data
        except UnicodeDecodeError:
            pass
    return codecs.BOM_UTF8 + html_text(data, content_type).encode("utf-8")


def _codec(label: str) -> str:
    """The Python codec of an encoding label ('' for a label Python does not know)."""
    try:
        info = codecs.lookup(label.strip())
    except LookupError:
        return ""
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_WEB:
        return ""  # zlib, base64, rot-13, unicode-escape, punycode...: Python's, no web page's
    return WEB_FALLBACK if info.name in _AS_WINDOWS_1252 else info.name
