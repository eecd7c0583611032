"""Under the approximate vector index, the best BM25 candidates get the cosine exact search gives them.

The index scores only the windows in the lists nearest the query; the best BM25 candidates
(engine.EXACT_COSINES) get their exact cosine, so a BM25 match in an unprobed list is not ranked as if
it had no vector at all.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer import build_index
from docs_mcp.indexer.serving.vector_index import ANN_MIN_WINDOWS_VARIABLE, UNSCORED
from docs_mcp.server.search.engine import EXACT_COSINES, open_engine
from docs_mcp.server.search.lexical import tokenize
from docs_mcp.server.search.semantic import chunk_similarities, similarities
from docs_mcp.server.search.topk import top_k

REPO = Path(__file__).parents[2]
QUERIES = [
    json.loads(line)["query"] for line in (REPO / "eval/golden/corpus.jsonl").read_text().splitlines() if line.strip()
]


@pytest.fixture(scope="module")
def engines(corpus_index: Path, tmp_path_factory: pytest.TempPathFactory):
    forced = tmp_path_factory.mktemp("approximate") / "index"
    shutil.copytree(corpus_index, forced)  # the rebuild reuses its vectors
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ANN_MIN_WINDOWS_VARIABLE, "0")
        build_index(REPO / "corpus", forced)
    return open_engine(corpus_index), open_engine(forced)


def test_chunk_similarities_are_the_exact_best_window_cosines(engines):
    exact, approximate = engines
    query = exact._query_vector("how do I retry a throttled request")
    dense = similarities(exact._vectors, query, exact.size)
    rows = np.array([0, 5, exact.size - 1, 17, 5])
    assert np.allclose(chunk_similarities(exact._vectors, query, rows), dense[rows])
    assert chunk_similarities(exact._vectors, query, rows[:0]).shape == (0,)
    index = approximate.arrays.vector_index
    for lists in (index, replace(index, window_rows=None)):  # from the lists' copy; an older index reads the vectors
        assert np.allclose(chunk_similarities(approximate._vectors, query, rows, lists), dense[rows], atol=1e-5)


def test_the_best_bm25_candidates_get_their_exact_cosine(engines):
    exact, approximate = engines
    assert approximate.arrays.vector_index is not None and exact.arrays.vector_index is None
    left_out = 0
    for query in QUERIES:
        fusion = approximate._fusion(query, tokenize(query), {}, "hybrid")
        rows = fusion.lexical.rows
        best = top_k(rows, fusion.lexical.scores[rows], EXACT_COSINES)
        query_vector = approximate._query_vector(query)
        probed = similarities(approximate._vectors, query_vector, approximate.size, approximate.arrays.vector_index)
        left_out += int((probed[best] == UNSCORED).sum())  # what the lists alone would have missed
        exact_cosines = similarities(exact._vectors, query_vector, exact.size)
        assert np.allclose(fusion.vector.scores[best], exact_cosines[best], atol=1e-5), (
            query
        )  # float32 sums in another order
    assert left_out > 100  # on this corpus the lists alone leave out many of them: the check above has teeth
