"""The development and report sets of eval/devsets/ fit the shared corpora they were written for.

Every relevant entry must resolve to a chunk of its corpus as the indexer splits it (a renamed heading or
a typo would otherwise score as a miss, silently), and every facet must name a value the corpus holds.
Needs ../shared (skipped without it); scans the corpora only, so nothing is written and no model runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.judgments import IndexedChunk, resolve_judgments
from docs_mcp.indexer import CorpusScan, scan_corpus

DEVSETS = Path(__file__).parents[2] / "eval" / "devsets"
CORPUS_OF = {  # set file stem -> corpus folder under ../shared/corpora
    "fastapi-tune": "fastapi",
    "fastapi-heldout": "fastapi",
    "powershell-tune": "powershell/7.5",
    "powershell-heldout": "powershell/7.5",
    "dub-report": "dub",
    "opentelemetry-report": "opentelemetry",
}


def test_every_set_in_the_folder_names_its_corpus():
    assert sorted(p.stem for p in DEVSETS.glob("*.jsonl")) == sorted(CORPUS_OF)


@pytest.fixture(scope="module")
def scans(shared_dir):
    """One scan per corpus, made on first use."""
    made: dict[str, CorpusScan] = {}

    def scan_of(corpus: str) -> CorpusScan:
        if corpus not in made:
            made[corpus] = scan_corpus(shared_dir / "corpora" / corpus)
        return made[corpus]

    return scan_of


@pytest.mark.parametrize("name", sorted(CORPUS_OF))
def test_every_relevant_entry_and_facet_fits_the_corpus(name, scans):
    scan = scans(CORPUS_OF[name])
    queries = load_golden(DEVSETS / f"{name}.jsonl")
    chunks = [IndexedChunk(c.chunk_id, c.filepath, tuple(c.heading_path), tuple(c.headings)) for c in scan.chunks]
    judgments = resolve_judgments(queries, chunks)  # raises, listing every entry that matches nothing
    assert all(judged for query, judged in zip(queries, judgments) if not query.off_topic)
    values = {key.name: key.values for key in scan.taxonomy}
    for query in queries:
        for key, value in query.filters.items():
            assert value in values.get(key, ()), f"{query.qid}: no chunk has {key}={value}"


@pytest.mark.parametrize("name", ["dub-report", "opentelemetry-report"])
def test_the_report_sets_have_every_style_and_off_topic_queries(name):
    queries = load_golden(DEVSETS / f"{name}.jsonl")
    assert {q.category for q in queries} == {"keyword", "natural", "paraphrase", "off-topic"}
    assert sum(q.off_topic for q in queries) >= 20
