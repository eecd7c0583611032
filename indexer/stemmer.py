"""Porter stems of words, in process, exactly as DuckDB's full-text index stems its terms (stemmer 'porter').

A search stems its query's words to find them among the index's terms. DuckDB's ``stem()`` answers
the same, but as a statement: about 1 ms a call and several calls a search, 80 us a word in bulk,
most of a full-text search's time for words it has not seen before. The Snowball project's Python
build of the same algorithm takes about 14 us a word. tests/indexer/test_stemmer.py holds the two
equal on every word of the guide (corpus/guide) and on generated words.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from docs_mcp.lazy import deferred_package_init

# The package's __init__ loads all of its 36 languages' stemmers (about 15 ms of a server's first search);
# with it deferred, the one the index uses (schema.FTS_STEMMER, 'porter') loads alone.
deferred_package_init("snowballstemmer")

__all__ = ["porter_stems"]

_local = threading.local()  # a Snowball stemmer keeps its word in its own fields: one per thread


def porter_stems(words: Sequence[str]) -> list[str]:
    """Each word's stem, as the full-text index stems its terms."""
    stemmer = _stemmer()
    return [stemmer.stemWord(word) for word in words]


def _stemmer() -> Any:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        from snowballstemmer.porter_stemmer import PorterStemmer  # on first use, not at start-up

        stemmer = _local.stemmer = PorterStemmer()
    return stemmer
