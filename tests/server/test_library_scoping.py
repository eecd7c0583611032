"""An index of several libraries ranks a library's questions as that library's own index does (real indexes of the
bundled SDK pages, the default model).

- BM25 reads each library's statistics (its chunk count, average lengths, each word's document frequency within it),
  so a search filtered to one library scores its chunks as when that library is indexed alone.
- A hybrid search without a library filter ranks within the library of its best candidate: the hits, their scores
  and whether the query is held back are those of the library's own index, without the other library's pages.
- When that library holds the question back, the next candidates' libraries are tried: a question is held back only
  when every library holds it back (one real FastAPI page beside this guide; fixtures/fastapi-page/README.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_mcp.server.search.engine import Engine, open_engine
from docs_mcp.server.search.modes import Mode

SDK_PAGES = Path(__file__).parents[2] / "corpus" / "sdk"
# Questions about the Python SDK: each page exists for TypeScript too, in other words. (Not Go: `go` names a library
# there, so it is no stop word in that index, and Python pages that say "go" would be a word longer than alone.)
PYTHON_QUESTIONS = (
    "RateLimitError retry_after",
    "how do I iterate over every page of results with iter_search",
    "configure the client timeout in python",
    "where do I put the API key in a Python program",
)
OFF_TOPIC = ("how do I bake sourdough bread at home", "what is the capital of Australia")


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Engine]]:
    """The Python SDK indexed alone, and with the TypeScript SDK as a second library of the same index."""
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    root = tmp_path_factory.mktemp("library-scoping")
    for name in ("python", "typescript"):
        shutil.copytree(SDK_PAGES / name, root / name)
    build_index(root / "python", root / "alone", library=requested_spec(root / "python", "acme/python"))
    for name in ("python", "typescript"):
        build_index(root / name, root / "both", library=requested_spec(root / name, f"acme/{name}"))
    alone, both = open_engine(root / "alone"), open_engine(root / "both")
    yield alone, both
    alone.close()
    both.close()


def _ranked(engine: Engine, query: str, mode: Mode, filters: dict[str, str] | None = None) -> list[tuple[str, float]]:
    return [(hit.chunk_id, hit.score) for hit in engine.search(query, filters, mode=mode, limit=10).hits]


def test_bm25_filtered_to_a_library_scores_as_the_library_indexed_alone(engines: tuple[Engine, Engine]) -> None:
    alone, both = engines
    for query in (*PYTHON_QUESTIONS, "client", "retries"):
        expected = _ranked(alone, query, Mode.bm25)
        found = _ranked(both, query, Mode.bm25, {"library": "acme/python"})
        assert [chunk for chunk, _ in found] == [chunk for chunk, _ in expected], query
        assert [score for _, score in found] == pytest.approx([score for _, score in expected], rel=1e-5), query


def test_an_unscoped_hybrid_search_ranks_within_its_best_candidates_library(engines: tuple[Engine, Engine]) -> None:
    alone, both = engines
    for query in PYTHON_QUESTIONS:
        expected = _ranked(alone, query, Mode.hybrid)
        found = _ranked(both, query, Mode.hybrid)
        assert expected, query
        assert [chunk for chunk, _ in found] == [chunk for chunk, _ in expected], query
        assert [score for _, score in found] == pytest.approx([score for _, score in expected], abs=1e-4), query
    for query in OFF_TOPIC:
        assert _ranked(alone, query, Mode.hybrid) == _ranked(both, query, Mode.hybrid) == [], query


def test_the_fusion_alone_still_ranks_every_library(engines: tuple[Engine, Engine]) -> None:
    _, both = engines
    libraries = {
        hit.metadata.get("library") for hit in both.search("how do I page through results", mode=Mode.fusion).hits
    }
    assert libraries == {"acme/python", "acme/typescript"}


def test_a_question_held_back_by_its_first_library_is_answered_by_another(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    root = tmp_path_factory.mktemp("library-fallthrough")
    shutil.copytree(Path(__file__).parent / "fixtures" / "fastapi-page", root / "fastapi", ignore=_readme)
    shutil.copytree(SDK_PAGES.parent / "guide", root / "guide")
    build_index(root / "fastapi", root / "index", library=requested_spec(root / "fastapi", "fastapi/security"))
    build_index(root / "guide", root / "index", library=requested_spec(root / "guide", "acme/guide"))
    engine = open_engine(root / "index")
    try:
        query = "what if the machine dies halfway through a rebuild"
        first = engine.search(query, mode=Mode.fusion, limit=1).hits[0]
        assert first.metadata["library"] == "fastapi/security"  # the whole index's best candidate
        hits = engine.search(query, mode=Mode.hybrid, limit=3).hits
        assert hits and {hit.metadata["library"] for hit in hits} == {"acme/guide"}
        assert hits[0].filepath.endswith("reindexing.md")
        assert engine.search("how do I bake sourdough bread at home", mode=Mode.hybrid).hits == ()
    finally:
        engine.close()


def _readme(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "README.md"]
