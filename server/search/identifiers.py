"""Identifiers in a query, and whether a heading or a text names them (pure).

An agent searching for ``Depends``, ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``dub.links.create`` or
``-Recurse`` asks for one thing the docs define by that name. The full-text index splits such
names into words (``dub links create``), which many sections share; what tells the defining
section apart is that its heading (or, failing that, its text) holds the name as written.

A query word is an identifier when it is shaped like code: joined by ``_``, ``.``, ``::`` or
``/`` (``next_cursor``, ``service.version``), camel case (``nextCursor``, ``APIRouter``),
letters and digits mixed (``oauth2``), a cmdlet or parameter (``Get-ChildItem``, ``-Recurse``)
or written in backticks. A query of identifiers only, or of one word, is a *lookup*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Characters that wrap a word in prose or markdown and are not part of it.
_WRAPPING = "`'\"“”‘’()[]{}<>,;!?"
_CALL_SUFFIX = re.compile(r"\(\)$")
_JOINED = re.compile(r"^(?=.{4})[A-Za-z_$][\w$]*(?:(?:\.|::|/|_)[\w$]+)+$")  # at least 4 characters: not e.g
_CAMEL = re.compile(r"^(?=.*[a-z])[A-Za-z][a-z0-9]*(?:[A-Z]+[a-z0-9]*)+$|^[A-Z]{2,}[a-z][A-Za-z0-9]*$")
_PLURAL_ACRONYM = re.compile(r"^[A-Z]+s$")  # SDKs, URLs, IDs: words, not names
_MIXED_DIGITS = re.compile(r"^(?=[A-Za-z0-9]{4,}$)(?=.*[A-Za-z])(?=.*[0-9])[A-Za-z][A-Za-z0-9]*$")
_CMDLET = re.compile(r"^[A-Z][a-z]+-[A-Z][A-Za-z0-9]+$")
_PARAMETER = re.compile(r"^-[A-Z][A-Za-z0-9]+$")
_SCREAMING = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$")
_BACKTICKED = re.compile(r"`([^`\s]+)`")
# A word of a heading or a text, as names are written: ``dub.links.create(`` gives ``dub.links.create``.
_NAME = re.compile(r"-?[A-Za-z0-9_$][\w$]*(?:(?:\.|::|/|-)[\w$]+)*")
_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_PATH_PARTS = re.compile(r"\.|::|/")
_JOINERS = r"[_\-.:/$]*"  # what may join the letters of one name: snake, kebab, dotted, :: and / paths
# A lookup is a handful of names, not a sentence written in them.
LOOKUP_WORDS = 3


def query_words(query: str) -> list[str]:
    """The query's words as written, without the punctuation that wraps them (``(Depends)`` -> ``Depends``)."""
    words = []
    for raw in query.split():
        word = _CALL_SUFFIX.sub("", raw.strip(_WRAPPING)).rstrip(".:").strip(_WRAPPING)
        if word:
            words.append(word)
    return words


def is_identifier(word: str) -> bool:
    """Whether one query word is shaped like code (see the module's docstring)."""
    if _PLURAL_ACRONYM.match(word):
        return False
    return any(pattern.match(word) for pattern in (_JOINED, _CAMEL, _MIXED_DIGITS, _CMDLET, _PARAMETER, _SCREAMING))


def query_identifiers(query: str) -> tuple[str, ...]:
    """The identifiers of ``query``, in order, each once: code-shaped words and anything in backticks."""
    found = [word for word in query_words(query) if is_identifier(word)]
    found += [_CALL_SUFFIX.sub("", word) for word in _BACKTICKED.findall(query)]
    return tuple(dict.fromkeys(found))


def is_lookup(query: str) -> bool:
    """A query that names things rather than asks: one word, or up to ``LOOKUP_WORDS`` identifiers and nothing else."""
    words = query_words(query)
    if len(words) == 1:
        return True
    return 1 < len(words) <= LOOKUP_WORDS and all(is_identifier(word) for word in words)


def name_key(name: str, *, exact_case: bool) -> str:
    """The comparable form of a name: its letters and digits (``next_cursor`` and ``nextCursor`` both ``nextcursor``
    when not ``exact_case``)."""
    key = _ALNUM.sub("", name)
    return key if exact_case else key.casefold()


@dataclass(frozen=True)
class Name:
    """One identifier of a query, ready to be looked for: as a whole and by its last part (``create`` of
    ``dub.links.create``)."""

    written: str
    exact_case: bool  # written with a capital: ``Depends`` is not the word ``depends``
    key: str
    parts: tuple[str, ...] = ()  # the keys of the parts of a dotted, ``::`` or ``/`` path, else ()

    @classmethod
    def of(cls, written: str) -> Name:
        exact = written != written.lower()
        parts = tuple(key for part in _PATH_PARTS.split(written) if (key := name_key(part, exact_case=exact)))
        return cls(written, exact, name_key(written, exact_case=exact), parts if len(parts) > 1 else ())

    def named_in(self, text: str) -> bool:
        """Whether ``text`` writes this name (case as the query writes it, separators aside); a dotted name also as
        the end of a longer path (``domains.check_status`` in ``dub.domains.check_status``)."""
        if not self.key:
            return False
        whole, letters = _name_patterns(self.key, self.exact_case, bool(self.parts))
        # ``whole`` opens with a look-behind, which makes the regex engine try it at every position of the text
        # (20 us a chunk, 11 ms a lookup search); ``letters`` opens with a letter, found by a fast scan. Every
        # place it matches is tried as a start of ``whole`` (after a ``-`` it may begin one character earlier).
        found = letters.search(text)
        while found is not None:
            start = found.start()
            if whole.match(text, start) or (start and text[start - 1] == "-" and whole.match(text, start - 1)):
                return True
            found = letters.search(text, start + 1)
        return False

    def path_named_in(self, heading: str, above: str) -> bool:
        """Whether a section names this dotted name by its path: its ``heading`` writes the last part and the
        headings ``above`` it another (``create`` under ``Links`` for ``dub.links.create``)."""
        if not self.parts or self.parts[-1] not in names_in(heading, exact_case=self.exact_case):
            return False
        parts_above = {part for path in paths_in(above, exact_case=self.exact_case) for part in path}
        return bool(set(self.parts[:-1]) & parts_above)


@lru_cache(maxsize=1024)
def _name_patterns(key: str, exact_case: bool, dotted: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A whole name-shaped word whose letters and digits are ``key``, joiners anywhere between them (a dotted name may
    also end a longer path); and the same without what comes before it, to find where one may start."""
    start = r"(?:(?<=[.:/])|(?<![\w$.:/-]))" if dotted else r"(?<![\w$.:/-])"
    body = _JOINERS.join(re.escape(char) for char in key) + f"(?![\\w$]|{_JOINERS[:-1]}+[\\w$])"
    flags = 0 if exact_case else re.IGNORECASE
    return re.compile(f"{start}-?{body}", flags), re.compile(body, flags)


def names_in(text: str, *, exact_case: bool) -> set[str]:
    """The comparable forms of every name-shaped word of ``text``."""
    return {name_key(match.group(0), exact_case=exact_case) for match in _NAME.finditer(text)}


def paths_in(text: str, *, exact_case: bool) -> set[tuple[str, ...]]:
    """The parts (comparable forms) of every name-shaped word of ``text``, split at ``.``, ``::`` and ``/``."""
    found = set()
    for match in _NAME.finditer(text):
        parts = tuple(
            key for part in _PATH_PARTS.split(match.group(0)) if (key := name_key(part, exact_case=exact_case))
        )
        if parts:
            found.add(parts)
    return found
