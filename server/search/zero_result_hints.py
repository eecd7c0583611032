"""The fallback hint of a search with zero hits: why, and which filter values would match.

For each filter the caller set, every other value of that taxonomy key is
tried with the rest of the filters unchanged; the values under which the query
finds something become ``suggested_filters``. The message says only what is true: which
of the query's words the documentation does not contain at all, and, when it contains them
all, that no section matched the query closely enough to be an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

QUOTED_QUERY_CHARS = 80

Matcher = Callable[[Mapping[str, str]], bool]
"""Does the query find at least one hit under these filters?"""


@dataclass(frozen=True)
class Hint:
    """What search_docs says next to zero hits: a message and filter values that would match."""

    message: str
    suggested_filters: Mapping[str, tuple[str, ...]]


MAX_QUOTED_WORDS = 5
TRY_OTHER_WORDS = "try other words (a synonym, fewer words, or an exact identifier)."


def build_hint(
    query: str,
    filters: Mapping[str, str],
    taxonomy: Mapping[str, Sequence[str]],
    matches: Matcher,
    words: Sequence[str] = (),
    unknown: Sequence[str] = (),
) -> Hint:
    """The hint for ``query`` under ``filters``, which found nothing.

    ``taxonomy`` maps each key to its values; ``matches`` runs the query under
    other filters; ``words`` are the query's words (stop words aside) and ``unknown``
    those of them the documentation does not contain at all.
    """
    suggested = {
        key: values
        for key in sorted(filters)
        if (values := _other_matching_values(key, filters, taxonomy.get(key, ()), matches))
    }
    return Hint(_message(query, filters, suggested, matches, _why(words, unknown)), suggested)


def _why(words: Sequence[str], unknown: Sequence[str]) -> str:
    """Why nothing matched, from what the documentation holds of the query's words."""
    if not words or len(set(unknown)) >= len(set(words)):
        return "The documentation contains none of its words"
    if unknown:
        listed = ", ".join(f"'{word}'" for word in list(dict.fromkeys(unknown))[:MAX_QUOTED_WORDS])
        return f"The documentation does not contain {listed}, and no section matches the rest of it closely enough to be an answer"
    return "Its words occur in the documentation, but no section matches it closely enough to be an answer"


def _other_matching_values(
    key: str, filters: Mapping[str, str], values: Sequence[str], matches: Matcher
) -> tuple[str, ...]:
    return tuple(value for value in values if value != filters[key] and matches({**filters, key: value}))


def _message(
    query: str, filters: Mapping[str, str], suggested: Mapping[str, tuple[str, ...]], matches: Matcher, why: str
) -> str:
    quoted = _quote(query)
    if not filters:
        return f"0 results found for {quoted}. {why}: {TRY_OTHER_WORDS}"
    found = f"0 results found for {quoted} with {_describe(filters)}."
    if suggested:
        return f"{found} The query matches under the values in suggested_filters: retry with one of them."
    if matches({}):
        return f"{found} The query matches only without these filters: run search_docs again without them."
    return f"{found} Nothing matches without the filters either. {why}: {TRY_OTHER_WORDS}"


def _describe(filters: Mapping[str, str]) -> str:
    return ", ".join(f"{key}='{filters[key]}'" for key in sorted(filters))


def _quote(query: str) -> str:
    # Long queries are cut so the hint stays one readable line.
    text = query if len(query) <= QUOTED_QUERY_CHARS else query[: QUOTED_QUERY_CHARS - 1] + "…"
    return f"'{text}'"
