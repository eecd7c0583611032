"""Taxonomy filters as boolean masks over chunks, applied inside the search.

A ``language`` filter without a ``scope`` filter also keeps language-neutral
chunks: those with no language, and those whose scope is global (``global-*``),
so an agent asking about Go still sees the shared guides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

AUTO_INCLUDE_KEY = "language"
SCOPE_KEY = "scope"
GLOBAL_SCOPE_PREFIX = "global"
UNSET = -1


@dataclass(frozen=True)
class TaxonomyColumns:
    """Each taxonomy key as an array of value codes per chunk (UNSET where absent)."""

    values: Mapping[str, tuple[str, ...]]  # key -> sorted distinct values
    codes: Mapping[str, np.ndarray]  # key -> (chunks,) int32 codes into values[key]

    @classmethod
    def from_metadata(cls, rows: Sequence[Mapping[str, str]], keys: Sequence[str]) -> "TaxonomyColumns":
        """Build the columns from each chunk's metadata dict."""
        values: dict[str, tuple[str, ...]] = {}
        codes: dict[str, np.ndarray] = {}
        for key in keys:
            distinct = tuple(sorted({row[key] for row in rows if key in row}))
            lookup = {value: code for code, value in enumerate(distinct)}
            values[key] = distinct
            codes[key] = np.fromiter((lookup.get(row.get(key), UNSET) for row in rows), dtype=np.int32, count=len(rows))
        return cls(values, codes)

    def equals(self, key: str, value: str) -> np.ndarray:
        """Mask of chunks whose ``key`` is exactly ``value`` (all False for an unknown key or value)."""
        if key not in self.codes:
            return np.zeros(self._size(), dtype=bool)
        try:
            code = self.values[key].index(value)
        except ValueError:
            return np.zeros(self._size(), dtype=bool)
        return self.codes[key] == code

    def language_neutral(self) -> np.ndarray:
        """Chunks with no language, or a global scope."""
        neutral = self.codes[AUTO_INCLUDE_KEY] == UNSET
        if SCOPE_KEY in self.codes:
            global_codes = [code for code, value in enumerate(self.values[SCOPE_KEY]) if value.startswith(GLOBAL_SCOPE_PREFIX)]
            neutral |= np.isin(self.codes[SCOPE_KEY], global_codes)
        return neutral

    def _size(self) -> int:
        return len(next(iter(self.codes.values()))) if self.codes else 0


def filter_mask(columns: TaxonomyColumns, filters: Mapping[str, str], size: int) -> np.ndarray | None:
    """The chunks that pass every filter, or None when nothing is filtered."""
    if not filters:
        return None
    mask = np.ones(size, dtype=bool)
    for key, value in sorted(filters.items()):
        selected = columns.equals(key, value) if size else np.zeros(0, dtype=bool)
        if key == AUTO_INCLUDE_KEY and SCOPE_KEY not in filters and key in columns.codes:
            selected = selected | columns.language_neutral()
        mask &= selected
    return mask
