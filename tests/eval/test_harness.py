"""The benchmark harness: a failing child becomes one EvalRunError that quotes its error output."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.eval.errors import EvalRunError
from docs_mcp.eval.harness import run_child


def test_a_failing_child_is_reported_with_the_tail_of_its_log(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-file.json"
    with pytest.raises(EvalRunError) as caught:
        run_child(
            "json.tool", [str(missing)], answer=tmp_path / "answer.json", log=tmp_path / "log.txt", what="step 'x'"
        )
    assert str(caught.value).startswith("step 'x' failed:")
    assert "no-such-file.json" in str(caught.value)
    assert str(tmp_path / "log.txt") in caught.value.hint


def test_a_child_that_writes_no_answer_fails(tmp_path: Path) -> None:
    source = tmp_path / "ok.json"
    source.write_text("{}")
    with pytest.raises(EvalRunError, match="no output"):
        run_child(
            "json.tool",
            [str(source), str(tmp_path / "elsewhere.json")],
            answer=tmp_path / "answer.json",
            log=tmp_path / "log.txt",
            what="step",
        )


def test_the_answer_and_peak_memory_of_a_child(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text('{"chunks": 3}')
    result = run_child(
        "json.tool",
        [str(source), str(tmp_path / "answer.json")],
        answer=tmp_path / "answer.json",
        log=tmp_path / "log.txt",
        what="step",
    )
    assert result.answer == {"chunks": 3}
    assert result.peak_rss_bytes > 1024 * 1024
