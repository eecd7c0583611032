"""What the corpus holds of a query (``Evidence``), as the ranking reads it: the record the search's evidence
finder (server/search/evidence_finder.py) fills, and how much each place that names a lookup's identifier counts.

It lives with the ranking, which the search uses: the ranking's features and the off-topic gate read it,
and the search depends on the ranking, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass

# How much each place where a chunk names a lookup's identifier counts (search/evidence.py's lookup_tiers).
OWN_HEADING, PATH, TEXT, WHOLE_HEADING = 2.0, 1.0, 0.5, 0.5


@dataclass(frozen=True)
class Evidence:
    """What the corpus holds of one query, within its filters and outside them."""

    within: tuple[str, ...] = ()  # identifiers a chunk within the filters writes
    elsewhere: tuple[str, ...] = ()  # identifiers only chunks outside the filters write
    absent: tuple[str, ...] = ()  # identifiers whose words no chunk holds (``RemoteSigned``, ``useEffect``)
    heading: bool = False  # a section within the filters is named by the query
    term: tuple[str, ...] = ()  # the word of a one-word query, when chunks within the filters hold it
    unknown_words: tuple[str, ...] = ()  # words (stop words aside) that no chunk holds
    lookup: bool = False  # the query names things rather than asks (identifiers.is_lookup)
    # Words the query capitalises (a product or a standard: ``Django``, ``CORS``, ``APNs``) that no chunk holds: a
    # question about a thing the corpus never names, like an absent identifier.
    unknown_names: tuple[str, ...] = ()

    @property
    def missing_name(self) -> bool:
        """An identifier or a capitalised name of the query is written nowhere in the corpus."""
        return bool(self.absent or self.unknown_names)

    @property
    def holds(self) -> bool:
        """The corpus answers the query within the filters, whatever the gate estimates."""
        return bool((self.within and not self.missing_name) or self.heading or self.term)

    @property
    def only_elsewhere(self) -> bool:
        """A lookup whose identifiers the corpus writes, but only outside the filters."""
        return self.lookup and bool(self.elsewhere) and not self.within
