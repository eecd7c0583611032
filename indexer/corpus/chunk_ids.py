"""The chunk-ID grammar: ``{filepath}`` or ``{filepath}#{ancestor-slugs/.../slug}``.

Compatible with the reference docs-mcp: slugs keep ``[a-z0-9 -]`` only, a heading
repeated under the same parent gets ``-2``, ``-3``..., the text before the first
split-level heading is ``_preamble``, and oversized sections continue as ``-part-N``.
"""

from __future__ import annotations

import re

PREAMBLE = "_preamble"
EMPTY_SLUG = "section"

_DROPPED = re.compile(r"[^a-z0-9 -]")
_SPACES = re.compile(r"\s+")
_DASHES = re.compile(r"-+")


def slugify(text: str) -> str:
    """Lower-case, keep ``[a-z0-9 -]``, spaces to ``-``, collapse and trim ``-``; ``section`` if empty."""
    slug = _DASHES.sub("-", _SPACES.sub("-", _DROPPED.sub("", text.lower()))).strip("-")
    return slug or EMPTY_SLUG


class SlugRegistry:
    """Hands out slugs that are unique among the headings that share a parent path."""

    def __init__(self) -> None:
        self._taken: dict[tuple[str, ...], set[str]] = {}

    def claim(self, parents: tuple[str, ...], text: str) -> str:
        """The slug of heading ``text`` under ``parents``: its own, or the first free ``-2``, ``-3``..."""
        taken = self._taken.setdefault(parents, set())
        base = slugify(text)
        slug, n = base, 1
        # Checking the set (not only counting repeats) also keeps "Usage", "Usage 2", "Usage" apart.
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        return slug


def section_id(filepath: str, slugs: tuple[str, ...], part: int = 1) -> str:
    """The ID of a heading section (or of its ``part``-th piece when it was split)."""
    suffix = f"-part-{part}" if part > 1 else ""
    return f"{filepath}#{'/'.join(slugs)}{suffix}"


def preamble_id(filepath: str, part: int = 1) -> str:
    """The ID of the text before the first split-level heading."""
    return section_id(filepath, (PREAMBLE,), part)


def file_id(filepath: str, part: int = 1) -> str:
    """The ID of a whole-file chunk: the bare path; later parts of an oversized file get ``#_part-N``."""
    return filepath if part == 1 else f"{filepath}#_part-{part}"


def make_unique(ids: list[str]) -> list[str]:
    """``ids`` with any repeat renamed ``-2``, ``-3``... (a heading can slug like a ``-part-N`` suffix)."""
    seen: set[str] = set()
    out = []
    for chunk_id in ids:
        unique, n = chunk_id, 1
        while unique in seen:
            n += 1
            unique = f"{chunk_id}-{n}"
        seen.add(unique)
        out.append(unique)
    return out
