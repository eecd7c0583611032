"""Identifiers first, on the bundled corpus through the real tools: every bare identifier of eval/devsets/corpus-identifiers.jsonl
finds a section that names it in the top 5, and hybrid search ranks them at least as well as the plain fusion."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.eval.runner import evaluate

IDENTIFIERS = Path(__file__).parents[2] / "eval" / "devsets" / "corpus-identifiers.jsonl"


def test_every_identifier_finds_a_section_that_names_it_in_the_top_5(corpus_index: Path):
    hybrid = evaluate(IDENTIFIERS, corpus_index, mode="hybrid")
    missed = [r.query.query for r in hybrid.results if r.scores.hit < 1.0]
    assert missed == []
    fusion = evaluate(IDENTIFIERS, corpus_index, mode="fusion")
    assert hybrid.overall().ndcg > fusion.overall().ndcg  # the lookups' rule: the fusion alone misses some
    assert [r.query.query for r in hybrid.results if r.scores.mrr < 1.0] == []  # and first, for every one of them
