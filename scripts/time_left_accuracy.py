"""How right the build's embedding time-left estimate is: build a real corpus, record every progress
step with its time, and score the estimate shown at each step against the time that was really left.

    python scripts/time_left_accuracy.py DOCS_DIR OUT_DIR [--record steps.json]
    python scripts/time_left_accuracy.py --replay steps.json

OUT_DIR is emptied first (a fresh build embeds every window). The error of one estimate is
|estimate - actual| / actual, where actual is the time from that step to the last embedding step;
the summary is the median and the worst over every step from 10% of the embedding work on (the
bar's position), for the display's estimator and, for comparison, a constant rate of characters
since the start (the estimator before issue 28). Quote `uptime` load beside the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from docs_mcp.indexer.time_left import EmbedStep, TimeLeft

FROM = 0.10  # score estimates from this fraction of the embedding work on
LATE = 5.0  # seconds left below which the worst error is also quoted apart


def record(docs_dir: Path, out_dir: Path) -> list[EmbedStep]:
    """Build ``docs_dir`` into an emptied ``out_dir``; the embedding steps with their times."""
    from docs_mcp.indexer.sources.folder import build_index

    shutil.rmtree(out_dir, ignore_errors=True)
    steps: list[EmbedStep] = []

    def progress(step) -> None:
        if step.stage == "embed" and step.total:
            steps.append(EmbedStep(time.perf_counter(), step.done, step.total, step.work, step.work_total))

    build_index(docs_dir, out_dir, progress=progress)
    return steps


def mean_rate_since_start(steps: list[EmbedStep]) -> list[float | None]:
    """The estimator before issue 28: characters left at the mean characters/s since the stage began."""
    start = steps[0].at
    return [(s.work_total - s.work) * (s.at - start) / s.work if s.work and s.at > start else None for s in steps]


def display_estimates(steps: list[EmbedStep]) -> list[float | None]:
    """What the build display's estimator says at each step."""
    estimator = TimeLeft()
    return [estimator.update(step) for step in steps]


def score(steps: list[EmbedStep], estimates: list[float | None]) -> tuple[float, float, float, int]:
    """Median and worst relative error, the worst while at least LATE seconds were left, and how many steps
    were scored, from FROM of the work on (in the last seconds a second off is a large fraction)."""
    end = steps[-1].at
    scored = [
        (abs(estimate - (end - step.at)) / (end - step.at), end - step.at)
        for step, estimate in zip(steps, estimates)
        if step.work >= FROM * step.work_total and end > step.at and estimate is not None
    ]
    errors = [error for error, _ in scored]
    return statistics.median(errors), max(errors), max(error for error, left in scored if left >= LATE), len(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs_dir", nargs="?", type=Path)
    parser.add_argument("out_dir", nargs="?", type=Path)
    parser.add_argument("--record", type=Path, help="write the recorded steps here (JSON)")
    parser.add_argument("--replay", type=Path, help="score a recording instead of building")
    args = parser.parse_args()
    if args.replay:
        steps = [EmbedStep(*row) for row in json.loads(args.replay.read_text())]
    elif args.docs_dir and args.out_dir:
        print(f"load before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        steps = record(args.docs_dir, args.out_dir)
        print(f"load after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        if args.record:
            args.record.write_text(json.dumps([dataclasses.astuple(step) for step in steps]))
    else:
        parser.error("give DOCS_DIR OUT_DIR, or --replay FILE")
    seconds = steps[-1].at - steps[0].at
    print(
        f"{steps[-1].total} windows, {steps[-1].work_total} characters embedded in {seconds:.1f} s, {len(steps)} steps"
    )
    for name, estimates in (
        ("display", display_estimates(steps)),
        ("mean rate since start", mean_rate_since_start(steps)),
    ):
        median, worst, worst_early, count = score(steps, estimates)
        print(
            f"{name:>22}: median error {median:.0%}, worst {worst:.0%} ({worst_early:.0%} while {LATE:.0f} s or more"
            f" were left) over {count} steps from {FROM:.0%} of the work"
        )


if __name__ == "__main__":
    main()
