"""`docs-mcp ARGS...` that stops itself (SIGSTOP) at one build step, for the kill and interrupt tests.

Usage: python paused_build.py STAGE LABEL DONE -- ARGS...

The process stops right after the first progress step with that stage and label and at
least DONE items done, so a signal the test sends next lands exactly there, whatever the
machine's load: no timing is involved.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import docs_mcp.indexer.sources.folder as build
from docs_mcp.cli import main
from docs_mcp.indexer.generation import Progress


def pausing(show: Callable[[Progress], None] | None, stage: str, label: str, done: int) -> Callable[[Progress], None]:
    def step(progress: Progress) -> None:
        if show:
            show(progress)
        if (progress.stage, progress.label) == (stage, label) and progress.done >= done:
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSTOP)

    return step


if __name__ == "__main__":
    stage, label, done, separator, *args = sys.argv[1:]
    assert separator == "--", __doc__
    real = build.build_index

    def paused_build_index(*positional: Any, progress: Callable[[Progress], None] | None = None, **options: Any) -> Any:
        return real(*positional, progress=pausing(progress, stage, label, int(done)), **options)

    build.build_index = paused_build_index  # the index command imports it when it runs
    sys.argv = ["docs-mcp", *args]
    main()
