"""Bootstrap intervals: seeded (the same figures every run), around the mean, narrowing with more queries."""

from __future__ import annotations

from docs_mcp.eval.bootstrap import bootstrap_mean


def test_the_interval_holds_the_mean_and_is_reproducible():
    values = [0.0, 0.2, 0.5, 0.9, 1.0, 0.4, 0.7, 0.1]
    first, second = bootstrap_mean(values), bootstrap_mean(values)
    assert first == second
    assert first.low < first.mean < first.high
    assert abs(first.mean - sum(values) / len(values)) < 1e-12


def test_more_queries_give_a_narrower_interval():
    few = bootstrap_mean([0.0, 1.0] * 5)
    many = bootstrap_mean([0.0, 1.0] * 50)
    assert many.high - many.low < few.high - few.low


def test_constant_values_and_no_values():
    assert bootstrap_mean([0.5] * 4).low == bootstrap_mean([0.5] * 4).high == 0.5
    assert bootstrap_mean([]).mean == 0.0
