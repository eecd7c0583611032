"""get_docs, the fast path: the best chunks of some libraries for a topic, packed into a token budget.

Tokens are counted as ``ceil(characters / 4)`` of the returned ``content`` (chunk
delimiters included; server/search/tokens.py).  Chunks go in best first.  A short chunk
goes in whole; a long one (more than a quarter of the budget), or one that no longer fits
whole, goes in as its best passage for the topic (server/search/passages.py) with a
pointer to the whole (get_doc), so the budget holds the answers of several chunks rather
than all of one.  The best chunk always goes in: only when nothing of it fits is it cut, at
a blank line outside any code block.  The room left then widens the passages, best first
(the lines that answer are often just past a 1,200-character window), up to whole chunks.
Hits much less likely to answer than the best one stay out (they are related_pages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.libraries.library import Library
from docs_mcp.indexer.libraries.spec import LIBRARY_KEY
from docs_mcp.server.contract.render import DELIMITER_START, escape_delimiter_lines
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.errors import quoted
from docs_mcp.server.libraries.errors import TopicNotFoundError
from docs_mcp.server.libraries.served_libraries import LibraryCatalog
from docs_mcp.server.ranking.confidence import confidence, term_coverage
from docs_mcp.server.search.modes import Mode
from docs_mcp.server.search.passages import PassageWords
from docs_mcp.server.search.records import Hit
from docs_mcp.server.search.tokens import CHARS_PER_TOKEN, count_tokens

LANGUAGE_KEY = "language"  # the taxonomy key get_docs(language=...) and resolve_library(language=...) read
CANDIDATES = 10  # hits considered per search
RELATED_PAGES = 5
# A chunk much less likely to answer than the best one would only spend the agent's budget.
RELATIVE_FLOOR = 0.6
LONG_SHARE = 4  # a chunk whose block costs more than max_tokens / LONG_SHARE is long: its best passage goes in
PACKED_PASSAGE_CHARS = 1_200  # a long chunk's passage while the others are placed; the room left widens it
MIN_PASSAGE_CHARS = 160  # less says nothing: the best chunk is cut to fit instead


@dataclass(frozen=True)
class Candidate:
    """A search hit with its stored markdown and 0-1 confidence."""

    hit: Hit
    library_id: str
    content: str
    confidence: float


@dataclass(frozen=True)
class Packed:
    """One chunk as placed in the answer: whole, as its best passage, or cut to fit."""

    candidate: Candidate
    block: str
    truncated: bool
    passage: bool = False


def find_candidates(
    index: ServedIndex,
    catalog: LibraryCatalog,
    libraries: Sequence[Library],
    topic: str,
    mode: Mode,
    language: str | None = None,
) -> list[Candidate]:
    """The hits for ``topic`` within ``libraries``, with content and confidence, best first.

    Each library is searched on its own (one search when the index holds one library) and the hits are merged by
    confidence, which, unlike the fused score, is comparable across searches: in hybrid mode it is the hit's
    calibrated score; without one (another embedding model, full text only, bm25 mode) a curve over the chunk's
    similarity and term coverage (confidence.py). One search over every library would not do: a hybrid search without
    a library filter ranks within the library of its best answer (engine.py), so the other libraries asked for would
    have no say. A ``language`` (a value of the index's language taxonomy) filters like search_docs's ``language``
    filter (which may keep untagged or shared sections, as metadata.json says). In bm25 ``mode`` the confidence rests
    on term coverage alone, as without vectors: the query model is never loaded for it. Searches and similarities run
    where the server searches (``ServedIndex.search``: in a search worker when there is a pool).

    Raises:
        TopicNotFoundError: nothing in those libraries matches.
        IndexFormatError: the index cannot be read.
    """
    scopes: list[Mapping[str, str]] = [{LIBRARY_KEY: lib.library_id} for lib in libraries] if catalog.several else [{}]
    if language:
        scopes = [{**scope, LANGUAGE_KEY: language} for scope in scopes]
    hits: dict[str, Hit] = {}
    for filters in scopes:
        # The library was named, and confidence() below says how sure the answer is: the ranking's gate
        # (trained to hold back questions no library answers) must not turn a weak match into TOPIC_NOT_FOUND.
        for hit in index.search(topic, filters, mode=mode, limit=CANDIDATES, abstain=False).hits:
            hits.setdefault(hit.chunk_id, hit)
    if not hits:
        names = ", ".join(lib.library_id for lib in libraries)
        raise TopicNotFoundError(
            f"Nothing about {quoted(topic)} in {names}.",
            "Try other words, search_docs for broader results, or browse the table of contents with get_library_info.",
        )
    engine = index.engine
    contents = engine.store.contents(list(hits))
    if mode == Mode.hybrid and engine.ranker is not None:
        # Hybrid hits carry calibrated probabilities already (server/ranking/calibration.py).
        confidences = [round(hit.score, 3) for hit in hits.values()]
    else:
        rows = [engine.columns.index_of[chunk_id] for chunk_id in hits]
        similarity = index.similarities_at(topic, rows) if mode != Mode.bm25 else None  # bm25 never loads the model
        coverage = term_coverage(engine.store, topic, rows)
        confidences = [
            confidence(None if similarity is None else similarity[k], coverage[row]) for k, row in enumerate(rows)
        ]
    found = [
        Candidate(
            hit=hit, library_id=catalog.owner(hit.filepath).library_id, content=contents[hit.chunk_id], confidence=value
        )
        for hit, value in zip(hits.values(), confidences)
    ]
    return found if len(scopes) == 1 else sorted(found, key=lambda c: (-c.confidence, c.hit.chunk_id))


def answering_libraries(
    candidates: Sequence[Candidate], packed: Sequence[Packed], libraries: Sequence[Library]
) -> list[dict[str, Any]]:
    """Each library asked for, best first: its best hit's confidence (0 without hits) and how many of its chunks were packed,
    so an answer over several libraries says which of them have something to say and how sure each is."""
    best: dict[str, float] = {}
    for candidate in candidates:
        best[candidate.library_id] = max(best.get(candidate.library_id, 0.0), candidate.confidence)
    shown = [
        {
            "library_id": lib.library_id,
            "confidence": best.get(lib.library_id, 0.0),
            "chunks": sum(p.candidate.library_id == lib.library_id for p in packed),
        }
        for lib in libraries
    ]
    return sorted(shown, key=lambda entry: -entry["confidence"])


def pack(
    candidates: Sequence[Candidate], max_tokens: int, words: Sequence[str] = (), weak_words: Sequence[str] = ()
) -> list[Packed]:
    """The budget filled best first: the best chunk always (cut to fit when nothing of it fits otherwise), then the
    others nearly as likely to answer, short ones whole and long ones by their best passage for ``words``
    (``weak_words`` count less); then the room left widens those passages, best first."""
    chooser = PassageWords.of(words, weak_words)
    floor = RELATIVE_FLOOR * candidates[0].confidence
    packed: list[Packed] = []
    for candidate in (c for c in candidates if c.confidence >= floor):
        placed = _placed(candidate, max_tokens, _room(packed, max_tokens), chooser)
        if placed is None and not packed:
            placed = _truncated(candidate, max_tokens)
        if placed is not None:
            packed.append(placed)
    return _widened(packed, max_tokens, chooser)


def _room(packed: Sequence[Packed], max_tokens: int) -> int:
    """The tokens left for one more block (the blank line that joins it to the others counted)."""
    return max_tokens - sum(count_tokens(p.block) for p in packed) - len(packed)


def _placed(candidate: Candidate, max_tokens: int, room: int, chooser: PassageWords) -> Packed | None:
    """The chunk whole when it is short and fits ``room``, else its best passage within ``room``, else None."""
    whole = Packed(candidate, _block(candidate, candidate.content), truncated=False)
    if count_tokens(whole.block) <= min(room, max_tokens / LONG_SHARE):
        return whole
    return _passage(candidate, min(room * CHARS_PER_TOKEN, PACKED_PASSAGE_CHARS), chooser)


def _passage(candidate: Candidate, chars: int, chooser: PassageWords) -> Packed | None:
    """The chunk's best passage with its pointer to the whole, within ``chars``; None when too little fits or the
    passage would be the whole chunk."""
    note = (
        f"\n\n[… a passage of this {count_tokens(candidate.content)}-token section; "
        f"read it whole with get_doc(chunk_id='{candidate.hit.chunk_id}')]"
    )
    # Tokens are counted on the whole block, rounded up: a token of slack.
    text_chars = chars - CHARS_PER_TOKEN - len(_block(candidate, "")) - len(note)
    if text_chars < MIN_PASSAGE_CHARS:
        return None
    passage = chooser.best(candidate.content, text_chars)
    if not passage.text or len(passage.text) >= len(candidate.content.strip()):
        return None
    return Packed(candidate, _block(candidate, passage.text) + note, truncated=False, passage=True)


def _widened(packed: list[Packed], max_tokens: int, chooser: PassageWords) -> list[Packed]:
    """The passages grown into the room left, best first: the whole chunk when it now fits, else a longer passage."""
    widened = list(packed)
    for k, placed in enumerate(widened):
        if not placed.passage:
            continue
        room = _room(widened, max_tokens) + count_tokens(placed.block)
        whole = Packed(placed.candidate, _block(placed.candidate, placed.candidate.content), truncated=False)
        wider = (
            whole if count_tokens(whole.block) <= room else _passage(placed.candidate, room * CHARS_PER_TOKEN, chooser)
        )
        if wider is not None and len(wider.block) > len(placed.block):
            widened[k] = wider
    return widened


def related_pages(candidates: Sequence[Candidate], packed: Sequence[Packed], catalog: LibraryCatalog) -> list[dict]:
    """Documents of the other hits worth reading next (not those already packed), best first."""
    skip = {p.candidate.hit.filepath for p in packed}
    pages: list[dict] = []
    for candidate in candidates:
        path = candidate.hit.filepath
        entry = catalog.entry(path)
        if path in skip or entry is None:
            continue
        skip.add(path)
        pages.append(
            {"library_id": candidate.library_id, "path": path, "title": entry.title, "description": entry.description}
        )
        if len(pages) == RELATED_PAGES:
            break
    return pages


def _block(candidate: Candidate, content: str) -> str:
    return f"{DELIMITER_START}{candidate.hit.chunk_id} (Library: {candidate.library_id}) ---\n{escape_delimiter_lines(content.strip())}"


def _truncated(candidate: Candidate, max_tokens: int) -> Packed:
    note = f"\n\n[… cut to fit max_tokens; read the rest with read_page(path='{candidate.hit.filepath}')]"
    budget = max_tokens * CHARS_PER_TOKEN - len(_block(candidate, "")) - len(note)
    kept: list[str] = []
    in_fence = False
    cut = 0
    for line in candidate.content.split("\n"):
        if sum(len(k) + 1 for k in kept) + len(line) > budget:
            break
        kept.append(line)
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if not in_fence and not line.strip():
            cut = len(kept)  # a blank line outside code: a safe place to stop
    body = "\n".join(kept[:cut]).strip()
    return Packed(candidate, _block(candidate, body) + note, truncated=True)
