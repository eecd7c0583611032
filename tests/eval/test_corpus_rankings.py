"""Hybrid search on corpus/ ranks the golden queries exactly as recorded (issue 10: same model, same results).

fixtures/corpus_rankings.json was recorded before the default model's packages changed. When corpus/
or the golden file changes on purpose, re-record it (tests/model_fixtures.py) once the model's vectors
test (tests/indexer/test_model_fixture.py) passes: then a difference here is the corpus, not the model.
"""

from __future__ import annotations

import json

from model_fixtures import LIMIT, MODE, RANKINGS, corpus_digest, hybrid_top

from docs_mcp.server.search.engine import open_engine


def test_golden_queries_rank_the_recorded_chunks_in_the_recorded_order(corpus_index) -> None:
    recorded = json.loads(RANKINGS.read_text(encoding="utf-8"))
    assert (recorded["mode"], recorded["limit"]) == (MODE, LIMIT) and len(recorded["queries"]) >= 50
    engine = open_engine(corpus_index)
    try:
        changed = {
            query["id"]: {"recorded": query["ranked"], "now": now}
            for query in recorded["queries"]
            if (now := hybrid_top(engine, query["query"], query["filters"])) != query["ranked"]
        }
    finally:
        engine.close()
    why = (
        ""
        if recorded["corpus_sha256"] == corpus_digest()
        else (
            "corpus/ changed since the rankings were recorded: if test_model_fixture.py passes, "
            "re-record them with `python tests/model_fixtures.py rankings`."
        )
    )
    assert changed == {}, why
