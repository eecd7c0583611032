"""Words for full-text search in scripts written without spaces: Chinese, Japanese and Korean as character bigrams.

DuckDB's full-text index splits text at every character that is not a letter or a digit, which
leaves a Chinese sentence as one "word" no query matches. Before the index (and each query) sees
text, every run of CJK characters is rewritten as its overlapping character pairs (``后台任务`` ->
``后台 台任 任务``; a lone character stays as it is), the way Lucene's CJK analyzer does: a
two-character word is then a term, and a longer one a run of terms that occur together only where
it does. Other scripts keep the English path (words split at spaces and punctuation, Porter
stemming, which leaves non-Latin words as they are). Full-width Latin letters and digits and
half-width katakana are folded to their usual forms first (NFKC), on both sides.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Han (with extensions and compatibility ideographs), Hiragana, Katakana (and its phonetic extensions),
# Bopomofo, Hangul syllables and jamo, the iteration marks 々〆〇; not the katakana middle dot (punctuation).
_CJK_CHARS = (
    "\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u3105-\u312f\u3131-\u318e"
    "\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
CJK_CLASS = f"[{_CJK_CHARS}]"
# The Halfwidth and Fullwidth Forms block: ＡＢＣ１２３, ｶﾀｶﾅ.
_WIDTH_FORMS = re.compile("[\uff01-\uffef]+")


def segment(text: str) -> str:
    """``text`` with each CJK run replaced by its character bigrams (space-separated), width forms folded."""
    if text.isascii():  # neither a CJK character nor a width form: most queries, no pattern compiled
        return text
    text = _WIDTH_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return _cjk_pattern("+").sub(_bigrams, text)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a character of a script this module segments."""
    return not text.isascii() and _cjk_pattern("").search(text) is not None


@cache
def _cjk_pattern(repeat: str) -> re.Pattern[str]:
    """``CJK_CLASS`` followed by ``repeat``, compiled on first use: Python's ``re`` walks every code point of the
    class's ranges to compile it (about 9 ms a pattern), which a server's start and an ASCII query need not pay."""
    return re.compile(CJK_CLASS + repeat)


def _bigrams(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "
