"""The development and report sets of eval/devsets/ fit the shared corpora they were written for.

Every relevant entry must resolve to a chunk of a full-text index of its corpus (a renamed heading or a
typo would otherwise score as a miss, silently), and every facet must name a value the index holds.
Needs ../shared (skipped without it); builds full-text-only indexes, so no model runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.judgments import resolve_judgments
from docs_mcp.eval.runner import read_index_chunks
from docs_mcp.indexer import build_index
from docs_mcp.indexer.index_file import open_index

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
def text_indexes(shared_dir, tmp_path_factory) -> dict[str, Path]:
    """One full-text index per corpus, built on first use."""
    built: dict[str, Path] = {}

    def index_of(corpus: str) -> Path:
        if corpus not in built:
            out = tmp_path_factory.mktemp(corpus.replace("/", "-")) / "index"
            build_index(shared_dir / "corpora" / corpus, out, embeddings="none")
            built[corpus] = out
        return built[corpus]

    return index_of  # type: ignore[return-value]


@pytest.mark.parametrize("name", sorted(CORPUS_OF))
def test_every_relevant_entry_and_facet_fits_the_corpus(name, text_indexes):
    index = text_indexes(CORPUS_OF[name])
    queries = load_golden(DEVSETS / f"{name}.jsonl")
    chunks, _, _ = read_index_chunks(index)
    judgments = resolve_judgments(queries, chunks)  # raises, listing every entry that matches nothing
    assert all(judged for query, judged in zip(queries, judgments) if not query.off_topic)
    with open_index(index) as reader:
        taxonomy = reader.metadata.get("taxonomy") or {}
    for query in queries:
        for key, value in query.filters.items():
            assert value in (taxonomy.get(key) or {}).get("values", ()), f"{query.qid}: no chunk has {key}={value}"


@pytest.mark.parametrize("name", ["dub-report", "opentelemetry-report"])
def test_the_report_sets_have_every_style_and_off_topic_queries(name):
    queries = load_golden(DEVSETS / f"{name}.jsonl")
    assert {q.category for q in queries} == {"keyword", "natural", "paraphrase", "off-topic"}
    assert sum(q.off_topic for q in queries) >= 20
