import numpy as np

from docs_mcp.indexer.serving.writer import encode_taxonomy
from docs_mcp.server.search.filters import FilterRule, TaxonomyColumns, filter_mask

ROWS = [
    {"language": "python", "scope": "sdk-specific"},
    {"language": "go", "scope": "sdk-specific"},
    {"scope": "global-guide"},
    {},
    {"language": "go", "scope": "global-guide"},
]


def columns_of(rows, keys) -> TaxonomyColumns:
    """The columns the server reads, encoded the way the build writes them."""
    return TaxonomyColumns.from_codes(*encode_taxonomy(rows), keys, len(rows))


def columns():
    return columns_of(ROWS, ["language", "scope"])


def test_values_are_sorted_and_unset_is_minus_one():
    cols = columns()
    assert cols.values["language"] == ("go", "python")
    assert cols.codes["language"].tolist() == [1, 0, -1, -1, 0]


def test_no_filter_means_no_mask():
    assert filter_mask(columns(), {}, len(ROWS)) is None


# The bundled corpus's rule for `language` (metadata.json): neutral chunks pass a language filter.
NEUTRAL = {"language": FilterRule(keeps_unset=True, keeps=(("scope", "global*"),))}


def test_a_filter_is_exact_without_a_rule():
    mask = filter_mask(columns(), {"language": "python"}, len(ROWS))
    assert mask.tolist() == [True, False, False, False, False]


def test_a_rule_keeps_chunks_without_the_key_and_chunks_matching_its_globs():
    mask = filter_mask(columns(), {"language": "python"}, len(ROWS), NEUTRAL)
    assert mask.tolist() == [True, False, True, True, True]


def test_each_part_of_a_rule_on_its_own():
    unset_only = {"language": FilterRule(keeps_unset=True)}
    glob_only = {"language": FilterRule(keeps=(("scope", "global*"),))}
    assert filter_mask(columns(), {"language": "python"}, len(ROWS), unset_only).tolist() == [
        True,
        False,
        True,
        True,
        False,
    ]
    assert filter_mask(columns(), {"language": "python"}, len(ROWS), glob_only).tolist() == [
        True,
        False,
        True,
        False,
        True,
    ]


def test_filtering_the_kept_key_too_makes_both_filters_exact():
    mask = filter_mask(columns(), {"language": "python", "scope": "sdk-specific"}, len(ROWS), NEUTRAL)
    assert mask.tolist() == [True, False, False, False, False]


def test_a_rule_is_read_from_the_metadata_entry():
    entry = {"description": "x", "filter_keeps_unset": True, "filter_keeps": {"scope": "global*"}}
    assert FilterRule.from_entry(entry) == NEUTRAL["language"]
    assert FilterRule.from_entry({"description": "x"}) == FilterRule()


def test_unknown_value_or_key_selects_nothing():
    assert not filter_mask(columns(), {"scope": "nope"}, len(ROWS)).any()
    assert not filter_mask(columns(), {"colour": "red"}, len(ROWS)).any()


def test_empty_index():
    cols = columns_of([], ["language"])
    assert filter_mask(cols, {"language": "go"}, 0).tolist() == []
    assert isinstance(cols.codes["language"], np.ndarray)
