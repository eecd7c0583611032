"""The words the full-text index leaves out: DuckDB's English list, less the words of the corpus's taxonomy values.

A taxonomy value names something the corpus is organised by, so in that corpus it is never a filler
word: `go` is an English stop word and, in an SDK's docs with a `language` facet, the name of a
language. Left out, "retries in Go" loses the only word that tells the Go pages from the others (their
path words, `sdk/go/...`, are in the title field). Every other corpus keeps the English list unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import duckdb

from docs_mcp.indexer.extensions import OFFLINE_CONFIG, load_extensions
from docs_mcp.indexer.schema import FTS_STOPWORDS
from docs_mcp.indexer.search_text import tokenize

# A table of the index file while the full-text index is built from it.
STOPWORDS_TABLE = "stopwords_kept_out"


@lru_cache(maxsize=1)
def english_stopwords() -> frozenset[str]:
    """DuckDB fts's English stop words, as its `create_fts_index(stopwords='english')` writes them."""
    conn = duckdb.connect(":memory:", config=dict(OFFLINE_CONFIG))
    try:
        load_extensions(conn)
        conn.execute("CREATE TABLE probe (id INTEGER, text VARCHAR)")
        conn.execute(f"PRAGMA create_fts_index('probe', 'id', 'text', stopwords='{FTS_STOPWORDS}')")
        return frozenset(row[0] for row in conn.execute("SELECT sw FROM fts_main_probe.stopwords").fetchall())
    finally:
        conn.close()


def value_words(values: Iterable[str]) -> frozenset[str]:
    """The words of taxonomy values as the full-text index splits them (lower case; `sdk-specific`: sdk, specific)."""
    return frozenset(word for value in values for word in tokenize(value))


@contextmanager
def stopwords_for(conn: duckdb.DuckDBPyConnection, values: Iterable[str]) -> Iterator[str]:
    """The `stopwords` argument of create_fts_index for a corpus with these taxonomy ``values``.

    `'english'` when no value is an English stop word; else a table of the English list without them,
    dropped on exit (create_fts_index keeps its own copy in the fts schema).
    """
    kept = english_stopwords() & value_words(values)
    if not kept:
        yield FTS_STOPWORDS
        return
    conn.execute(f"CREATE TABLE {STOPWORDS_TABLE} (sw VARCHAR)")
    conn.executemany(
        f"INSERT INTO {STOPWORDS_TABLE} VALUES (?)", [(word,) for word in sorted(english_stopwords() - kept)]
    )
    try:
        yield STOPWORDS_TABLE
    finally:
        conn.execute(f"DROP TABLE {STOPWORDS_TABLE}")
