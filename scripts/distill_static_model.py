"""Distil the static embedding model minilm-static from the installed default model (all-MiniLM-L6-v2).

The recipe is Model2Vec's (MinishLab, MIT; learned from its paper and README, not copied): every token of the
model's vocabulary goes through the model alone (``[CLS] token [SEP]``), and the mean of the three output vectors
is that token's vector; the vectors are centred and projected on their first principal components (PCA), and each
is scaled down by how frequent its token is, estimated from its rank in the vocabulary (Zipf's law) through the
smooth inverse frequency weight a / (a + p). A text's vector is then the normalised mean of its tokens' rows
(indexer/models/static_model.py): a table lookup instead of a transformer.

Usage:  python scripts/distill_static_model.py [--dims 256] [--out indexer/models/static_model/minilm-static.npy]

The table is stored as one .npy file of int8 rows, each with its float32 scale (a structured array, read without
pickle); tests/indexer/test_static_model.py checks the shipped file against this script.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from docs_mcp.indexer.models.model_files import verified_files
from docs_mcp.indexer.models.static_model import TABLE_PATH, row_type

DIMENSIONS = 256
# Smooth inverse frequency weight a / (a + p(rank)); 1e-4 is Model2Vec's default, and measured best here too.
SIF = 1e-4
# Tokens never seen in text (BERT's reserved slots and its special tokens) get a row of zeros.
_UNUSED = re.compile(r"\[unused\d+\]|\[PAD\]|\[UNK\]|\[CLS\]|\[SEP\]|\[MASK\]")
_BATCH = 512


def token_vectors(threads: int | None = None) -> tuple[np.ndarray, list[str]]:
    """Each vocabulary token's mean-pooled output of the default model, read alone: (vocabulary, 384) float64."""
    from docs_mcp.indexer.models.sentence_model import SentenceModel

    files = {installed.record.name: installed.path for installed in verified_files()}
    model = SentenceModel(files, threads=threads)
    vocabulary = files["vocab.txt"].read_text(encoding="utf-8").splitlines()
    cls, sep = vocabulary.index("[CLS]"), vocabulary.index("[SEP]")
    ids = np.arange(len(vocabulary), dtype=np.int64)
    vectors = np.empty((len(vocabulary), model.dimensions), dtype=np.float64)
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH, None]
        framed = np.hstack([np.full_like(batch, cls), batch, np.full_like(batch, sep)])
        vectors[start : start + len(batch)] = model.pooled(framed)
    return vectors, vocabulary


def static_rows(
    vectors: np.ndarray, vocabulary: list[str], dimensions: int = DIMENSIONS, sif: float = SIF
) -> np.ndarray:
    """The weighted, projected token vectors (float64), zero for tokens never seen in text."""
    used = np.array([not _UNUSED.fullmatch(token) for token in vocabulary])
    kept = vectors[used]
    centred = kept - kept.mean(axis=0)
    # The principal axes, each signed so that its largest coefficient is positive: the same table at every run.
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    axes = axes[:dimensions]
    axes *= np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])[:, None]
    projected = centred @ axes.T
    # Rank 1 is the most frequent: WordPiece vocabularies list tokens roughly by frequency after the reserved ones.
    ranks = np.arange(1, len(kept) + 1, dtype=np.float64)
    frequency = (1 / (ranks + 1)) / np.sum(1 / (ranks + 1))
    rows = np.zeros((len(vocabulary), dimensions), dtype=np.float64)
    rows[used] = projected * (sif / (sif + frequency))[:, None]
    return rows


def quantised(rows: np.ndarray) -> np.ndarray:
    """``rows`` as int8 values with one float32 scale each (the largest magnitude maps to 127)."""
    table = np.zeros(len(rows), dtype=row_type(rows.shape[1]))
    largest = np.abs(rows).max(axis=1)
    scale = np.where(largest > 0, largest / 127, 1.0)
    table["scale"] = scale.astype(np.float32)
    table["values"] = np.rint(rows / scale[:, None]).astype(np.int8)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, default=DIMENSIONS, help="dimensions kept by the PCA")
    parser.add_argument("--sif", type=float, default=SIF, help="the smooth inverse frequency coefficient")
    parser.add_argument("--out", type=Path, default=TABLE_PATH, help="where to write the table (.npy)")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads (default: one per core)")
    args = parser.parse_args(argv)
    vectors, vocabulary = token_vectors(args.threads)
    np.save(args.out, quantised(static_rows(vectors, vocabulary, args.dims, args.sif)), allow_pickle=False)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, {len(vocabulary)} tokens x {args.dims} dimensions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
