"""minilm-static, the static model distilled from the default one (issue 40), run for real: its shipped table, the
script that made it, the one that refines a table toward the default model, its vectors, and an index built, served
and searched with it."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
from model_fixtures import STATIC_VECTORS, fixed_texts

from docs_mcp.indexer.index_file import connect, current_generation
from docs_mcp.indexer.models.loading import load_embedder
from docs_mcp.indexer.models.model_files import DIGESTS, TOKENIZER_DIR, sha256_of
from docs_mcp.indexer.models.static_model import (
    STATIC_PROVIDER,
    TABLE_PATH,
    TABLE_SHA256,
    StaticEncoder,
    load_table,
    static_tokenizer,
)
from docs_mcp.indexer.schema import DB_FILE, META_TABLE

REPO = Path(__file__).resolve().parents[2]
# Real pages (psf/requests' docs, Apache-2.0: see fixtures/formats/README.md) to build an index from.
PAGES = Path(__file__).parent / "fixtures" / "formats" / "rst"


@pytest.fixture(scope="module")
def static():
    return load_embedder("minilm-static")


def test_the_identity_records_the_shipped_table(static) -> None:
    identity = static.identity
    assert (identity.provider, identity.name, identity.dimensions) == (STATIC_PROVIDER, "minilm-static", 256)
    assert identity.checksum == TABLE_SHA256 == sha256_of(TABLE_PATH)
    assert [(f.name, f.sha256) for f in identity.files] == [
        ("minilm-static.npy", TABLE_SHA256),
        ("tokenizer.json", DIGESTS["tokenizer.json"]),
    ]
    assert load_embedder("MiniLM-Static") is static  # names are case-insensitive, as other models'


def _script(name: str):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(REPO / "scripts"))


def test_the_script_reproduces_the_shipped_table(tmp_path: Path) -> None:
    """The shipped table is the reference: ONNX Runtime's int8 kernels may differ in the last bits between CPUs,
    so the script's table must give each token the same vector (cosine), and here the very same bytes."""
    out = tmp_path / "table.npy"
    assert _script("distill_static_model").main(["--out", str(out)]) == 0
    made, shipped = np.load(out), np.load(TABLE_PATH)
    assert made.dtype == shipped.dtype and made.shape == shipped.shape == (30522,)

    def rows(table: np.ndarray) -> np.ndarray:
        return table["values"].astype(np.float64) * table["scale"][:, None]

    a, b = rows(made), rows(shipped)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    used = norms > 0
    assert np.array_equal(used, np.linalg.norm(b, axis=1) > 0)
    cosines = np.sum(a[used] * b[used], axis=1) / norms[used]
    assert cosines.min() > 0.999, np.argsort(cosines)[:10]
    assert sha256_of(out) == TABLE_SHA256  # bit-stable on this machine's ONNX Runtime


def test_a_blend_moves_rows_part_of_the_way_and_stores_them_as_the_table_does() -> None:
    blended = _script("refine_static_model").blended
    base, fitted = np.load(TABLE_PATH)[[1000, 2000]], np.load(TABLE_PATH)[[3000, 4000]]
    assert blended(base, fitted, 1.0) is fitted

    def rows(table: np.ndarray) -> np.ndarray:
        return table["values"].astype(np.float64) * table["scale"][:, None]

    half = blended(base, fitted, 0.5)
    assert np.allclose(rows(half), (rows(base) + rows(fitted)) / 2, atol=np.abs(rows(half)).max() / 127)
    assert np.abs(half["values"]).max(axis=1).tolist() == [127, 127]  # stored as the table stores its rows


def test_refining_moves_seen_tokens_toward_the_teacher_and_keeps_the_rest(cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(PAGES, docs)
    index = tmp_path / "ix"
    assert cli("index", str(docs), "--out", str(index))[0] == 0  # the default model: its vectors are the teacher's
    refine = _script("refine_static_model")
    base = TABLE_PATH  # any table will do: the shipped one spares distilling one here
    out = tmp_path / "refined.npy"
    assert refine.main([str(index), "--base", str(base), "--out", str(out)]) == 0
    again = tmp_path / "again.npy"
    assert refine.main([str(index), "--base", str(base), "--out", str(again)]) == 0
    assert sha256_of(out) == sha256_of(again)  # reproducible

    texts, teacher = refine.teacher_windows(index)
    assert len(texts) == len(teacher) > 5
    tokenizer = static_tokenizer(TOKENIZER_DIR / "tokenizer.json")
    before, after = load_table(base), load_table(out)
    seen = np.unique(np.concatenate([e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]))
    unseen = np.setdiff1d(np.arange(len(before)), seen)
    assert np.array_equal(np.load(out)[unseen], np.load(base)[unseen])
    assert not np.allclose(after[seen], before[seen])

    refined, distilled = (_agreement(StaticEncoder(rows, tokenizer).embed(texts), teacher) for rows in (after, before))
    assert refined > distilled + 0.05, (refined, distilled)


@pytest.mark.parametrize(
    ("options", "held"),
    [
        (("--embeddings", "none"), "no vectors (a full-text index)"),
        (("--model", "minilm-static"), "vectors of minilm-static"),
    ],
)
def test_refining_from_an_index_without_the_default_models_vectors_says_what_to_build(
    cli, tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, str], held: str
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(PAGES, docs)
    index = tmp_path / "ix"
    assert cli("index", str(docs), "--out", str(index), *options)[0] == 0
    capsys.readouterr()
    out = tmp_path / "refined.npy"
    assert _script("refine_static_model").main([str(index), "--base", str(TABLE_PATH), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"error: {index} holds {held}, not the default model's.\n"
        f"hint: Build it with the default model: docs-mcp index DOCS_DIR --out {index}\n"
    )
    assert not out.exists()


def _agreement(vectors: np.ndarray, teacher: np.ndarray) -> float:
    """How well the texts' pairwise cosines follow the teacher's (unit vectors): their correlation."""
    above = np.triu_indices(len(vectors), 1)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return float(np.corrcoef((unit @ unit.T)[above], (teacher @ teacher.T)[above])[0, 1])


def test_vectors_of_real_texts_match_the_recorded_ones(static) -> None:
    ids, texts = zip(*fixed_texts())
    found = static.embed_documents(list(texts))
    with np.load(STATIC_VECTORS, allow_pickle=False) as recorded:
        expected = recorded["documents"]
    assert found.shape == expected.shape == (len(ids), 256)
    cosines = np.sum(found * expected, axis=1)
    assert {i: float(c) for i, c in zip(ids, cosines) if c < 0.9999} == {}
    assert np.allclose(np.vstack([static.embed_query(text) for text in texts]), found, atol=1e-6)


def test_an_index_built_with_it_is_served_and_searched(cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(PAGES, docs)
    code, out, err = cli("index", str(docs), "--out", str(tmp_path / "ix"), "--model", "minilm-static")
    assert code == 0, err
    assert "model:        minilm-static (256 dimensions, weights sha256 " + TABLE_SHA256[:12] in out
    # Its own learned ranking ships beside the default model's (indexer/rankers.json).
    assert "ranking:      calibrated scores (shipped with docs-mcp), the fusion's order; off-topic floor 0.25" in out
    code, out, err = cli(
        "search", "log in with a user name and password", "--index", str(tmp_path / "ix"), "--mode", "vector", "--json"
    )
    assert code == 0, err
    hits = orjson.loads(out)["hits"]
    assert hits and hits[0]["filepath"] == "authentication.rst", [h["chunk_id"] for h in hits]
    code, out, err = cli("info", "--index", str(tmp_path / "ix"))
    assert code == 0, err
    assert "  model:       minilm-static (docs-mcp-static, 256 dimensions)" in out
    assert (
        "  the index's model: minilm-static, docs-mcp's static model: the same table is installed here "
        "(search embeds queries with it)" in out
    )


def test_an_index_of_another_table_is_refused_with_what_to_do(cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(PAGES, docs)
    index = tmp_path / "ix"
    assert cli("index", str(docs), "--out", str(index), "--model", "minilm-static")[0] == 0
    conn = connect(index / current_generation(index) / DB_FILE, read_only=False)
    try:
        (recorded,) = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = 'model'").fetchone()
        older = {**orjson.loads(recorded), "checksum": "0" * 64}  # as a table of another docs-mcp release
        conn.execute(f"UPDATE {META_TABLE} SET value = ? WHERE key = 'model'", [orjson.dumps(older).decode()])
    finally:
        conn.close()
    code, out, err = cli("search", "log in with a password", "--index", str(index), "--mode", "vector")
    assert code != 0
    assert (
        f"The index was built with minilm-static (256 dimensions, sha256 000000000000), "
        f"but the model available here is minilm-static (256 dimensions, sha256 {TABLE_SHA256[:12]})"
    ) in err
    assert "Rebuild the index with `docs-mcp index DOCS_DIR`" in err
    code, out, _ = cli("info", "--index", str(index))
    assert (
        f"  the index's model: minilm-static with another table (sha256 000000000000; installed here: "
        f"{TABLE_SHA256[:12]}): search refuses this index until it is rebuilt (docs-mcp index DOCS_DIR --model minilm-static)"
    ) in out


def test_refining_writes_only_where_it_is_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --out the script stops before reading anything: the shipped table is replaced only by choice."""
    before = TABLE_PATH.read_bytes()
    with pytest.raises(SystemExit) as stopped:
        _script("refine_static_model").main([str(tmp_path / "ix"), "--base", str(TABLE_PATH)])
    assert stopped.value.code == 2
    assert "--out" in capsys.readouterr().err
    assert TABLE_PATH.read_bytes() == before
