"""Pagination cursors: opaque, tamper-evident, bound to one search and one index generation.

A cursor is unpadded url-safe base64 of ``payload + mac``: the payload is
compact JSON ``{"v", "i", "g", "s", "o"}`` (format version, a tag of the index's
identity, which its rebuilds keep, a tag of the index generation, a digest of
the search and the offset of the next page) and the mac is a truncated
HMAC-SHA256 over it. The identity tells a cursor of an earlier generation of this
index (stale: rebuilt since) from one of another index altogether.

The HMAC key is derived from the index generation and an optional shared
secret, never from per-process state: every replica serving the same index
accepts the cursors of every other (stateless HTTP), and a rebuilt index makes
old cursors stale.  Forging a cursor would only grant an offset into a result
list the caller may read anyway, so the MAC guards against accidents and
confused agents, and lets every failure get a precise message.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from docs_mcp.server.errors import InvalidCursorError

CURSOR_VERSION = 2
_VERSION_1_KEYS = frozenset({"v", "g", "s", "o"})  # before the index identity: still told stale or foreign
MAC_BYTES = 16
MAX_CURSOR_CHARS = 512
_KEY_CONTEXT = b"docs-mcp search cursor v1\x00"
_PAYLOAD_KEYS = frozenset({"v", "i", "g", "s", "o"})
# Checked up front: the base64 decoder would otherwise skip stray characters silently.
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class SearchBinding:
    """What a cursor is bound to: the search that produced it (same query, filters, page size, mode)."""

    query: str
    filters: Mapping[str, str]
    limit: int
    mode: str

    def digest(self) -> str:
        """A short stable digest of the search, independent of filter order."""
        canonical = orjson.dumps([self.query, sorted(self.filters.items()), self.limit, self.mode])
        return hashlib.sha256(canonical).hexdigest()[:16]


class CursorCodec:
    """Encodes and checks the cursors of one index generation."""

    def __init__(self, generation: str, secret: bytes = b"", index: str = "") -> None:
        """``index``: the index's identity (indexer ``index_identity``; '' for an index built before it existed)."""
        self._key = hmac.new(secret, _KEY_CONTEXT + generation.encode(), hashlib.sha256).digest()
        self._generation_tag = _tag(generation)
        self._index_tag = _tag(index) if index else ""

    def encode(self, binding: SearchBinding, offset: int) -> str:
        """The cursor for the page of ``binding`` that starts at ``offset``."""
        fields = {
            "v": CURSOR_VERSION,
            "i": self._index_tag,
            "g": self._generation_tag,
            "s": binding.digest(),
            "o": offset,
        }
        payload = orjson.dumps(fields)
        return base64.urlsafe_b64encode(payload + self._mac(payload)).rstrip(b"=").decode("ascii")

    def decode(self, cursor: str, binding: SearchBinding) -> int:
        """The offset carried by ``cursor``, after checking it belongs to ``binding`` on this index.

        Raises:
            InvalidCursorError: the cursor is malformed, tampered with, stale or foreign.
        """
        raw = _unbase64(cursor)
        payload, mac = raw[:-MAC_BYTES], raw[-MAC_BYTES:]
        fields = _parse(payload)
        if not hmac.compare_digest(mac, self._mac(payload)):
            if fields is not None and fields.get("i") and self._index_tag and fields["i"] != self._index_tag:
                raise InvalidCursorError(
                    "The cursor comes from another documentation index (another server or index folder), not from this one.",
                    "Use a cursor only with the server that returned it, or run search_docs again without a cursor here.",
                )
            if fields is not None and fields["g"] != self._generation_tag:
                raise _stale()
            raise InvalidCursorError(
                "The cursor failed its integrity check: it was altered after search_docs returned it, "
                "or issued by another server.",
                "Pass next_cursor exactly as returned, or run search_docs again without a cursor.",
            )
        if fields is None:
            raise _malformed()
        if fields["s"] != binding.digest():
            raise InvalidCursorError(
                "The cursor belongs to a different search: the query, filters and limit must be those of "
                "the call that returned it.",
                "Repeat that call with the cursor, or run search_docs again without a cursor for this search.",
            )
        offset: int = fields["o"]  # _parse checked it is a whole number
        return offset

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()[:MAC_BYTES]


def cursor_generation(cursor: str, generations: Iterable[str]) -> str | None:
    """Which of ``generations`` issued ``cursor`` (by the tag it carries); None for none, or for no cursor at all.

    A fleet replica holds a few generations open around a swap; the one a cursor names answers it.
    """
    try:
        fields = _parse(_unbase64(cursor)[:-MAC_BYTES])
    except InvalidCursorError:
        return None
    if fields is None:
        return None
    return next((g for g in generations if _tag(g) == fields["g"]), None)


def _tag(generation: str) -> str:
    return hashlib.sha256(generation.encode()).hexdigest()[:8]


def _unbase64(cursor: str) -> bytes:
    if len(cursor) > MAX_CURSOR_CHARS or not _BASE64URL.fullmatch(cursor):
        raise _malformed()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise _malformed() from None
    # Unpadded base64 ignores the last character's spare bits: only the canonical
    # spelling of these bytes is accepted, so every changed character is noticed.
    if len(raw) <= MAC_BYTES or base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != cursor:
        raise _malformed()
    return raw


def _parse(payload: bytes) -> dict[str, Any] | None:
    """The payload's fields when they have the expected shape, else None."""
    try:
        fields = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(fields, dict) or not (
        (set(fields) == _PAYLOAD_KEYS and fields["v"] == CURSOR_VERSION)
        or (set(fields) == _VERSION_1_KEYS and fields["v"] == 1)
    ):
        return None
    offset = fields["o"]
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        return None
    if not all(isinstance(fields.get(key, ""), str) for key in ("i", "g", "s")):
        return None
    return fields


def _malformed() -> InvalidCursorError:
    return InvalidCursorError(
        "The cursor is malformed: it is not a next_cursor returned by search_docs.",
        "Pass next_cursor exactly as returned, or run search_docs again without a cursor.",
    )


def _stale() -> InvalidCursorError:
    return InvalidCursorError(
        "The cursor is stale: the documentation index was rebuilt after it was issued.",
        "Run search_docs again without a cursor to start over on the new index.",
    )
