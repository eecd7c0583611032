"""The in-process stemmer stems every word exactly as DuckDB's full-text index does (its 'porter' stemmer)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.extensions import load_extensions
from docs_mcp.indexer.schema import FTS_STEMMER
from docs_mcp.indexer.search_text import tokenize
from docs_mcp.indexer.stemmer import porter_stems

GUIDE = Path(__file__).resolve().parents[2] / "corpus" / "guide"


@pytest.fixture(scope="module")
def duckdb_stems():
    conn = duckdb.connect()
    load_extensions(conn)
    lock = threading.Lock()  # hypothesis runs one example at a time, but keep the connection single-threaded anyway

    def stems(words: list[str]) -> list[str]:
        with lock:
            return conn.execute(
                f"SELECT list_transform(?::VARCHAR[], w -> stem(w, '{FTS_STEMMER}'))", [words]
            ).fetchone()[0]

    yield stems
    conn.close()


def test_every_word_of_the_guide_is_stemmed_as_duckdb_stems_it(duckdb_stems):
    words = sorted({word for page in GUIDE.rglob("*.md") for word in tokenize(page.read_text(encoding="utf-8"))})
    assert len(words) > 2_000
    assert porter_stems(words) == duckdb_stems(words)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_query_words_are_stemmed_as_duckdb_stems_them(duckdb_stems, text):
    words = tokenize(text)
    assert porter_stems(words) == duckdb_stems(words)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.from_regex(r"[a-z]{1,14}(?:e|ed|ing|ion|ies|ness|ational|izer|fulness|ly)", fullmatch=True), max_size=20
    )
)
def test_english_suffixes_are_stripped_as_duckdb_strips_them(duckdb_stems, words):
    assert porter_stems(words) == duckdb_stems(words)


def test_threads_stem_at_once_without_mixing_their_words():
    words = [
        f"{stem}{suffix}"
        for stem in ("connect", "generat", "hop", "relat", "configur")
        for suffix in ("ed", "ing", "ion", "es")
    ]
    expected = porter_stems(words)
    results: list[list[str]] = []

    def stem_many() -> None:
        results.extend(porter_stems(words) for _ in range(200))

    threads = [threading.Thread(target=stem_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 800 and all(result == expected for result in results)


ONE_LANGUAGE = """
import sys

from docs_mcp.indexer.stemmer import porter_stems

print(porter_stems(["running", "caresses"]))
print(sorted(name for name in sys.modules if name.startswith("snowballstemmer.") and name.endswith("_stemmer")))
import snowballstemmer

print(snowballstemmer.stemmer("german").stemWord("katzen"))
"""


def test_only_the_index_stemmer_loads_and_the_package_still_answers_when_asked():
    done = subprocess.run([sys.executable, "-c", ONE_LANGUAGE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['run', 'caress']", "['snowballstemmer.porter_stemmer']", "katz"]
