"""The benchmark harness: run one measured step in a fresh Python process, read back its JSON and peak RSS.

A step of its own process has a peak RSS of its own (``os.wait4`` returns the child's
resource usage) and starts cold: no model, no postings, no import cache. Both
``docs-mcp bench`` and ``docs-mcp bench-index`` measure through :func:`run_child`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from docs_mcp.eval.errors import EvalRunError


@dataclass(frozen=True)
class ChildResult:
    """What a measured step answered, and the peak resident memory of its process."""

    answer: dict[str, Any]
    peak_rss_bytes: int

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / (1024 * 1024)


def run_child(module: str, args: Sequence[str], *, answer: Path, log: Path, what: str) -> ChildResult:
    """Run ``python -m module *args``; the child writes its JSON answer to ``answer``, its stderr goes to ``log``.

    Raises:
        EvalRunError: the child failed or wrote no answer (``what`` names the step; the tail of its log is quoted).
    """
    answer.unlink(missing_ok=True)
    with log.open("wb") as errlog:
        process = subprocess.Popen(
            [sys.executable, "-m", module, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
    if process.returncode != 0 or not answer.exists():
        tail = log.read_text(errors="replace").strip()[-3000:] or "no output"
        raise EvalRunError(f"{what} failed:\n{tail}", f"See {log}.")
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return ChildResult(json.loads(answer.read_text()), peak)
