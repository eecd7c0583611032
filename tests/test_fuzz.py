"""A short run of scripts/fuzz_tools.py (the full one sends 10,000 calls): random and hostile calls of
every tool through a real stdio session, with no crash, hang, traceback or error without advice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fuzz_tools.py"
TIMEOUT = 600  # seconds; a bound against hangs, never waited on when things work


def test_a_short_fuzz_run_finds_nothing(corpus_index: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--index", str(corpus_index), "--calls", "300", "--seed", "7", "--seconds", "300"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    figures = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line and not line.startswith(" "))
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert figures["calls"].startswith("300 in")
    for bad in ("crash", "hang", "traceback", "error_without_advice", "tracebacks in the server log"):
        assert figures[bad] == "0", done.stdout
    assert int(figures["ok"]) > 0 and int(figures["tool_error"]) > 0 and int(figures["protocol_error"]) > 0
