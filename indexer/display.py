"""Build progress on stderr: rich progress bars on a terminal, plain log lines otherwise, or nothing.

On a terminal each stage is a line with a spinner or a bar (embedding shows windows done,
windows/s and the time left); when stderr is a file or a pipe, each step is one line, and
embedding logs a line every tenth of the windows, and at least every half minute, so CI logs stay
short and a long build is never silent for minutes (19k windows of the Python documentation under load
were one line in six minutes). The moments a
generation goes live are printed in both modes: they matter more than the bars.

The time left of embedding is estimated from the characters embedded, not the windows
(windows go shortest first: a constant rate of windows was about 5x too optimistic), at the
rate of the last half minute (time_left.py); the bar and the log show the same estimate.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, ProgressColumn, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bars
from rich.text import Text

from docs_mcp.indexer.time_left import EmbedStep, TimeLeft

if TYPE_CHECKING:  # generation imports duckdb: only when a build runs
    from docs_mcp.indexer.generation import Progress

# Plain-log embedding lines: one per this fraction of the windows.
LOG_STEPS = 10
# ... and one at least this often (seconds) in between.
LOG_SECONDS = 30.0
_TITLES = {
    "scan": "reading the docs folder",
    "full-text": "writing the full-text index",
    "embed": "embedding windows",
}


class BuildDisplay:
    """Shows a build's :class:`Progress` steps; use as a context manager around the build."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        terminal: bool | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``stream`` defaults to stderr; ``terminal`` forces bars (True) or plain lines (False); ``clock`` times the rates."""
        self.quiet = quiet
        self._clock = clock
        self.console = Console(file=stream or sys.stderr, force_terminal=terminal, highlight=False)
        self.live: list[str] = []  # generations live so far, in order: "full text", "hybrid"
        self._started = self._logged = clock()
        self._files = 0
        self._bars: Bars | None = None
        self._task: TaskID | None = None
        self._embed = _Rate(clock)

    def __enter__(self) -> BuildDisplay:
        if not self.quiet and self.console.is_terminal:
            columns = (
                SpinnerColumn(finished_text="[green]✓"),
                TextColumn("{task.description}"),
                BarColumn(),
                TimeElapsedColumn(),
                _CountColumn(),
            )
            self._bars = Bars(*columns, console=self.console, transient=True)
            self._bars.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._bars is not None:
            self._bars.stop()
            self._bars = None

    def show(self, step: Progress) -> None:
        """Display one build step."""
        if step.stage == "live":
            self.live.append(step.label)
            self._say(f"{step.label} search is live ({self._elapsed():.1f} s)")
        elif step.stage == "pages":
            self._reading(step.done, step.total)
        elif step.stage == "files":
            self._files = step.done
        elif step.stage == "chunks":
            self._say(f"{self._files} files, {step.done} chunks")
        elif step.stage == "embed":
            self._embedding(step)
        elif step.stage in _TITLES:
            self._begin(_TITLES[step.stage])

    def _reading(self, done: int, total: int) -> None:
        """Pages read of all: in the spinner's line, or a plain line at least every LOG_SECONDS (a large folder takes minutes)."""
        text = f"{_TITLES['scan']}: {done}/{total} pages"
        if self._bars is not None and self._task is not None:
            self._bars.update(self._task, description=text)
        elif self._bars is None and not self.quiet and self._clock() - self._logged >= LOG_SECONDS:
            self._line(text)

    def _embedding(self, step: Progress) -> None:
        done, total = step.done, step.total
        if total == 0:
            return  # every vector reused
        # The work: characters when the build says them, else windows.
        work, work_total = (step.work, step.work_total) if step.work_total else (done, total)
        if done == 0:
            self._embed = _Rate(self._clock)
            self._begin(_TITLES["embed"], work_total, unit="windows")
        left = self._embed.left(EmbedStep(self._clock(), done, total, work, work_total))
        if self._bars is not None and self._task is not None:
            self._bars.update(self._task, completed=work, windows=(done, total), left=left)
        elif not self.quiet and self._embed.due(done, total):
            self._line(f"embedding {done}/{total} windows{self._embed.describe(done, total, left)}")

    def _begin(self, title: str, total: int | None = None, unit: str = "") -> None:
        """Start a stage: a new bar (the previous one is finished) or a plain line."""
        if self.quiet:
            return
        if self._bars is None:
            if total is None:
                self._line(title)
            return
        self._finish_task()
        self._task = self._bars.add_task(title, total=total, unit=unit)

    def _finish_task(self) -> None:
        if self._bars is not None and self._task is not None:
            task = next(task for task in self._bars.tasks if task.id == self._task)
            self._bars.update(self._task, total=task.total or 1, completed=task.total or 1)
            self._bars.stop_task(self._task)

    def _say(self, text: str) -> None:
        """A line that stays above the bars (or a plain line)."""
        if self.quiet:
            return
        if self._bars is not None:
            self._finish_task()
            self._task = None
            self._bars.console.print(text)
        else:
            self._line(text)

    def _line(self, text: str) -> None:
        self.console.file.write(f"{text}\n")
        self.console.file.flush()
        self._logged = self._clock()

    def _elapsed(self) -> float:
        return self._clock() - self._started


class _Rate:
    """Windows per second and time left of the embedding, and when the next plain-log line is due."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.started = clock()
        self.next_step = 0
        self.logged = self.started
        self.time_left = TimeLeft()

    def left(self, step: EmbedStep) -> float | None:
        """Seconds left after ``step`` (every step goes through here: the estimate needs them all)."""
        return self.time_left.update(step)

    def due(self, done: int, total: int) -> bool:
        """Whether a plain-log line is due: the first, the last, a tenth more done, or LOG_SECONDS since the last line."""
        step = done * LOG_STEPS // total
        now = self.clock()
        if done not in (0, total) and step < self.next_step and now - self.logged < LOG_SECONDS:
            return False
        self.next_step = max(self.next_step, step + 1)
        self.logged = now
        return True

    def describe(self, done: int, total: int, left: float | None) -> str:
        seconds = self.clock() - self.started
        if done == 0 or seconds <= 0:
            return ""
        return f" ({done / seconds:.1f} windows/s{'' if left is None else f', about {_duration(left)} left'})"


class _CountColumn(ProgressColumn):
    """Items done, rate and time left of a stage with a total (embedding); empty for the others."""

    def render(self, task: Any) -> Text:
        if not task.total or not task.fields.get("unit"):
            return Text("")
        done, total = task.fields.get("windows", (task.completed, task.total))
        text = f"{done:.0f}/{total:.0f} {task.fields['unit']}"
        if task.elapsed and done:
            text += f", {done / task.elapsed:.1f}/s"
        if task.fields.get("left") is not None and not task.finished:
            text += f", about {_duration(task.fields['left'])} left"
        return Text(text, style="progress.data.speed")


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds + 0.5), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"
