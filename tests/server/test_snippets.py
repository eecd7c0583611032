import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.server.search import snippets
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


def test_only_the_needles_no_other_needle_begins_are_searched_and_they_find_the_same_words():
    # A query's word beside its stem ("routing", "rout") is a second pass over the text that can find nothing new.
    needles = Needles.of(["routing", "rout", "router", "path", "pa", "x"])
    assert needles.searched == ("pa", "rout")
    text = "Routing: the router routes a path (Path, paths, pa) rerouted; subpath patterns."
    assert needles.found(text) == [
        (0, "routing"),
        (13, "router"),
        (20, "routes"),
        (29, "path"),
        (35, "path"),
        (41, "paths"),
        (48, "pa"),
        (70, "patterns"),
    ]


def test_needles_with_other_characters_keep_every_needle():
    # Past a letter or digit a longer needle can match more than its prefix does: "a-b-" takes "a-b-c", "a-" only "a-b".
    assert Needles.of(["a-", "a-b-"]).found("a-b-c") == [(0, "a-b-c")]


@settings(max_examples=500, deadline=None)
@given(
    words=st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "filler", "more", "words"]), max_size=120),
    needles=st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "gam"]), max_size=4),
    width=st.integers(min_value=20, max_value=120),
)
def test_the_snippet_starts_where_the_earliest_window_with_the_most_words_does(words, needles, width):
    """The reference: every window [hit, hit + 3/4 width) counted in full, the first with the most distinct words."""
    flat = " ".join(words)
    found = Needles.of(needles).found(flat)
    if len(flat) <= width or not found:
        return
    reach = width * 3 // 4
    counts = [len({word for at, word in found if position <= at < position + reach}) for position, _ in found]
    best = found[counts.index(max(counts))][0]
    assert snippets._best_start(found, width) == max(0, best - width // 4)
