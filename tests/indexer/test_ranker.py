"""Which learned ranking an index records: its folder's own rankers.json first, then the shipped one, only for the model it fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.indexer.errors import IndexFormatError
from docs_mcp.indexer.ranker import PACKAGED, RANKERS_FILE, describe_ranking, ranker_for
from docs_mcp.indexer.records import ModelIdentity

SHIPPED = json.loads((Path(__file__).parents[2] / "indexer" / RANKERS_FILE).read_text())
EMBEDDING = SHIPPED["rankers"][0]["embedding"]
DEFAULT = ModelIdentity(EMBEDDING["provider"], EMBEDDING["model"], 384, EMBEDDING["checksum"])
OTHER = ModelIdentity("fastembed", "BAAI/bge-small-en-v1.5", 384, "0" * 64)


def own_rankers(folder: Path, identity: ModelIdentity, floor: float) -> None:
    record = {
        **SHIPPED["rankers"][0],
        "embedding": {"provider": identity.provider, "model": identity.name, "checksum": identity.checksum},
    }
    record["floor"] = floor
    (folder / RANKERS_FILE).write_text(json.dumps({"version": 3, "rankers": [record]}))


def test_the_shipped_ranking_fits_the_default_model_only(tmp_path: Path):
    assert ranker_for(DEFAULT, tmp_path)["origin"] == PACKAGED
    assert ranker_for(OTHER, tmp_path) is None  # another model: another cosine scale, no calibration
    assert ranker_for(None, tmp_path) is None  # full text only


def test_the_index_folder_s_own_ranking_comes_first_for_its_model(tmp_path: Path):
    own_rankers(tmp_path, OTHER, 0.4)
    assert ranker_for(OTHER, tmp_path)["origin"] == str(tmp_path / RANKERS_FILE)
    assert ranker_for(OTHER, tmp_path)["floor"] == 0.4
    assert ranker_for(DEFAULT, tmp_path)["origin"] == PACKAGED  # no record for it there: the shipped one


@pytest.mark.parametrize("content", ["{not json", "[]", '{"rankers": 3}'])
def test_a_broken_rankers_file_names_itself_and_the_repair(tmp_path: Path, content: str):
    (tmp_path / RANKERS_FILE).write_text(content)
    with pytest.raises(IndexFormatError) as raised:
        ranker_for(DEFAULT, tmp_path)
    assert str(tmp_path / RANKERS_FILE) in raised.value.message and "train-ranking --out" in raised.value.hint


def test_the_description_says_what_hybrid_search_does():
    assert describe_ranking(None, has_vectors=False) == "BM25 only (no embeddings)"
    assert describe_ranking(None, has_vectors=True).startswith(
        "fusion: no learned ranking was trained for this embedding model"
    )
    shipped = {"origin": PACKAGED, "score": {}, "floor": 0.25, "ordering": None}
    assert (
        describe_ranking(shipped, has_vectors=True)
        == "calibrated scores (shipped with docs-mcp), the fusion's order; off-topic floor 0.25"
    )
    own = {"origin": "ix/rankers.json", "score": {}, "floor": 0.5, "ordering": {"features": []}}
    assert (
        describe_ranking(own, has_vectors=True)
        == "calibrated scores (from ix/rankers.json), a learned order; off-topic floor 0.5"
    )


def test_a_record_of_the_older_format_is_skipped_for_the_shipped_one(tmp_path: Path):
    old = {
        "embedding": SHIPPED["rankers"][0]["embedding"],
        "features": ["fused"],
        "weights": {"fused": 1.0},
        "bias": 0.0,
        "gate": {"floor": 0.2},
    }
    (tmp_path / RANKERS_FILE).write_text(json.dumps({"version": 2, "rankers": [old]}))
    assert ranker_for(DEFAULT, tmp_path)["origin"] == PACKAGED
