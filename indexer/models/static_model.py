"""minilm-static (``--model minilm-static``): a static embedding model distilled from the default one.

Every token of all-MiniLM-L6-v2's vocabulary has one stored vector (scripts/distill_static_model.py made the
table from the installed default model: Model2Vec's recipe); a text's vector is the normalised mean of its
tokens' vectors. Embedding is a table lookup: no ONNX Runtime, no 256-token window limit, thousands of windows
a second on one core, a query in microseconds; its retrieval quality is measured in corpus/guide/ranking.md.

The table is docs-mcp's package data (``static_model/``, derived from all-MiniLM-L6-v2, Apache-2.0: see the
NOTICE there) and uses the default model's tokenizer (``default_model/``); the identity records the table's
sha256, so an index built with it is served only with the very same table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp import __version__
from docs_mcp.indexer.errors import ModelLoadError
from docs_mcp.indexer.models.model_files import TOKENIZER_DIR, sha256_of, verified_tokenizer
from docs_mcp.indexer.models.runtime import package_version, translated
from docs_mcp.indexer.records import ModelFile, ModelIdentity

STATIC_PROVIDER = "docs-mcp-static"
STATIC_MODEL = "minilm-static"
TABLE_FILE = "minilm-static.npy"
TABLE_PATH = Path(__file__).resolve().parent / "static_model" / TABLE_FILE
# sha256 of the shipped table: a changed table is another model (its indexes re-embed).
TABLE_SHA256 = "2fda694e91ee228d8ceefbc57b9fe274a4723f41ad344384d407b285137e4950"
_REINSTALL = (
    "Reinstall docs-mcp to restore it: pip install --force-reinstall --no-deps docs-mcp "
    "(in a git checkout: git checkout -- indexer/models/static_model)."
)


def row_type(dimensions: int) -> np.dtype[Any]:
    """One row of the stored table: int8 values and the float32 scale that gives them back."""
    return np.dtype([("scale", "<f4"), ("values", "i1", (dimensions,))])


class StaticEncoder:
    """A table of token vectors and the tokenizer that picks its rows, seen as an Encoder."""

    def __init__(self, rows: np.ndarray, tokenizer: Any) -> None:
        self._rows = rows
        self._tokenizer = tokenizer
        self.dimensions = int(rows.shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            if encoding.ids:
                vectors[row] = self._rows[encoding.ids].mean(axis=0)
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        # Only the order of a build's batches depends on it, and a table lookup pads nothing: characters will do.
        return [len(text) for text in texts]


def load_static() -> tuple[StaticEncoder, ModelIdentity]:
    """Load minilm-static from docs-mcp's package data, checking the table's and the tokenizer's digests.

    Raises:
        ModelLoadError: a file is missing, damaged or not the recorded one.
    """
    tokenizer_file = verified_tokenizer()
    with translated(f"Cannot load the embedding model {STATIC_MODEL}"):
        try:
            checksum = sha256_of(TABLE_PATH)
        except OSError as error:
            raise ModelLoadError(
                f"The static model's table {TABLE_PATH} cannot be read: {error.strerror or error}.", _REINSTALL
            ) from error
        if checksum != TABLE_SHA256:
            raise ModelLoadError(
                f"The static model's table {TABLE_PATH} is not the recorded one (sha256 {checksum[:12]}, "
                f"expected {TABLE_SHA256[:12]}): it is damaged or was replaced.",
                _REINSTALL,
            )
        encoder = StaticEncoder(load_table(TABLE_PATH), static_tokenizer(TOKENIZER_DIR / tokenizer_file.name))
    origin = f"docs-mcp {__version__}"
    identity = ModelIdentity(
        STATIC_PROVIDER,
        STATIC_MODEL,
        encoder.dimensions,
        checksum,
        f"numpy {package_version('numpy')}, tokenizers {package_version('tokenizers')}",
        (ModelFile(TABLE_FILE, checksum, origin), tokenizer_file),
    )
    return encoder, identity


def load_table(path: Path) -> np.ndarray:
    """The token rows of a stored table (row_type), as float32."""
    stored = np.load(path, allow_pickle=False)
    return (stored["values"].astype(np.float32) * stored["scale"][:, None]).astype(np.float32)


def static_tokenizer(path: Path) -> Any:
    """The default model's WordPiece tokenizer, reading the whole text (no truncation, no padding)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
