"""Fuzzy name matching for library resolution: edit distance and trigram overlap, scored 0-1 (pure).

A name scores 1 when the query is the name once case, spaces and punctuation are
ignored (``Fast API`` = ``fastapi``), 0.9 when it is a prefix of it, and otherwise the
better of an edit-distance ratio (typos: ``fastpi``, ``pydnatic``, ``skd``) and a trigram Dice
coefficient (transpositions and partial words), both in [0, 1].  resolve_library must find a name
mistyped up to edit distance 3 (corpus/guide/libraries.md#resolve_library); beyond that only trigrams can still score.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_EDITS = 3
PREFIX_SCORE = 0.9
MIN_PREFIX_CHARS = 3
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def compact(text: str) -> str:
    """Lower-case letters and digits only: the form names are compared in."""
    return _NON_ALNUM.sub("", text.lower())


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words of ``text``."""
    return [w for w in _NON_ALNUM.split(text.lower()) if w]


def levenshtein(a: str, b: str, limit: int | None = None) -> int:
    """Edit distance between ``a`` and ``b``, a swap of neighbours counting as one edit (optimal string
    alignment: ``skd`` is one edit from ``sdk``); stops early at ``limit + 1`` when a limit is given."""
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        if limit is not None and min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return previous[-1]


def trigrams(text: str) -> set[str]:
    """Character trigrams of ``text`` padded with spaces, so short names still have some."""
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def name_score(query: str, name: str) -> float:
    """How well ``query`` names ``name``, from 0 (unrelated) to 1 (the same name)."""
    q, n = compact(query), compact(name)
    if not q or not n:
        return 0.0
    if q == n:
        return 1.0
    if len(q) >= MIN_PREFIX_CHARS and n.startswith(q):
        return PREFIX_SCORE * (0.8 + 0.2 * len(q) / len(n))
    distance = levenshtein(q, n, MAX_EDITS)
    edit = 1.0 - distance / max(len(q), len(n)) if distance <= MAX_EDITS else 0.0
    tq, tn = trigrams(q), trigrams(n)
    dice = 2 * len(tq & tn) / (len(tq) + len(tn))
    return round(max(edit, dice * 0.85), 4)


def best_score(query: str, names: Iterable[str]) -> float:
    """The best :func:`name_score` of ``query`` over ``names`` (0 for none)."""
    return max((name_score(query, name) for name in names), default=0.0)
