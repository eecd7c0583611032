"""The ranking modes, defined once: the engine, the server's settings and every CLI ``--mode`` read them here.

No heavy import: the CLI builds its options from this module on every start.
"""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """How a search ranks: ``hybrid`` is the learned ranking when the index records one (else the fusion);
    ``fusion`` is BM25 and vectors fused, unlearned; ``bm25`` and ``vector`` use one signal.

    A StrEnum: a member is its value wherever a string is expected (JSON, the CLI, a cursor's digest), and a value
    given as a string compares equal to its member."""

    hybrid = "hybrid"
    fusion = "fusion"
    bm25 = "bm25"
    vector = "vector"


MODES = tuple(mode.value for mode in Mode)  # the values, for messages that list them
