"""Another fastembed model (--model) that is not cached and cannot be downloaded fails at once, in one line.

Run as a person runs it, in a subprocess: the hub client reads HF_ENDPOINT and HF_HUB_OFFLINE at
import time. fastembed alone would retry an unreachable hub for ~40 s and end with a vague error.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from corpus_files import write_corpus

MODEL = "BAAI/bge-small-en-v1.5"  # a real fastembed model; the cache below is always empty
GUARD_SECONDS = 120  # against a hang only: a failure here is immediate


def _index(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    docs = write_corpus(tmp_path / "docs", {"guide.md": "# Guide\n\nHow to install.\n"})
    environment = {key: value for key, value in os.environ.items() if not key.startswith("HF_")}
    environment.update(
        XDG_CACHE_HOME=str(tmp_path / "cache"), HF_HOME=str(tmp_path / "hf"), NO_PROXY="127.0.0.1,localhost", **env
    )
    command = [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(tmp_path / "ix"), "--model", MODEL]
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=GUARD_SECONDS, check=False)


def _failure(result: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """The error and hint lines, after checking they are the whole failure report."""
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    # Progress, then the report: the model loads while the full text is written, which it then discards.
    assert lines[:-2] == ["reading the docs folder", "1 files, 1 chunks", "writing the full-text index"]
    error, hint = lines[-2:]
    assert error.startswith("error: ") and hint.startswith("hint: ")
    return error, hint


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_offline_mode_and_no_cached_copy_is_one_clear_line(tmp_path: Path) -> None:
    error, hint = _failure(_index(tmp_path, HF_HUB_OFFLINE="1"))
    assert (
        error
        == f"error: The embedding model {MODEL} is not in the cache ({tmp_path / 'cache' / 'docs-mcp' / 'fastembed'}) and HF_HUB_OFFLINE forbids downloading it."
    )
    assert hint.startswith("hint: Unset HF_HUB_OFFLINE and run once with network access") and "drop --model" in hint
    assert not (tmp_path / "ix").exists()


def test_an_unreachable_hub_is_one_clear_line(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    error, hint = _failure(_index(tmp_path, HF_ENDPOINT=endpoint))
    # Our reachability check answered, not fastembed's retry loop ("Could not load model ... from any source").
    assert error.startswith(f"error: Cannot download the embedding model {MODEL}: {endpoint} is unreachable (")
    assert "refused" in error.lower()
    assert hint.startswith("hint: Run once with network access") and "drop --model" in hint
    assert not (tmp_path / "ix").exists()
