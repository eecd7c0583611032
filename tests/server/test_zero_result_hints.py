"""Zero-result hints: suggested values per filter the caller set, and a message that says what next."""

import pytest

from docs_mcp.server.search.zero_result_hints import build_hint

TAXONOMY = {"language": ("go", "java", "python", "typescript"), "scope": ("global-guide", "sdk-specific")}


def _matcher(matching: list[dict]):
    calls = []

    def matches(filters):
        calls.append(dict(filters))
        return dict(filters) in matching

    return matches, calls


@pytest.mark.contract("SD-HINT")
def test_other_values_under_which_the_query_matches_are_suggested():
    matches, calls = _matcher([{"language": "python"}, {"language": "typescript"}])
    hint = build_hint("paginate", {"language": "go"}, TAXONOMY, matches)
    assert hint.suggested_filters == {"language": ("python", "typescript")}
    assert {"language": "go"} not in calls  # the value that found nothing is not retried
    assert hint.message == (
        "0 results found for 'paginate' with language='go'. "
        "The query matches under the values in suggested_filters: retry with one of them."
    )


@pytest.mark.contract("SD-HINT")
def test_each_key_is_swapped_with_the_other_filters_kept():
    matches, calls = _matcher([{"language": "go", "scope": "global-guide"}])
    hint = build_hint("x", {"language": "go", "scope": "sdk-specific"}, TAXONOMY, matches)
    assert hint.suggested_filters == {"scope": ("global-guide",)}
    assert {"language": "java", "scope": "sdk-specific"} in calls


def test_without_filters_there_is_nothing_to_suggest():
    matches, calls = _matcher([])
    hint = build_hint("zqxjv wvkplm", {}, TAXONOMY, matches, ["zqxjv", "wvkplm"], ["zqxjv", "wvkplm"])
    assert hint.suggested_filters == {} and calls == []
    assert hint.message.startswith(
        "0 results found for 'zqxjv wvkplm'. The documentation contains none of its words: try other words"
    )


def test_the_message_names_the_words_the_docs_do_not_hold_and_only_them():
    matches, _ = _matcher([])
    some = build_hint("knit a scarf in go", {}, TAXONOMY, matches, ["knit", "scarf", "go"], ["knit", "scarf"])
    assert (
        "does not contain 'knit', 'scarf', and no section matches the rest of it closely enough to be an answer"
        in some.message
    )
    none = build_hint("retry the request", {}, TAXONOMY, matches, ["retry", "request"], [])
    assert "Its words occur in the documentation, but no section matches it closely enough" in none.message


def test_a_query_that_matches_only_unfiltered_says_to_drop_the_filters():
    matches, _ = _matcher([{}])
    hint = build_hint("x", {"language": "go"}, TAXONOMY, matches)
    assert hint.suggested_filters == {}
    assert hint.message.endswith("The query matches only without these filters: run search_docs again without them.")


def test_a_query_that_matches_nowhere_says_to_try_other_words():
    matches, _ = _matcher([])
    message = build_hint("x", {"language": "go"}, TAXONOMY, matches, ["x"], ["x"]).message
    assert (
        "Nothing matches without the filters either. The documentation contains none of its words: try other words"
        in message
    )


def test_a_long_query_is_cut_in_the_message():
    matches, _ = _matcher([])
    message = build_hint("word " * 100, {}, TAXONOMY, matches).message
    assert "…'" in message and len(message) < 250
