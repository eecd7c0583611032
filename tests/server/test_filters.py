import numpy as np

from docs_mcp.server.search.filters import TaxonomyColumns, filter_mask

ROWS = [
    {"language": "python", "scope": "sdk-specific"},
    {"language": "go", "scope": "sdk-specific"},
    {"scope": "global-guide"},
    {},
    {"language": "go", "scope": "global-guide"},
]


def columns():
    return TaxonomyColumns.from_metadata(ROWS, ["language", "scope"])


def test_values_are_sorted_and_unset_is_minus_one():
    cols = columns()
    assert cols.values["language"] == ("go", "python")
    assert cols.codes["language"].tolist() == [1, 0, -1, -1, 0]


def test_no_filter_means_no_mask():
    assert filter_mask(columns(), {}, len(ROWS)) is None


def test_language_filter_auto_includes_language_neutral_chunks():
    mask = filter_mask(columns(), {"language": "python"}, len(ROWS))
    assert mask.tolist() == [True, False, True, True, True]


def test_language_and_scope_filters_are_exact():
    mask = filter_mask(columns(), {"language": "python", "scope": "sdk-specific"}, len(ROWS))
    assert mask.tolist() == [True, False, False, False, False]


def test_unknown_value_or_key_selects_nothing():
    assert not filter_mask(columns(), {"scope": "nope"}, len(ROWS)).any()
    assert not filter_mask(columns(), {"colour": "red"}, len(ROWS)).any()


def test_empty_index():
    cols = TaxonomyColumns.from_metadata([], ["language"])
    assert filter_mask(cols, {"language": "go"}, 0).tolist() == []
    assert isinstance(cols.codes["language"], np.ndarray)
