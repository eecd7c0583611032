"""CJK text as character bigrams, on both sides of the full-text index, and equal to what DuckDB's tokenizer makes of it."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

from docs_mcp.indexer.extensions import load_extensions
from docs_mcp.indexer.records import Chunk
from docs_mcp.indexer.schema import FTS_IGNORE
from docs_mcp.indexer.search_text import embedding_windows, tokenize
from docs_mcp.indexer.segmentation import has_cjk, segment

MIXED = [
    "后台任务 BackgroundTasks 的用法：调试",
    "FastAPI は Starlette の上に構築されています。ｶﾀｶﾅとＡＰＩ",
    "한국어 문서에서 검색합니다",
    "Straße, кошки, naïve café — x² ½",
    "Héllo, RateLimitError get_token OAuth2 v1.2",
]


def test_cjk_runs_become_bigrams_and_a_lone_character_stays() -> None:
    assert segment("用后台任务。") == " 用后 后台 台任 任务 。"
    assert segment("a 锁 b").split() == ["a", "锁", "b"]
    assert segment("ＡＰＩ ｶﾀｶﾅ") == "API  カタ タカ カナ "  # width forms folded first


def test_non_cjk_text_is_unchanged() -> None:
    for text in ("RateLimitError get_token", "Straße кошки", ""):
        assert segment(text) == text and not has_cjk(text)
    assert has_cjk("调试") and has_cjk("テスト") and has_cjk("한국")


@pytest.mark.parametrize("text", MIXED)
def test_query_words_are_the_index_words(text: str) -> None:
    """What tokenize() makes of a query is what DuckDB's fts tokenizer makes of the segmented field."""
    conn = duckdb.connect()
    load_extensions(conn)
    conn.execute("CREATE TABLE chunks (id INTEGER, body VARCHAR)")
    conn.execute("INSERT INTO chunks VALUES (0, 'x')")
    conn.execute(
        f"PRAGMA create_fts_index('chunks', 'id', 'body', stemmer='porter', ignore='{FTS_IGNORE}', strip_accents=1, lower=1)"
    )
    (expected,) = conn.execute("SELECT fts_main_chunks.tokenize(?)", [segment(text)]).fetchone()
    assert tokenize(text) == [word for word in expected if word]  # the index keeps no empty term


def test_a_chinese_two_character_word_is_a_query_term() -> None:
    assert tokenize("调试") == ["调试"] and tokenize("后台任务") == ["后台", "台任", "任务"]


def test_a_cjk_character_is_one_piece_of_an_embedding_window() -> None:
    text = "这是一个很长的中文句子。" * 40  # 480 characters, no spaces: one "word" if \\w+ counted it
    chunk = Chunk("a.md", "a.md", "", 0, "a.md", 0, 1, text, text, "标题")
    windows = embedding_windows(chunk)
    assert len(windows) > 2 and all(len(window) < 260 for window in windows)


CJK_PATTERNS_COMPILED = """
import re
import sys

compiled = []
real_compile = re.compile


def recording_compile(pattern, flags=0):
    compiled.append(pattern)
    return real_compile(pattern, flags)


re.compile = recording_compile
from docs_mcp.indexer.search_text import tokenize

cjk = lambda: sum("\\u4e00-\\u9fff" in pattern for pattern in compiled if isinstance(pattern, str))
print(tokenize("Dependency injection, OAuth2"), cjk())
print(tokenize("后台任务"), cjk())
"""


def test_the_cjk_patterns_compile_on_the_first_text_that_may_hold_cjk() -> None:
    """Compiling the CJK character class walks every code point of its ranges (about 9 ms a pattern): a server's
    start and its ASCII queries skip it."""
    done = subprocess.run([sys.executable, "-c", CJK_PATTERNS_COMPILED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['dependency', 'injection', 'oauth2'] 0",
        "['后台', '台任', '任务'] 1",
    ]
