import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.server.search.snippets import _FOLDING_EXTRAS, Needles, make_snippet

LONG = (
    ("Intro words that say nothing at all. " * 10)
    + "Configure the retry backoff with max_retries here. "
    + ("Tail filler text. " * 20)
)


def test_short_text_is_returned_whole():
    assert make_snippet("a b c", Needles.of(["b"])) == "a b c"


def test_snippet_centres_on_the_matched_words():
    snippet = make_snippet(LONG, Needles.of(["retri", "retry", "backoff"]), width=120)
    assert "retry backoff" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= 122


def test_without_a_match_the_snippet_is_the_start():
    snippet = make_snippet(LONG, Needles.of(["zzz"]), width=60)
    assert snippet.startswith("Intro words")
    assert snippet.endswith("…")


# Letters that case folding treats specially (Turkish dotted and dotless i, long s, the Kelvin sign, sharp s, ligatures),
# accents, digits and the separators around words: where lower-casing the text could disagree with folding it.
_LETTERS = "abkKsSiIzZ09_-. \u0130\u0131\u017f\u212a\u00df\ufb00\u00e9\u00c9\u03a3\u03c3\u03c2"
# Needles of ASCII letters and digits (every query word's) are found by str.find, the others by a pattern.
_NEEDLE = st.one_of(
    st.text(alphabet="abksiz09", min_size=1, max_size=4),
    st.text(alphabet="abksiz09_-\u00e9\u03c3\u00df", min_size=1, max_size=4),
)


@settings(max_examples=2000, deadline=None)
@given(needles=st.lists(_NEEDLE, max_size=4), data=st.data())
def test_needles_find_what_one_case_folding_pattern_finds(needles, data):
    # The reference: the whole needle set as one case-folding pattern over the text as written.
    kept = sorted({n for n in needles if len(n) >= 2}, key=lambda n: (-len(n), n))
    pieces = st.sampled_from([*_LETTERS, *kept, *(n.upper() for n in kept)])
    text = "".join(data.draw(st.lists(pieces, max_size=16), label="text"))
    if not kept:
        assert Needles.of(needles).found(text) == []
        return
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(map(re.escape, kept))})[A-Za-z0-9]*", re.IGNORECASE)
    assert Needles.of(needles).found(text) == [(m.start(), m.group().lower()) for m in pattern.finditer(text)]


def test_the_folding_extras_are_every_letter_whose_lower_case_could_move_or_change_a_match():
    # Lower-casing is used in place of case folding only for texts without these letters: on this Python's Unicode
    # tables they must be all the letters that fold to an ASCII letter, or lower-case to a longer or ASCII text.
    ascii_letter = re.compile("[a-z0-9]", re.IGNORECASE)
    risky = set()
    for code in range(128, sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        lower = char.lower()
        if ascii_letter.match(char) or len(lower) != 1 or lower.isascii():
            risky.add(char)
    assert risky == set(_FOLDING_EXTRAS)
