"""The benchmark harness: run one measured step in a fresh Python process, read back its JSON and peak RSS.

A step of its own process has a peak RSS of its own (``os.wait4`` returns the child's
resource usage) and starts cold: no model, no postings, no import cache. Both
``docs-mcp bench`` and ``docs-mcp bench-index`` measure through :func:`run_child`; their
children answer through :func:`answer_or_error`, so an error raised on purpose in the child
(a missing docs folder, ...) reaches the user as the same one line ``docs-mcp index`` prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.errors import DocsMcpError
from docs_mcp.eval.errors import EvalRunError

# The key of a child's answer that is an error raised on purpose, not figures.
_CHILD_ERROR = "docs_mcp_child_error"


@dataclass(frozen=True)
class ChildResult:
    """What a measured step answered, and the peak resident memory of its process."""

    answer: dict[str, Any]
    peak_rss_bytes: int
    cpu_seconds: float = 0.0  # user and system time of the process: on a shared machine, steadier than the wall clock

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / (1024 * 1024)


def run_child(module: str, args: Sequence[str], *, answer: Path, log: Path, what: str) -> ChildResult:
    """Run ``python -m module *args``; the child writes its JSON answer to ``answer``, its stderr goes to ``log``.

    Raises:
        EvalRunError: the child failed or wrote no answer: the error it reported (see answer_or_error), else
            ``what`` failed with the tail of its log quoted.
        KeyboardInterrupt: the child is killed first, so the caller's temporary folder can be removed.
    """
    answer.unlink(missing_ok=True)
    with log.open("wb") as errlog:
        process = subprocess.Popen(
            [sys.executable, "-m", module, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog
        )
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:
            process.kill()  # Ctrl-C: a step left running would keep writing into the folder being removed
            process.wait()
            raise
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
    if process.returncode != 0 or not answer.exists():
        raise _child_failure(answer, log, what)
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return ChildResult(json.loads(answer.read_text()), peak, usage.ru_utime + usage.ru_stime)


def _child_failure(answer: Path, log: Path, what: str) -> EvalRunError:
    """The error a child reported in its answer, else one quoting the tail of its log (a crash)."""
    reported = _reported_error(answer)
    if reported is not None:
        return EvalRunError(str(reported.get("message", "")), str(reported.get("hint", "")))
    tail = log.read_text(errors="replace").strip()[-3000:] or "no output"
    return EvalRunError(f"{what} failed:\n{tail}", f"See {log}.")


def _reported_error(answer: Path) -> dict[str, Any] | None:
    """The error answer_or_error wrote to ``answer``; None when there is none (no file, a partial one, figures)."""
    try:
        data = json.loads(answer.read_text())
    except (OSError, ValueError):
        return None
    reported = data.get(_CHILD_ERROR) if isinstance(data, dict) else None
    return reported if isinstance(reported, dict) else None


def answer_or_error(answer: Path, work: Callable[[], Mapping[str, Any]]) -> int:
    """Child side: write what ``work`` returns to ``answer`` as JSON, or the DocsMcpError it raises; the exit status.

    run_child raises a reported error as its own message and hint: no traceback of the child.
    """
    try:
        result = work()
    except DocsMcpError as error:
        answer.write_text(json.dumps({_CHILD_ERROR: {"message": error.message, "hint": error.hint}}))
        return 1
    answer.write_text(json.dumps(result))
    return 0
