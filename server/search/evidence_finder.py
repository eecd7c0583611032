"""What the corpus holds of a query: the evidence that decides whether it may be held back, and how lookups rank.

The off-topic gate (server/ranking/gate.py) estimates from a query's signals whether the corpus answers it; an
estimate can be wrong, so it only decides when the corpus holds no evidence for the query. Evidence,
within the search's filters:

- an identifier of the query (identifiers.py) that a chunk writes as the query does, when no other
  identifier of the query, and no word it capitalises, is missing from the corpus (``RemoteSigned`` in a
  question about PowerShell asked of docs that only mention PowerShell; ``VACUUM`` beside ``PostgreSQL``);
- a section named by the query: a heading whose words (at least two) all occur in the query, or
  that holds every word of a query of one or two words;
- the word of a one-word query, when the corpus holds it (a term lookup: ``lifespan``, ``kubernetes``).

A lookup whose identifiers the corpus writes only outside the filters is not answered within them
(the filters exclude its only matches): it gets zero hits, and the hint names where they are. The
words of a query the corpus does not hold at all are what the zero-result hint reports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from docs_mcp.indexer.serving.page_records import PageRecord
from docs_mcp.server.ranking.evidence import OWN_HEADING, PATH, TEXT, WHOLE_HEADING, Evidence
from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.identifiers import (
    Name,
    is_identifier,
    is_lookup,
    names_in,
    query_identifiers,
    query_words,
)
from docs_mcp.server.search.lexical import LexicalScorer
from docs_mcp.server.search.lru_cache import LruCache
from docs_mcp.server.search.topk import top_k

# Words (stop words aside) a query may have for a heading holding all of them to name it.
SHORT_QUERY = 2
# Chunks read to confirm that one of them writes an identifier (best BM25 first): its words co-occur in them.
CONFIRM_DEPTH = 200
# The best BM25 chunks whose own heading is compared with the query.
HEADING_DEPTH = 50


class EvidenceFinder:
    """Finds a query's evidence in one index generation's postings and page records."""

    def __init__(
        self,
        lexical: LexicalScorer,
        read_records: Callable[[Sequence[int]], list[PageRecord]],
        headings_of: Callable[[Sequence[int]], list[tuple[str, ...]]],
        num_chunks: int,
    ) -> None:
        self._lexical = lexical
        self._read = read_records
        self._headings = (
            headings_of  # every heading inside each chunk: its own, those under it, a first chunk's page title
        )
        self._size = num_chunks
        # The stems of a chunk's own heading: the best BM25 chunks of most queries are read for them (a page record
        # read and its heading stemmed, 20-30 us each, 50 a search), and the same chunks come back query after query.
        self._heading_stems: LruCache[int, frozenset[str]] = LruCache("heading-stems", lru_cache.HEADING_STEMS)

    def find(
        self, query: str, lexical_scores: np.ndarray, allowed: np.ndarray | None, asked: str | None = None
    ) -> Evidence:
        """The evidence for ``query``; ``lexical_scores`` are its BM25F scores over every chunk, ``allowed`` the
        filters' mask (None: no filter); ``asked``: the agent's own query when ``query`` adds its keywords (whether
        the search is a lookup is decided on it)."""
        words = self._lexical.content_words(query)
        stems = self._lexical.stems(words)
        unknown = tuple(dict.fromkeys(w for w, s in zip(words, stems) if self._lexical.term_id(s) < 0))
        within: list[str] = []
        elsewhere: list[str] = []
        absent: list[str] = []
        for written in query_identifiers(query):
            place = self._where_written(Name.of(written), lexical_scores, allowed)
            {"within": within, "elsewhere": elsewhere, "absent": absent}.get(place, []).append(written)
        found = (
            np.flatnonzero(lexical_scores > 0) if allowed is None else np.flatnonzero((lexical_scores > 0) & allowed)
        )
        return Evidence(
            tuple(within), tuple(elsewhere), tuple(absent),
            heading=self._names_a_section(stems, found, lexical_scores),
            term=self._held_words(words, stems, allowed) if len(query_words(query)) == 1 else (),
            unknown_words=unknown, lookup=is_lookup(query if asked is None else asked),
            unknown_names=self._unknown_names(query, unknown),
        )  # fmt: skip

    def _unknown_names(self, query: str, unknown: tuple[str, ...]) -> tuple[str, ...]:
        """The words ``query`` capitalises (``Django``, ``CORS``, ``iOS``; identifiers aside: their evidence is
        where they are written) all of whose words are among the query's ``unknown`` ones (no chunk holds them)."""
        missing = set(unknown)
        names = [
            written
            for written in query_words(query)
            if written.lower() != written
            and not is_identifier(written)
            and (parts := self._lexical.content_words(written))
            and missing.issuperset(parts)
        ]
        return tuple(dict.fromkeys(names))

    def lookup_tiers(self, query: str, rows: np.ndarray) -> np.ndarray:
        """For a lookup, how strongly each chunk of ``rows`` names its identifiers (0 for other queries).

        Per identifier: a heading of the chunk names it (OWN_HEADING, plus WHOLE_HEADING when the heading is the
        name alone), a heading above the chunk or its page path does (PATH), its text does (TEXT); averaged over the
        identifiers.
        """
        tiers = np.zeros(len(rows))
        if not is_lookup(query) or not len(rows):
            return tiers
        names = [Name.of(word) for word in query_words(query)]
        listed = [int(r) for r in rows]
        for k, (record, headings) in enumerate(zip(self._read(listed), self._headings(listed))):
            tiers[k] = sum(_tier(name, record, headings) for name in names) / len(names)
        return tiers

    def _where_written(self, name: Name, lexical_scores: np.ndarray, allowed: np.ndarray | None) -> str:
        """``within`` or ``elsewhere``: where chunks write ``name``; ``absent`` when no chunk holds its words at all,
        ``unwritten`` when some hold its words but none writes it as the query does."""
        terms = self._lexical.query_terms(name.written).own
        holders = self._lexical.holding_all(terms) if terms else np.zeros(0, dtype=np.int64)
        if not len(holders):
            return "absent"
        # The best BM25 holders first: a chunk that writes the name holds its words, usually in a heading.
        inside = holders if allowed is None else holders[allowed[holders]]
        if self._writes(name, top_k(inside, lexical_scores[inside], CONFIRM_DEPTH)):
            return "within"
        outside = holders if allowed is None else holders[~allowed[holders]]
        if allowed is not None and self._writes(name, top_k(outside, lexical_scores[outside], CONFIRM_DEPTH)):
            return "elsewhere"
        return "unwritten"

    def _writes(self, name: Name, rows: np.ndarray) -> bool:
        """Whether one of ``rows`` writes ``name``, or names it by its headings' path."""
        return any(
            name.named_in(f"{r.breadcrumb} {r.flat_text}") or name.path_named_in(r.heading, _above(r))
            for r in self._read(rows.tolist())
        )

    def _names_a_section(self, stems: Sequence[str], found: np.ndarray, scores: np.ndarray) -> bool:
        """A chunk among the best of ``found`` whose own heading is named by the query: all of the heading's words
        (at least two) are query words, or it holds every word of a short query."""
        asked = set(stems)
        if not asked or not len(found):
            return False
        for heading in self._own_heading_stems(top_k(found, scores[found], HEADING_DEPTH).tolist()):
            if (len(heading) >= 2 and heading <= asked) or (len(asked) <= SHORT_QUERY and asked <= heading):
                return True
        return False

    def _own_heading_stems(self, rows: list[int]) -> list[frozenset[str]]:
        """The stems of the own heading's words of each chunk of ``rows`` (distinct rows), read only when not kept."""
        known = {row: self._heading_stems.get(row) for row in rows}
        missing = [row for row, stems in known.items() if stems is None]
        for row, record in zip(missing, self._read(missing)):
            stems = frozenset(self._lexical.stems(self._lexical.content_words(record.heading)))
            self._heading_stems.put(row, stems)
            known[row] = stems
        return [known[row] or frozenset() for row in rows]

    def _held_words(self, words: Sequence[str], stems: Sequence[str], allowed: np.ndarray | None) -> tuple[str, ...]:
        """The ``words`` that chunks within the filters hold."""
        held = []
        for word, stem in zip(words, stems):
            term = self._lexical.term_id(stem)
            if term >= 0 and (allowed is None or bool(allowed[self._lexical.holding_all((term,))].any())):
                held.append(word)
        return tuple(dict.fromkeys(held))


def _above(record: PageRecord) -> str:
    """The headings above the chunk's own (and its page path): the breadcrumb without its last part when that is the heading."""
    parts = record.breadcrumb.rsplit(" > ", 1)
    return parts[0] if len(parts) == 2 and record.heading and parts[1] == record.heading else record.breadcrumb


def _tier(name: Name, record: PageRecord, headings: Sequence[str]) -> float:
    above = _above(record)
    score = 0.0
    own = [heading for heading in (*headings, record.heading) if heading]
    if any(name.named_in(heading) for heading in own):
        whole = any(names_in(heading, exact_case=name.exact_case) == {name.key} for heading in own)
        score += OWN_HEADING + (WHOLE_HEADING if whole else 0.0)
    elif any(name.path_named_in(heading, above) for heading in own):
        score += OWN_HEADING
    if name.named_in(above):
        score += PATH
    if name.named_in(record.flat_text):
        score += TEXT
    return score
