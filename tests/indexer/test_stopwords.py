"""Stop words: the English list, less the words of the corpus's own taxonomy values (`go` names a language)."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.indexer import build_index
from docs_mcp.indexer.index_file import open_index
from docs_mcp.indexer.schema import FTS_SCHEMA
from docs_mcp.indexer.stopwords import english_stopwords, value_words

GO_AND_PYTHON = {
    "go/retries.md": "---\nmetadata: {language: go}\n---\n# Retries\n\nThe client retries a throttled request.\n",
    "python/retries.md": "---\nmetadata: {language: python}\n---\n# Retries\n\nThe client retries a throttled request.\n",
}


def _stopwords_terms_and_tables(index: Path) -> tuple[set[str], set[str], set[str]]:
    with open_index(index) as reader:
        conn = reader.conn
        stopwords = {sw for (sw,) in conn.execute(f"SELECT sw FROM {FTS_SCHEMA}.stopwords").fetchall()}
        terms = {term for (term,) in conn.execute(f"SELECT term FROM {FTS_SCHEMA}.dict").fetchall()}
        tables = {
            name
            for (name,) in conn.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()
        }
    return stopwords, terms, tables


def test_the_english_list_is_duckdbs_own():
    assert len(english_stopwords()) == 570 and {"the", "go", "in", "how"} <= english_stopwords()


def test_value_words_split_as_the_full_text_index_does():
    assert value_words(["Go", "sdk-specific", "C++", "dotnet"]) == {"go", "sdk", "specific", "c", "dotnet"}


def test_a_taxonomy_value_that_is_an_english_stop_word_is_indexed(make_corpus, tmp_path: Path) -> None:
    build_index(make_corpus(GO_AND_PYTHON), tmp_path / "index", embeddings="none")
    stopwords, terms, tables = _stopwords_terms_and_tables(tmp_path / "index")
    assert stopwords == english_stopwords() - {"go"}
    assert {"go", "python"} <= terms  # the path words of the title field
    assert tables == {"meta", "chunks"}  # the stop-word table the build made is gone


def test_a_corpus_without_such_values_keeps_the_english_list(make_corpus, tmp_path: Path) -> None:
    build_index(
        make_corpus({"guide.md": "# Guide\n\nGo to the settings page.\n"}), tmp_path / "index", embeddings="none"
    )
    stopwords, terms, _ = _stopwords_terms_and_tables(tmp_path / "index")
    assert stopwords == english_stopwords() and "go" not in terms
