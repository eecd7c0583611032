"""The engine's one cache policy: named, bounded, least-recently-used, safe across threads.

Everything the search path remembers between queries goes through a ``LruCache`` whose
bound is listed here, so memory stays bounded however long a server runs, and the
policy (what is kept, how much, what goes first) is read in one place.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# Porter stems of query words (a word is ~100 bytes with its stem).
STEMS = 65_536
# Term ids of stems (-1: no chunk holds it), so a known word costs no binary search over the terms.
TERM_IDS = 65_536
# Query embeddings: pages, get_docs and hints re-ask for the same query (1.5 KiB each).
QUERY_VECTORS = 64
# Stems of chunks' own headings, compared with queries' by the evidence (a few words each).
HEADING_STEMS = 16_384
# Word sets of chunks compared by collapse (a chunk's distinct words, a few KiB each).
WORD_SETS = 4_096
# Block spans of chunks a search chose passages from, keyed by the chunk's markdown (a few KiB each, the text held).
PASSAGE_BLOCKS = 1_024
# Signals that found nothing, by index size and score (two read-only views each: the generations served, two scores).
ABSENT_SIGNALS = 16


class LruCache(Generic[K, V]):
    """At most ``bound`` entries; the least recently used goes first."""

    def __init__(self, name: str, bound: int) -> None:
        if bound < 1:
            raise ValueError(f"cache {name!r} needs a bound of at least 1, got {bound}")
        self.name = name
        self.bound = bound
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        """The value for ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Remember ``value`` for ``key``, dropping the least recently used entry past the bound."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.bound:
                self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        """Forget ``key``; its value, or None."""
        with self._lock:
            return self._entries.pop(key, None)

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        """The cached value, or ``compute(key)`` remembered; computed outside the lock (it may be slow)."""
        value = self.get(key)
        if value is None:
            value = compute(key)
            self.put(key, value)
        return value
