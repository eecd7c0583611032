"""The embedding time-left estimate, fed recorded and made-up steps with their timestamps (no clock)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from docs_mcp.indexer.time_left import EmbedStep, TimeLeft

RECORDED = Path(__file__).parent / "fixtures" / "embed_steps_fastapi.json"


def recorded_steps() -> list[EmbedStep]:
    return [EmbedStep(*row) for row in json.loads(RECORDED.read_text())["steps"]]


def median_error(steps: list[EmbedStep], estimates: list[float | None]) -> float:
    """Median |estimate - actual| / actual over the steps from 10% of the work on (actual: until the last step)."""
    end = steps[-1].at
    return statistics.median(
        abs(estimate - (end - step.at)) / (end - step.at)
        for step, estimate in zip(steps, estimates)
        if estimate is not None and step.work >= 0.1 * step.work_total and step.at < end
    )


def test_on_a_recorded_fastapi_build_the_median_error_is_within_a_quarter() -> None:
    steps = recorded_steps()
    estimator = TimeLeft()
    assert median_error(steps, [estimator.update(step) for step in steps]) <= 0.25


def test_the_recording_fails_the_mean_rate_since_the_start() -> None:
    """The estimator before issue 28 (characters left at the mean rate since the start) misses on the same steps."""
    steps = recorded_steps()
    start = steps[0].at
    before = [(s.work_total - s.work) * (s.at - start) / s.work if s.work else None for s in steps]
    assert median_error(steps, before) > 0.25


def test_every_window_weighs_its_fixed_cost_beside_its_characters() -> None:
    """Made-up steps at 1,000 units/s, a window costing its characters + 100: 50 windows of 100 characters, then
    50 of 900. After the short ones, the long ones' 50,000 units take 50 s (characters alone would say 90 s)."""
    estimator = TimeLeft(window_characters=100)
    steps = [EmbedStep(0.0, 0, 100, 0, 50_000)]
    steps += [EmbedStep(0.2 * n, n, 100, 100 * n, 50_000) for n in range(1, 51)]
    estimates = [estimator.update(step) for step in steps]
    assert estimates[-1] == 50.0


def test_the_rate_is_that_of_the_last_period() -> None:
    """10 units/s for 10 s, then 5/s (the machine got busy): once a whole period ran at 5/s, only that rate counts."""
    estimator = TimeLeft(period=30.0, window_characters=0)
    steps = [EmbedStep(0.0, 0, 100, 0, 1_000)]
    steps += [EmbedStep(float(t), t, 100, 10 * t, 1_000) for t in range(1, 11)]
    steps += [EmbedStep(10.0 + t, 10 + t, 100, 100 + 5 * t, 1_000) for t in range(1, 41)]
    estimates = [estimator.update(step) for step in steps]
    assert estimates[10] == 90.0  # 900 left at 10/s
    assert estimates[-1] == 700 / 5  # 700 left at 5/s; the rate since the start (300 in 50 s) would say 116.7


def test_no_estimate_before_a_rate_nor_at_the_end_and_a_new_stage_starts_afresh() -> None:
    estimator = TimeLeft(window_characters=0)
    assert estimator.update(EmbedStep(5.0, 0, 10, 0, 1_000)) is None
    assert estimator.update(EmbedStep(6.0, 5, 10, 500, 1_000)) == 1.0
    assert estimator.update(EmbedStep(7.0, 10, 10, 1_000, 1_000)) is None
    assert estimator.update(EmbedStep(100.0, 0, 10, 0, 1_000)) is None
    assert estimator.update(EmbedStep(110.0, 1, 10, 100, 1_000)) == 90.0
