"""The public API of docs_mcp.eval: every name in __all__ resolves, and the list is pinned."""

from __future__ import annotations

import pytest

import docs_mcp.eval as api


def test_public_names_are_pinned_and_importable():
    assert api.__all__ == [
        "EvalResult",
        "GoldenQuery",
        "Judgment",
        "QueryResult",
        "QueryScores",
        "RelevantEntry",
        "evaluate",
        "hit_at_k",
        "load_golden",
        "mrr_at_k",
        "ndcg_at_k",
        "recall_at_k",
        "resolve_judgments",
    ]
    for name in api.__all__:
        assert getattr(api, name).__name__ == name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="nothing_here"):
        api.nothing_here  # noqa: B018
