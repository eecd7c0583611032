"""What the default embedding model produced, recorded so tests prove it never silently changes.

Shared by the tests that read them (tests/ is on sys.path) and runnable to record them. Three
fixtures, each recorded with the real model:

- ``tests/indexer/fixtures/default_model_vectors.npz``: the document and query vectors of the
  fixed texts in ``default_model_texts.json`` (tests/indexer/test_model_fixture.py compares them
  by cosine);
- ``tests/indexer/fixtures/static_model_vectors.npz``: the vectors minilm-static gives the same texts
  (tests/indexer/test_static_model.py; a static model reads queries and documents alike);
- ``tests/eval/fixtures/corpus_rankings.json``: for every golden query of
  ``eval/golden/corpus.jsonl``, the chunk IDs hybrid search ranks in its top 10 on ``corpus/``,
  with a digest of the corpus they were recorded on (tests/eval/test_corpus_rankings.py).

Both were first recorded before issue 10 replaced the model's packages. Re-record only on purpose:
the vectors when the default model changes deliberately, the rankings when ``corpus/`` or the golden
file changed and the vectors test still passes.

    python tests/model_fixtures.py vectors
    python tests/model_fixtures.py static
    python tests/model_fixtures.py rankings
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TEXTS = REPO / "tests/indexer/fixtures/default_model_texts.json"
VECTORS = REPO / "tests/indexer/fixtures/default_model_vectors.npz"
STATIC_VECTORS = REPO / "tests/indexer/fixtures/static_model_vectors.npz"
RANKINGS = REPO / "tests/eval/fixtures/corpus_rankings.json"
GOLDEN = REPO / "eval/golden/corpus.jsonl"
CORPUS = REPO / "corpus"
MODE, LIMIT = "hybrid", 10


def corpus_digest(corpus: Path = CORPUS) -> str:
    """sha256 over every file the corpus index is built from (corpus/ and the metadata.json beside it)."""
    digest = hashlib.sha256()
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    for path in [*files, corpus.parent / "metadata.json"]:
        digest.update(path.relative_to(corpus.parent).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fixed_texts() -> list[tuple[str, str]]:
    """(id, text) of every text whose vectors are pinned."""
    return [(item["id"], item["text"]) for item in json.loads(TEXTS.read_text(encoding="utf-8"))["texts"]]


def hybrid_top(engine, query: str, filters: dict[str, str]) -> list[str]:
    """The chunk IDs search_docs ranks first for ``query``, as the rankings fixture records them."""
    return [hit.chunk_id for hit in engine.search(query, filters, mode=MODE, limit=LIMIT).hits]


def record_vectors() -> None:
    from docs_mcp.indexer.models.loading import load_embedder

    texts = [text for _, text in fixed_texts()]
    embedder = load_embedder("default")
    documents = embedder.embed_documents(texts)
    queries = np.vstack([embedder.embed_query(text) for text in texts])
    np.savez_compressed(VECTORS, documents=documents.astype(np.float32), queries=queries.astype(np.float32))
    print(
        f"{VECTORS.relative_to(REPO)}: {len(texts)} texts, {documents.shape[1]} dimensions, model {embedder.identity.checksum[:12]}"
    )


def record_static_vectors() -> None:
    from docs_mcp.indexer.models.loading import load_embedder

    embedder = load_embedder("minilm-static")
    documents = embedder.embed_documents([text for _, text in fixed_texts()])
    np.savez_compressed(STATIC_VECTORS, documents=documents.astype(np.float32))
    print(f"{STATIC_VECTORS.relative_to(REPO)}: {len(documents)} texts, table {embedder.identity.checksum[:12]}")


def record_rankings() -> None:
    from docs_mcp.eval.golden import load_golden
    from docs_mcp.indexer import build_index
    from docs_mcp.server.search.engine import open_engine

    with tempfile.TemporaryDirectory() as scratch:
        index_dir = Path(scratch) / "index"
        build_index(CORPUS, index_dir)
        engine = open_engine(index_dir)
        queries = [
            {
                "id": q.qid,
                "query": q.query,
                "filters": dict(q.filters),
                "ranked": hybrid_top(engine, q.query, dict(q.filters)),
            }
            for q in load_golden(GOLDEN)
        ]
        engine.close()
    payload = {
        "corpus_sha256": corpus_digest(),
        "golden": GOLDEN.relative_to(REPO).as_posix(),
        "mode": MODE,
        "limit": LIMIT,
        "queries": queries,
    }
    RANKINGS.parent.mkdir(parents=True, exist_ok=True)
    RANKINGS.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{RANKINGS.relative_to(REPO)}: {len(queries)} queries, top {LIMIT} in {MODE} mode")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("vectors", "static", "rankings"))
    args = parser.parse_args(argv)
    {"vectors": record_vectors, "static": record_static_vectors, "rankings": record_rankings}[args.what]()


if __name__ == "__main__":
    main(sys.argv[1:])
