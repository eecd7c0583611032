"""BM25F in numpy checked against DuckDB's own match_bm25 macro on a one-field index."""

import duckdb
import numpy as np
import pytest

from docs_mcp.indexer.extensions import load_extensions
from docs_mcp.indexer.schema import FTS_IGNORE
from docs_mcp.indexer.serving.writer import read_postings
from docs_mcp.server.search.lexical import HEADING_FIELD, LexicalScorer, QueryTerms, identifier_forms, tokenize

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
    return lambda words: conn.execute(
        "SELECT list_transform(?::VARCHAR[], w -> stem(w, 'porter'))", [list(words)]
    ).fetchone()[0]


@pytest.mark.parametrize("query", QUERIES)
def test_one_field_scores_equal_duckdb_match_bm25(conn, query):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    ours = scorer.score(QueryTerms(scorer.query_terms(query).own))  # the query's own words: what match_bm25 scores
    rows = conn.execute("SELECT id, fts_main_chunks.match_bm25(id, ?) FROM chunks ORDER BY id", [query]).fetchall()
    reference = np.array([score or 0.0 for _, score in rows])
    assert ours == pytest.approx(reference, abs=1e-5)


@pytest.mark.parametrize("query", QUERIES)
def test_scores_are_the_float32_sums_of_the_postings_weights_in_term_order(conn, query):
    """Bit for bit what adding each term's weights to its chunks, term after term, gives (rankings break ties on equal scores)."""
    postings = read_postings(conn, len(DOCS))
    scorer = LexicalScorer(postings, _stem(conn))
    terms = scorer.query_terms(query).own
    reference = np.zeros(len(DOCS), dtype=np.float32)
    for tid in terms:
        lo, hi = int(postings.starts[tid]), int(postings.starts[tid + 1])
        reference[postings.docs[lo:hi]] += postings.weights[lo:hi]
    assert scorer.score(QueryTerms(terms)).tobytes() == reference.tobytes()


def test_stopword_only_query_matches_nothing(conn):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    assert scorer.query_terms("the of and") == QueryTerms(())
    assert not scorer.score(QueryTerms(())).any()


def test_other_field_weights_are_recomputed_from_term_frequencies(conn):
    stored = read_postings(conn, len(DOCS), field_weights=(2.0,))
    recomputed = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(2.0,))
    precomputed = LexicalScorer(stored, _stem(conn), weights=(2.0,))
    for query in QUERIES:
        assert (
            recomputed.score(recomputed.query_terms(query)).tolist()
            == precomputed.score(precomputed.query_terms(query)).tolist()
        )


def test_term_lookup_is_exact(conn):
    postings = read_postings(conn, len(DOCS), field_weights=(1.0,))
    assert postings.term_id("retri") is not None
    assert postings.term_id("retr") is None and postings.term_id("zzz") is None and postings.term_id("") is None


def test_tokenize_follows_duckdb(conn):
    text = "Héllo, RateLimitError get_token OAuth2 v1.2 — naïve"
    (expected,) = conn.execute("SELECT fts_main_chunks.tokenize(?)", [text]).fetchone()
    assert tokenize(text) == expected


def test_identifier_spellings_all_find_each_other():
    for query in ("next_cursor", "nextCursor", "NextCursor", "next-cursor"):
        assert {"next", "cursor", "nextcursor"} == set(tokenize(query)) | set(identifier_forms(query))
    assert identifier_forms("std::vec::Vec") == [] and identifier_forms("retry on errors") == []


def test_other_spellings_only_score_chunks_without_the_query_words(conn):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    terms = scorer.query_terms("RateLimitError budget")
    assert terms.spellings  # rate, limit, error
    scores = scorer.score(terms)
    own = scorer.score(QueryTerms(terms.own))
    assert scores[1] == own[1] > 0  # "budget limits": its own word counts, the spelling adds nothing
    assert scores[3] == own[3] > 0 and scores[0] == 0.0


def test_known_share_counts_the_words_the_index_holds(conn):
    scorer = LexicalScorer(read_postings(conn, len(DOCS), field_weights=(1.0,)), _stem(conn), weights=(1.0,))
    assert scorer.known_share("retry the backoff") == 1.0
    assert scorer.known_share("retry sourdough") == 0.5 and scorer.known_share("the of") == 0.0


def test_heading_matches_read_the_heading_field_of_each_candidate():
    conn = duckdb.connect()
    load_extensions(conn)
    conn.execute("CREATE TABLE chunks (id INTEGER, fts_title VARCHAR, fts_heading VARCHAR, fts_body VARCHAR)")
    conn.executemany(
        "INSERT INTO chunks VALUES (?, ?, ?, ?)",
        [(0, "t", "retry backoff", "x"), (1, "t", "pages", "retry backoff"), (2, "t", "retry", "y")],
    )
    conn.execute(
        f"PRAGMA create_fts_index('chunks', 'id', 'fts_title', 'fts_heading', 'fts_body', stemmer='porter', ignore='{FTS_IGNORE}')"
    )
    scorer = LexicalScorer(read_postings(conn, 3), _stem(conn))
    terms = scorer.query_terms("retry backoff")
    assert scorer.matches(terms.all, np.array([0, 1, 2]), HEADING_FIELD).tolist() == [2.0, 0.0, 1.0]
    assert scorer.matches(terms.all, np.array([2, 1, 0])).tolist() == [1.0, 2.0, 2.0]
