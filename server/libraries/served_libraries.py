"""The libraries an index serves, read from its metadata.json: lookup, fuzzy resolution, path ownership.

An index built before libraries existed has no ``libraries`` entry; it is served as one
implicit library whose table of contents lists its files' titles (without descriptions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.libraries.library import Library, TocEntry
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.indexer.libraries.versions import default_versions, parse_ref, version_key
from docs_mcp.server.errors import quoted
from docs_mcp.server.libraries.errors import LibraryNotFoundError, VersionNotFoundError
from docs_mcp.server.libraries.fuzzy import best_score, compact, words
from docs_mcp.server.libraries.languages import speaks

MIN_RELEVANCE = 0.3
TOKEN_FACTOR = 0.95  # one word of a longer query naming the library
ORG_FACTOR = 0.85  # the org part alone ("tiangolo") names the library less surely
DESCRIPTION_FACTOR = 0.6  # words of the description, for natural-language queries
SUGGESTIONS = 3
SUGGEST_RELEVANCE = 0.5  # "did you mean" names only close matches,
SUGGEST_SPREAD = 0.15  # and only those nearly as close as the closest


@dataclass(frozen=True)
class Match:
    """A library that matches a resolve_library query, with its 0-1 relevance."""

    library: Library
    relevance: float


class LibraryCatalog:
    """Every library of one index generation, by ID."""

    def __init__(self, libraries: Mapping[str, Library]) -> None:
        self.libraries = dict(sorted(libraries.items()))
        # Longest mount first: a path belongs to the most specific library.
        self._by_mount = sorted(self.libraries.values(), key=lambda lib: -len(lib.mount))
        # Base ID -> its versions, newest first; and the version that answers for the base ID.
        self._versions: dict[str, list[Library]] = {}
        for library in self.libraries.values():
            if library.base_id != library.library_id:
                self._versions.setdefault(library.base_id, []).append(library)
        for versions in self._versions.values():
            versions.sort(key=lambda lib: version_key(lib.version), reverse=True)
        self.defaults = default_versions({lib.library_id: {"pinned": lib.pinned} for lib in self.libraries.values()})

    def versions_of(self, base_id: str) -> list[Library]:
        """The versions of ``base_id`` the index holds, newest first (none for an unversioned library)."""
        return list(self._versions.get(base_id, ()))

    def default_of(self, library: Library) -> Library:
        """The version that answers for ``library``'s base ID (itself when it has no versions)."""
        chosen = self.defaults.get(library.base_id)
        return self.libraries[chosen] if chosen else library

    def is_default(self, library: Library) -> bool:
        return self.default_of(library).library_id == library.library_id

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any], registered: tuple[Library, ...] = ()) -> LibraryCatalog:
        """The catalog of an index from its metadata.json content, plus the ``registered`` libraries it does not hold."""
        entries = catalog_entries(metadata)
        indexed = {library_id: Library.from_entry(entry) for library_id, entry in entries.items()}
        return cls({**{lib.library_id: lib for lib in registered if lib.library_id not in indexed}, **indexed})

    @property
    def several(self) -> bool:
        """Whether the index holds more than one library (then ``library`` is a search facet)."""
        return sum(lib.indexed for lib in self.libraries.values()) > 1

    def get(self, library_id: str) -> Library:
        """The library ``library_id`` (exact ID, or a case-insensitive match of it).

        Raises:
            LibraryNotFoundError: no library has that ID; the suggestion names the closest ones.
        """
        if library_id in self.libraries:
            return self.libraries[library_id]
        folded = {key.casefold(): lib for key, lib in self.libraries.items()}
        if library_id.casefold() in folded:
            return folded[library_id.casefold()]
        ref = parse_ref(library_id)
        if ref is not None:
            base = next((b for b in self._versions if b.casefold() == ref.base_id.casefold()), None)
            if base is not None and not ref.version:
                return self.libraries[self.defaults[base]]
            versioned = folded.get(ref.library_id.casefold()) if ref.version else None
            if versioned is not None:
                return versioned
            if base is not None:
                raise self._no_version(base, ref.version)
        matches = self.resolve(library_id)
        floor = max(SUGGEST_RELEVANCE, matches[0].relevance - SUGGEST_SPREAD) if matches else 1.0
        close = [m.library.library_id for m in matches if m.relevance >= floor][:SUGGESTIONS]
        guess = f"Did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        raise LibraryNotFoundError(
            f"No library {quoted(library_id)} in this index.",
            f"{guess}Use resolve_library to discover libraries; this index has: {', '.join(self.libraries)}.",
        )

    def _no_version(self, base: str, version: str) -> VersionNotFoundError:
        have = ", ".join(lib.version for lib in self._versions[base])
        default = self.libraries[self.defaults[base]]
        return VersionNotFoundError(
            f"Library {quoted(base)} is indexed at {have}, not at version {version}; no other version is substituted.",
            f"Ask for one of its versions ({base}/v{default.version} answers '{base}'), or index that version: {_add_command(default, version)}.",
        )

    def resolve(
        self, query: str, language: str | None = None, *, tagged_languages: Mapping[str, Sequence[str]] | None = None
    ) -> list[Match]:
        """Every library that matches ``query`` (and has ``language``), best first, ties by ID.

        A library has the languages it lists and those ``tagged_languages`` gives for it
        (its sections' language taxonomy values), each matching its family (``typescript`` an npm package's
        ``javascript``: languages.py). A library held at several versions is matched
        once, by the version that answers for it (its ``versions`` lists the others).
        """
        matches = []
        tagged = tagged_languages or {}
        for library in self.libraries.values():
            if not self.is_default(library):
                continue
            if language and not speaks(language, (*library.languages, *tagged.get(library.library_id, ()))):
                continue
            relevance = _relevance(query, library)
            if relevance >= MIN_RELEVANCE:
                matches.append(Match(library, round(min(relevance, 1.0), 3)))
        return sorted(matches, key=lambda m: (-m.relevance, m.library.library_id))

    def owner(self, filepath: str) -> Library:
        """The library a stored file path belongs to (the implicit library owns unmounted paths)."""
        return next(lib for lib in self._by_mount if lib.indexed and filepath.startswith(lib.mount))

    def entry(self, filepath: str) -> TocEntry | None:
        """The TOC entry of a stored file path, if it is a document of the index."""
        return next((e for e in self.owner(filepath).toc if e.path == filepath), None) if self.libraries else None


def _add_command(library: Library, version: str) -> str:
    """The command that indexes ``library`` at ``version``: its package spec, or a folder under the versioned ID."""
    package = library.package
    if package.get("ecosystem") == "pypi":
        return f"docs-mcp add pypi:{package.get('name')}=={version}"
    if package.get("ecosystem") == "npm":
        return f"docs-mcp add npm:{package.get('name')}@{version}"
    return f"docs-mcp index DOCS_DIR --library {library.base_id}/v{version}"


def _relevance(query: str, library: Library) -> float:
    names = library.names()
    score = max(best_score(query, names), best_score(query, [library.library_id.split("/")[0]]) * ORG_FACTOR)
    languages = {compact(lang) for lang in library.languages}
    query_words = [w for w in words(_name_part(query)) if w not in languages]
    if len(query_words) > 1 or len(words(query)) > 1:
        score = max(score, max((best_score(w, names) for w in query_words), default=0.0) * TOKEN_FACTOR)
    known = set(words(f"{library.name} {library.description} {' '.join(library.aliases)}"))
    meaningful = [w for w in query_words if len(w) >= 3]
    if meaningful:
        score = max(score, DESCRIPTION_FACTOR * sum(w in known for w in meaningful) / len(meaningful))
    return score


def _name_part(query: str) -> str:
    """The part of ``query`` whose words may each name a library: after the '/' of an ID-shaped query.

    In "docs-mcp/skd" the org is a namespace, not a topic: its word "docs" must not make every
    library named "docs" a better match than "docs-mcp/sdk", one typo away.
    """
    org, slash, name = query.strip().partition("/")
    return name if slash and org and name and not any(c.isspace() for c in query.strip()) else query
