"""Taxonomy filters as boolean masks over chunks, applied inside the search.

A filter keeps the chunks whose key has exactly the asked value. A key's configuration
(metadata.json, ``taxonomy.KEY``) may relax that: ``filter_keeps_unset`` also keeps chunks
without the key, and ``filter_keeps`` (``{"scope": "global*"}``) also keeps chunks whose other
key matches a glob, unless the request filters on that other key too. The bundled corpus
sets both on ``language``, so an agent asking about Go still sees the shared guides. In an
index of several libraries each library's own settings (``by_library``) relax the filter for
that library's chunks only: one library's shared guides are not another's.

Two more settings serve libraries held at several versions (indexer/libraries/versions.py):
``aliases`` names a value by another (``pypi/tomli`` -> ``pypi/tomli/v2.0.1``, its default
version), and ``unfiltered_values`` are the values a search without a filter on the key keeps
(every library at its default version: older versions answer only when asked for).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

import numpy as np

from docs_mcp.indexer.libraries.spec import LIBRARY_KEY

UNSET = -1


@dataclass(frozen=True)
class FilterRule:
    """How a filter on one key treats chunks without the asked value (from the key's metadata.json entry)."""

    keeps_unset: bool = False
    keeps: tuple[tuple[str, str], ...] = ()  # (other key, glob of its values)
    aliases: tuple[tuple[str, str], ...] = ()  # (value as asked, value as stored)
    unfiltered: tuple[str, ...] | None = None  # the values kept when the key is not filtered (None: all)
    # Several libraries: (library ID, its own rule), each relaxing the filter for that library's chunks only.
    by_library: tuple[tuple[str, FilterRule], ...] = ()

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> FilterRule:
        """The rule of one ``taxonomy`` entry of an index's metadata.json."""
        keeps = entry.get("filter_keeps") or {}
        unfiltered = entry.get("unfiltered_values")
        per_library = entry.get("by_library") or {}
        return cls(
            bool(entry.get("filter_keeps_unset")),
            tuple(sorted(keeps.items())),
            tuple(sorted((entry.get("aliases") or {}).items())),
            None if unfiltered is None else tuple(unfiltered),
            tuple((library_id, cls.from_entry(own)) for library_id, own in sorted(per_library.items())),
        )

    def canonical(self, value: str) -> str:
        """The stored value ``value`` names (itself unless it is an alias)."""
        return dict(self.aliases).get(value, value)

    def relaxed_by(self, filters: Mapping[str, str]) -> bool:
        """Whether this rule relaxes the filter in a request with ``filters`` (not when it filters a kept key)."""
        return self.relaxes_all(filters) or any(own.relaxed_by(filters) for _, own in self.by_library)

    def relaxes_all(self, filters: Mapping[str, str]) -> bool:
        """Whether the rule's own settings (for every chunk, not one library's) relax the filter."""
        return (self.keeps_unset or bool(self.keeps)) and not any(key in filters for key, _ in self.keeps)


@dataclass(frozen=True)
class TaxonomyColumns:
    """Each taxonomy key as an array of value codes per chunk (UNSET where absent)."""

    values: Mapping[str, tuple[str, ...]]  # key -> sorted distinct values
    codes: Mapping[str, np.ndarray]  # key -> (chunks,) int32 codes into values[key]

    @classmethod
    def from_codes(
        cls,
        stored: Sequence[str],
        values: Mapping[str, Sequence[str]],
        codes: np.ndarray,
        keys: Sequence[str],
        size: int,
    ) -> TaxonomyColumns:
        """The columns of ``keys`` for ``size`` chunks from the serving arrays' encoding (indexer ``encode_taxonomy``).

        ``codes[i]`` holds key ``stored[i]``; a key no chunk carries is unset everywhere.
        """
        row = {key: i for i, key in enumerate(stored)}
        return cls(
            {key: tuple(values.get(key, ())) for key in keys},
            {key: codes[row[key]] if key in row else np.full(size, UNSET, dtype=np.int32) for key in keys},
        )

    def equals(self, key: str, value: str) -> np.ndarray:
        """Mask of chunks whose ``key`` is exactly ``value`` (all False for an unknown key or value)."""
        if key not in self.codes:
            return np.zeros(self._size(), dtype=bool)
        try:
            code = self.values[key].index(value)
        except ValueError:
            return np.zeros(self._size(), dtype=bool)
        return self.codes[key] == code

    def matches(self, key: str, glob: str) -> np.ndarray:
        """Mask of chunks whose ``key`` matches ``glob`` (all False for an unknown key)."""
        if key not in self.codes:
            return np.zeros(self._size(), dtype=bool)
        hits = [code for code, value in enumerate(self.values[key]) if fnmatchcase(value, glob)]
        return np.isin(self.codes[key], hits)

    def kept_by(self, key: str, rule: FilterRule, filters: Mapping[str, str]) -> np.ndarray:
        """The chunks a filter on ``key`` keeps besides its exact matches, under ``rule`` in a request with ``filters``."""
        kept = np.zeros(self._size(), dtype=bool)
        if rule.relaxes_all(filters):
            if rule.keeps_unset:
                kept |= self.codes[key] == UNSET
            for other, glob in rule.keeps:
                kept |= self.matches(other, glob)
        for library_id, own in rule.by_library:
            if own.relaxed_by(filters):
                kept |= self.equals(LIBRARY_KEY, library_id) & self.kept_by(key, own, filters)
        return kept

    def _size(self) -> int:
        return len(next(iter(self.codes.values()))) if self.codes else 0


def filter_mask(
    columns: TaxonomyColumns, filters: Mapping[str, str], size: int, rules: Mapping[str, FilterRule] | None = None
) -> np.ndarray | None:
    """The chunks that pass every filter (and every unfiltered key's default values), or None when nothing is filtered."""
    rules = rules or {}
    defaults = {
        key: rule.unfiltered
        for key, rule in rules.items()
        if rule.unfiltered is not None and key not in filters and key in columns.codes
    }
    if not filters and not defaults:
        return None
    mask = np.ones(size, dtype=bool)
    for key, value in sorted(filters.items()):
        rule = rules.get(key, FilterRule())
        selected = columns.equals(key, rule.canonical(value)) if size else np.zeros(0, dtype=bool)
        if key in columns.codes and rule.relaxed_by(filters):
            selected = selected | columns.kept_by(key, rule, filters)
        mask &= selected
    for key, values in sorted(defaults.items()):
        mask &= np.isin(columns.codes[key], [columns.values[key].index(v) for v in values if v in columns.values[key]])
    return mask
