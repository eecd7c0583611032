from docs_mcp.server.search.snippets import Needles, make_snippet

LONG = ("Intro words that say nothing at all. " * 10) + "Configure the retry backoff with max_retries here. " + ("Tail filler text. " * 20)


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
