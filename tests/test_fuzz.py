"""A short run of scripts/fuzz_tools.py (the full one sends 10,000 calls): random and hostile calls of
every tool through a real stdio session, with no crash, hang, traceback or error without advice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from docs_mcp.server.errors import ChunkNotFoundError, InvalidArgumentError
from docs_mcp.server.tools.search_docs_expanded import parse_expansions

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fuzz_tools.py"
TIMEOUT = 600  # seconds; a bound against hangs, never waited on when things work


def test_a_short_fuzz_run_finds_nothing(corpus_index: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--index",
            str(corpus_index),
            "--calls",
            "300",
            "--seed",
            "7",
            "--seconds",
            "300",
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    figures = dict(
        line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line and not line.startswith(" ")
    )
    assert done.returncode == 0, done.stdout + done.stderr[-6000:]
    assert figures["calls"].startswith("300 in")
    for bad in ("crash", "hang", "traceback", "error_without_advice", "tracebacks in the server log"):
        assert figures[bad] == "0", done.stdout + done.stderr[-5000:]
    assert int(figures["ok"]) > 0 and int(figures["tool_error"]) > 0 and int(figures["protocol_error"]) > 0


def test_the_fuzzer_reads_advice_however_an_error_phrases_it() -> None:
    """It exited 1 on a clean server: 'start with ...' mid-sentence, then 'Keep keywords to ...', were not read as advice."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_tools", SCRIPT)
    fuzz = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["fuzz_tools"] = fuzz  # its dataclasses look their module up
    spec.loader.exec_module(fuzz)
    for error in (
        ChunkNotFoundError("guides/retries.md", ("guides/retries.md#retries", 3)),
        ChunkNotFoundError("guides/intro.md", ("guides/intro.md#intro", 1)),
        ChunkNotFoundError("x.md#y"),
        _raised(parse_expansions, {"keywords": "x" * 5_000}),
    ):
        tally = fuzz.Tally()
        fuzz._check_text("tool_error", "get_doc", {}, str(error), tally)
        assert tally.outcomes == {"tool_error": 1}, (str(error), tally.problems)
    tally = fuzz.Tally()
    fuzz._check_text("tool_error", "get_doc", {}, "Something went wrong.", tally)
    assert tally.outcomes == {"error_without_advice": 1}


def _raised(parse: Any, arguments: dict[str, Any]) -> Exception:
    try:
        parse(arguments)
    except InvalidArgumentError as error:
        return error
    raise AssertionError(f"{arguments} was accepted")
