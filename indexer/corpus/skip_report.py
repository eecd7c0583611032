"""How a build and `validate` tell what they skipped: counts by reason, and other files by suffix."""

from __future__ import annotations

from collections.abc import Mapping

from docs_mcp.indexer.corpus.file_rules import REASONS

# Suffixes named in the "not documentation" tally; the rest are summed as "other".
SHOWN_SUFFIXES = 5


def describe_skipped(skipped: Mapping[str, int], other_files: Mapping[str, int]) -> str:
    """``"skipped 1,204 files: 1,000 in dependency folders (...), 204 ignored by .gitignore; 12 files are not documentation (.py 8, .txt 4)"``.

    ``""`` when nothing was skipped.
    """
    parts = []
    total = sum(skipped.values())
    if total:
        reasons = ", ".join(
            f"{count:,} {REASONS.get(reason, reason)}" for reason, count in _largest_first(skipped) if count
        )
        parts.append(f"skipped {total:,} file{'s' if total != 1 else ''}: {reasons}")
    others = sum(other_files.values())
    if others:
        ranked = _largest_first(other_files)
        named = [f"{suffix} {count:,}" for suffix, count in ranked[:SHOWN_SUFFIXES]]
        rest = sum(count for _, count in ranked[SHOWN_SUFFIXES:])
        if rest:
            named.append(f"other {rest:,}")
        parts.append(f"{others:,} file{'s are' if others != 1 else ' is'} not documentation ({', '.join(named)})")
    return "; ".join(parts)


def _largest_first(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
