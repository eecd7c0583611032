"""The fallback hint of a search with zero hits: why, and which filter values would match.

For each filter the caller set, every other value of that taxonomy key is
tried with the rest of the filters unchanged; the values under which the query
finds something become ``suggested_filters``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

QUOTED_QUERY_CHARS = 80

Matcher = Callable[[Mapping[str, str]], bool]
"""Does the query find at least one hit under these filters?"""


@dataclass(frozen=True)
class Hint:
    """What search_docs says next to zero hits: a message and filter values that would match."""

    message: str
    suggested_filters: Mapping[str, tuple[str, ...]]


def build_hint(query: str, filters: Mapping[str, str], taxonomy: Mapping[str, Sequence[str]], matches: Matcher) -> Hint:
    """The hint for ``query`` under ``filters``, which found nothing.

    ``taxonomy`` maps each key to its values; ``matches`` runs the query under
    other filters.
    """
    suggested = {
        key: values
        for key in sorted(filters)
        if (values := _other_matching_values(key, filters, taxonomy.get(key, ()), matches))
    }
    return Hint(_message(query, filters, suggested, matches), suggested)


def _other_matching_values(
    key: str, filters: Mapping[str, str], values: Sequence[str], matches: Matcher
) -> tuple[str, ...]:
    return tuple(value for value in values if value != filters[key] and matches({**filters, key: value}))


def _message(query: str, filters: Mapping[str, str], suggested: Mapping[str, tuple[str, ...]], matches: Matcher) -> str:
    quoted = _quote(query)
    if not filters:
        return (
            f"0 results found for {quoted}. Nothing in the documentation matches it: "
            "try other words (a synonym, fewer words, or an exact identifier)."
        )
    found = f"0 results found for {quoted} with {_describe(filters)}."
    if suggested:
        return f"{found} The query matches under the values in suggested_filters: retry with one of them."
    if matches({}):
        return f"{found} The query matches only without these filters: run search_docs again without them."
    return f"{found} Nothing matches without the filters either: try other words."


def _describe(filters: Mapping[str, str]) -> str:
    return ", ".join(f"{key}='{filters[key]}'" for key in sorted(filters))


def _quote(query: str) -> str:
    # Long queries are cut so the hint stays one readable line.
    text = query if len(query) <= QUOTED_QUERY_CHARS else query[: QUOTED_QUERY_CHARS - 1] + "…"
    return f"'{text}'"
