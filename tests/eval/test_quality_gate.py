"""The CI quality gate: `docs-mcp eval eval/golden/corpus.jsonl --min-ndcg X` on the bundled corpus.

X sits just under what hybrid ranking reaches today, so a change that loses quality fails
here; raise it when the ranking gets better (the figures are in the table this test prints).
"""

from __future__ import annotations

import sys

import pytest

from docs_mcp import cli

MIN_NDCG = "0.60"


def test_hybrid_ndcg_on_the_sample_corpus_stays_above_the_gate(corpus_index, repo_root, monkeypatch, capsys):
    golden = repo_root / "eval" / "golden" / "corpus.jsonl"
    monkeypatch.setattr(
        sys, "argv", ["docs-mcp", "eval", str(golden), "--index", str(corpus_index), "--min-ndcg", MIN_NDCG]
    )
    with pytest.raises(SystemExit) as exited:
        cli.main()
    out, err = capsys.readouterr()
    assert exited.value.code in (0, None), f"{err}\n{out}"
    assert "gate passed" in err
