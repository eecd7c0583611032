"""BM25F in numpy checked against DuckDB's own match_bm25 macro on a one-field index."""

import duckdb
import numpy as np
import pytest

from docs_mcp.indexer.extensions import load_extensions
from docs_mcp.indexer.schema import FTS_IGNORE
from docs_mcp.indexer.serving_arrays import read_postings
from docs_mcp.server.search.lexical import LexicalScorer, tokenize

DOCS = [
    "Retry a failed request with exponential backoff.",
    "The retry budget limits how often a request is retried; retries retry retries.",
    "Pagination uses next_cursor to walk the pages of results.",
    "RateLimitError is raised when the server answers 429.",
    "Backoff, jitter and retry: the three words of resilient clients.",
]
QUERIES = ["retry backoff", "next_cursor pages", "RateLimitError 429", "the of and", "jitter retries request"]


@pytest.fixture(scope="module")
def conn():
    conn = duckdb.connect()
    load_extensions(conn)
    # The engine reads the fts tables of `chunks`; here with one field so plain BM25 is the reference.
    conn.execute("CREATE TABLE chunks (id INTEGER, body VARCHAR)")
    conn.executemany("INSERT INTO chunks VALUES (?, ?)", list(enumerate(DOCS)))
    conn.execute(
        "PRAGMA create_fts_index('chunks', 'id', 'body', stemmer='porter', stopwords='english', "
        f"ignore='{FTS_IGNORE}', strip_accents=1, lower=1)"
    )
    return conn


def _stem(conn):
    return lambda words: conn.execute("SELECT list_transform(?::VARCHAR[], w -> stem(w, 'porter'))", [list(words)]).fetchone()[0]


@pytest.mark.parametrize("query", QUERIES)
def test_one_field_scores_equal_duckdb_match_bm25(conn, query):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    ours = scorer.score(scorer.query_terms(tokenize(query)))
    rows = conn.execute("SELECT id, fts_main_chunks.match_bm25(id, ?) FROM chunks ORDER BY id", [query]).fetchall()
    reference = np.array([score or 0.0 for _, score in rows])
    assert ours == pytest.approx(reference, abs=1e-5)


def test_stopword_only_query_matches_nothing(conn):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    assert scorer.query_terms(tokenize("the of and")) == []
    assert not scorer.score([]).any()


def test_other_field_weights_are_recomputed_from_term_frequencies(conn):
    stored = read_postings(conn, len(DOCS), field_weights=(2.0,))
    recomputed = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(2.0,))
    precomputed = LexicalScorer(stored, _stem(conn), weights=(2.0,))
    for query in QUERIES:
        assert recomputed.score(recomputed.query_terms(tokenize(query))).tolist() == precomputed.score(precomputed.query_terms(tokenize(query))).tolist()


def test_term_lookup_is_exact(conn):
    postings = read_postings(conn, len(DOCS), field_weights=(1.0,))
    assert postings.term_id("retri") is not None
    assert postings.term_id("retr") is None and postings.term_id("zzz") is None and postings.term_id("") is None


def test_tokenize_follows_duckdb(conn):
    text = "Héllo, RateLimitError get_token OAuth2 v1.2 — naïve"
    (expected,) = conn.execute("SELECT fts_main_chunks.tokenize(?)", [text]).fetchone()
    assert tokenize(text) == expected
