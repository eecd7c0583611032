"""The time left of a build's embedding stage, from its progress steps.

Windows are embedded shortest first, so their count runs ahead of the time spent (a constant
rate of windows was about 5x too optimistic). Characters alone lean the other way: every window
also has a fixed cost, which weighs most early, among the short windows, so a rate of characters
taken there overestimates the rest. The work is therefore characters plus
:data:`WINDOW_CHARACTERS` per window, at the rate of the last :data:`PERIOD` seconds. On three
FastAPI builds (2,064 windows, 2 shared cores, load 5-8, 5-6 and 2-3) the median error from 10%
of the work on went from 32%, 19% and 50% (characters at the rate since the start) to 23%, 10%
and 20%; the worst while 5 s or more were left from 67%, 37% and 125% to 39%, 45% and 39%. A
fourth build, measured after the choice (load 1-2): median 27% -> 9%, worst 38% -> 22%.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

# Seconds of steps the rate is taken over: long enough to ride out a burst of load (30 s: worst 74%, not 39%),
# short enough that an hour-long build follows the machine's load.
PERIOD = 120.0
# The fixed cost of embedding a window, in characters' worth of time. Fitted over the deciles of three FastAPI
# builds it was 72, 110 and about 900 (the lighter the load, the more the per-window Python work weighs against
# the model's, which runs on both cores); 300 scored best over the three (module docstring).
WINDOW_CHARACTERS = 300


@dataclass(frozen=True)
class EmbedStep:
    """One embedding progress step: when (seconds, any clock), windows done of all, characters done of all."""

    at: float
    done: int
    total: int
    work: int
    work_total: int


class TimeLeft:
    """Seconds left of the embedding stage after each step; feed it every step, in order."""

    def __init__(self, period: float = PERIOD, window_characters: int = WINDOW_CHARACTERS) -> None:
        self.period = period
        self.window_characters = window_characters
        self._seen: deque[EmbedStep] = deque()

    def update(self, step: EmbedStep) -> float | None:
        """The estimate after ``step``: None at the start (no rate yet) and at the end."""
        if step.done == 0:
            self._seen.clear()  # a new stage
        self._seen.append(step)
        # Keep one step at or before the period's start, so the rate spans the whole period.
        while len(self._seen) > 2 and self._seen[1].at <= step.at - self.period:
            self._seen.popleft()
        first = self._seen[0]
        seconds, work = step.at - first.at, self._cost(step.done, step.work) - self._cost(first.done, first.work)
        if step.done >= step.total or seconds <= 0 or work <= 0:
            return None
        return (self._cost(step.total, step.work_total) - self._cost(step.done, step.work)) * seconds / work

    def _cost(self, windows: int, characters: int) -> int:
        """The work of that many windows of that many characters, in characters."""
        return characters + self.window_characters * windows
