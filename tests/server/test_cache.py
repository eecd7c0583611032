"""The engine's cache policy: bounded, least recently used goes first."""

import pytest

from docs_mcp.server.search.lru_cache import LruCache


def test_the_least_recently_used_entry_goes_first():
    cache = LruCache("test", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (1, None, 3, 2)


def test_get_or_compute_computes_once():
    calls = []
    cache = LruCache("test", 4)
    compute = lambda key: calls.append(key) or key * 2  # noqa: E731
    assert [cache.get_or_compute(3, compute), cache.get_or_compute(3, compute)] == [6, 6]
    assert calls == [3]


def test_a_cache_needs_a_bound():
    with pytest.raises(ValueError, match="bound of at least 1"):
        LruCache("unbounded", 0)
