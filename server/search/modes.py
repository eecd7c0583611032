"""The ranking modes, defined once: the engine, the server's settings and every CLI ``--mode`` read them here.

No heavy import: the CLI builds its options from this module on every start.
"""

from __future__ import annotations

from enum import Enum


class Mode(str, Enum):
    """How a search ranks: ``hybrid`` is the learned ranking when the index records one (else the fusion);
    ``fusion`` is BM25 and vectors fused, unlearned; ``bm25`` and ``vector`` use one signal."""

    hybrid = "hybrid"
    fusion = "fusion"
    bm25 = "bm25"
    vector = "vector"


MODES = tuple(mode.value for mode in Mode)
