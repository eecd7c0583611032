"""Resolve golden relevant entries against an index's chunks into Judgments (sets of chunk IDs).

A section named by file and heading resolves to the chunk that holds the heading, whatever
the chunking strategy: under h2 chunking an h3 section lives inside its parent's chunk.
Headings are compared by their words only, so a trailing ``{ #id }`` attribute list,
inline code, emphasis, links and HTML tags do not matter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docs_mcp.eval.errors import GoldenResolveError
from docs_mcp.eval.golden import PREAMBLE, GoldenQuery, RelevantEntry
from docs_mcp.eval.metrics import Judgment

_ATTRIBUTE_LIST = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_INLINE_MARKS = re.compile(r"[`*_~]")  # dropped, not split on: "`APIRouter`s" is the word "APIRouters"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class IndexedChunk:
    """What resolution needs to know about one chunk of the index."""

    chunk_id: str
    filepath: str
    heading_path: tuple[str, ...]  # headings from the top of the file down to the chunk's own
    headings: tuple[str, ...]  # every heading inside the chunk


def heading_key(text: str) -> str:
    """The comparable form of a heading: its lower-cased words, markup and attribute list removed."""
    text = _TAG.sub("", _LINK.sub(r"\1", _ATTRIBUTE_LIST.sub("", text)))
    return " ".join(_WORD.findall(_INLINE_MARKS.sub("", text).casefold()))


class _Catalog:
    """The index's chunks grouped by file, with heading keys precomputed."""

    def __init__(self, chunks: Sequence[IndexedChunk]) -> None:
        self.ids = {c.chunk_id for c in chunks}
        self.by_file: dict[str, list[IndexedChunk]] = {}
        for chunk in chunks:
            self.by_file.setdefault(chunk.filepath, []).append(chunk)
        self.keys = {c.chunk_id: {heading_key(h) for h in c.headings} for c in chunks}
        self.paths = {c.chunk_id: {heading_key(h) for h in c.heading_path} for c in chunks}

    def resolve(self, entry: RelevantEntry) -> frozenset[str] | str:
        """The chunk IDs satisfying ``entry``, or a sentence saying why there are none."""
        if entry.chunk_id is not None:
            if "#" in entry.chunk_id:
                return frozenset({entry.chunk_id}) if entry.chunk_id in self.ids else "no chunk has this ID"
            return self._file(entry.chunk_id)
        assert entry.filepath is not None
        if entry.heading is None:
            return self._file(entry.filepath)
        if entry.filepath not in self.by_file:
            return "the file is not in the index"
        if entry.heading == PREAMBLE:
            found = {c.chunk_id for c in self.by_file[entry.filepath] if c.chunk_id.endswith("#" + PREAMBLE)}
            return frozenset(found) or "the file has no preamble chunk"
        return self._section(entry.filepath, heading_key(entry.heading), [heading_key(h) for h in entry.heading_path])

    def _file(self, filepath: str) -> frozenset[str] | str:
        chunks = self.by_file.get(filepath)
        return frozenset(c.chunk_id for c in chunks) if chunks else "the file is not in the index"

    def _section(self, filepath: str, key: str, path: list[str]) -> frozenset[str] | str:
        holders = [c.chunk_id for c in self.by_file[filepath] if key in self.keys[c.chunk_id]]
        if not holders:
            return "no chunk of the file holds this heading"
        # Duplicate headings in one file: keep the holders whose own path shares most of the golden path.
        overlap = {cid: len(self.paths[cid].intersection(path)) for cid in holders}
        best = max(overlap.values())
        return frozenset(cid for cid in holders if overlap[cid] == best)


def resolve_judgments(
    queries: Sequence[GoldenQuery], chunks: Sequence[IndexedChunk]
) -> tuple[tuple[Judgment, ...], ...]:
    """The judgments of each query, in order, resolved against the index's ``chunks``.

    Raises:
        GoldenResolveError: some entries match nothing; every such entry is listed.
    """
    catalog = _Catalog(chunks)
    problems: list[str] = []
    resolved: list[tuple[Judgment, ...]] = []
    for query in queries:
        judgments = []
        for entry in query.relevant:
            ids = catalog.resolve(entry)
            if isinstance(ids, str):
                problems.append(f"{query.qid} ({query.where}): {entry.describe()}: {ids}")
            else:
                judgments.append(Judgment(ids=ids, grade=entry.grade))
        resolved.append(tuple(judgments))
    if problems:
        raise GoldenResolveError(problems)
    return tuple(resolved)
