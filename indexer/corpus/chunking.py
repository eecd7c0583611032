"""One markdown page -> its chunks: split at the strategy's heading level, then bound by size.

The split follows the page's own outline where it departs from the strategy's: a page with no
heading at the split level is split at the highest level it uses below it (a page of ``###``
sections under ``h2``), and a heading above the split level that comes after the first section
(an ``# H1`` after a ``## H2``) starts a chunk of its own instead of joining the section before it.
A section with no words beyond its headings (a bare heading, API objects autodoc left empty) keeps
its place and ID but gets no search text, so it never ranks; a preamble that is the title alone does.

An oversized section is split at the next heading level that it contains, then between
top-level blocks (and between the items of an oversized list), so a code block, a table
or a list item is never cut. Chunk content is the source from a chunk's first block to
its last, exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from docs_mcp.indexer.corpus import chunk_ids
from docs_mcp.indexer.corpus.markdown import Block, list_items, mdx_title, parse_blocks, plain_text
from docs_mcp.indexer.records import Chunk, Strategy

_LEVELS = {"h1": 1, "h2": 2, "h3": 3}
_DEEPEST = 6
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Open:
    """A heading that encloses a section: its level, cleaned text and de-duplicated slug."""

    level: int
    text: str
    slug: str


@dataclass(frozen=True)
class Segment:
    """A run of blocks that becomes one chunk, and where it sits in the heading tree."""

    kind: str  # "file" | "preamble" | "heading"
    blocks: tuple[Block, ...]
    ancestors: tuple[Open, ...] = ()
    heading: Open | None = None
    part: int = 1


@dataclass(frozen=True)
class Page:
    """What chunking needs to know about one file besides its markdown."""

    filepath: str
    strategy: Strategy
    metadata: Mapping[str, str]
    front_title: str = ""


def chunk_page(page: Page, source: str) -> tuple[Chunk, ...]:
    """Split one page's markdown (front matter removed) into chunks; no blocks gives no chunks."""
    blocks = parse_blocks(source)
    if not blocks:
        return ()
    if page.strategy.chunk_by == "file":
        segments = [Segment("file", blocks)]
    else:
        segments = split_at_level(blocks, split_level(blocks, _LEVELS[page.strategy.chunk_by]))
    bounded = [piece for seg in segments for piece in bound_size(seg, source, page.strategy.max_chunk_size)]
    if not page.front_title and page.filepath.lower().endswith(".mdx"):
        page = replace(page, front_title=mdx_title(source, blocks))
    title = first_h1(blocks) or page.front_title or PurePosixPath(page.filepath).stem
    return _materialize(page, source, bounded, title)


def first_h1(blocks: tuple[Block, ...]) -> str:
    """The text of the page's first non-empty H1, or ``""``."""
    return next((b.title for b in blocks if b.level == 1 and b.title), "")


def outline(blocks: tuple[Block, ...]) -> dict[int, tuple[Open, tuple[Open, ...]]]:
    """For each heading block (by index): itself as an :class:`Open` and the headings enclosing it."""
    registry = chunk_ids.SlugRegistry()
    stack: list[Open] = []
    result = {}
    for i, block in enumerate(blocks):
        if not block.level:
            continue
        while stack and stack[-1].level >= block.level:
            stack.pop()
        parents = tuple(stack)
        text = block.title or chunk_ids.EMPTY_SLUG
        own = Open(block.level, text, registry.claim(tuple(p.slug for p in parents), text))
        stack.append(own)
        result[i] = (own, parents)
    return result


def split_level(blocks: tuple[Block, ...], level: int) -> int:
    """``level`` if the page has a heading there, else the highest level it uses below it (else ``level``)."""
    used = {b.level for b in blocks if b.level}
    return level if level in used else min((n for n in used if n > level), default=level)


def split_at_level(blocks: tuple[Block, ...], level: int) -> list[Segment]:
    """Sections that start at each heading of ``level``, after an optional ``_preamble``.

    After the first of them, a heading above ``level`` with text of its own starts a section
    too, so its text does not land in the section before it. A bare one (its first child
    follows at once) stays at that section's end, as the reference server has it.
    """
    heads = outline(blocks)
    first = next((i for i, (own, _) in heads.items() if own.level == level), None)
    if first is None:
        return [Segment("preamble", blocks)]
    starts = [
        i
        for i, (own, _) in heads.items()
        if own.level == level or (i > first and own.level < level and _has_text(blocks, i))
    ]
    segments = [Segment("preamble", blocks[: starts[0]])] if starts[0] > 0 else []
    for start, end in zip(starts, starts[1:] + [len(blocks)]):
        own, parents = heads[start]
        segments.append(Segment("heading", blocks[start:end], parents, own))
    return segments


def _has_text(blocks: tuple[Block, ...], heading: int) -> bool:
    return heading + 1 < len(blocks) and not blocks[heading + 1].level


def bound_size(segment: Segment, source: str, max_size: int) -> list[Segment]:
    """``segment`` itself if it fits in ``max_size`` characters, else its pieces (see module doc)."""
    if _size(segment.blocks) <= max_size:
        return [segment]
    return _refine(segment, source, max_size, segment.heading.level if segment.heading else 0)


def _refine(segment: Segment, source: str, max_size: int, depth: int) -> list[Segment]:
    level = depth + 1
    if level > _DEEPEST:
        return _split_between_blocks(segment, source, max_size)
    heads = outline(segment.blocks)
    starts = [i for i, (own, _) in heads.items() if own.level == level]
    if not starts:
        return _refine(segment, source, max_size, level)
    # The part before the first sub-heading keeps the section's identity and depth.
    pieces = [(replace(segment, blocks=segment.blocks[: starts[0]]), depth)] if starts[0] > 0 else []
    enclosing = segment.ancestors + _own_or_preamble(segment)
    for start, end in zip(starts, starts[1:] + [len(segment.blocks)]):
        pieces.append((Segment("heading", segment.blocks[start:end], enclosing, heads[start][0]), level))
    out: list[Segment] = []
    for piece, piece_depth in pieces:
        if _size(piece.blocks) <= max_size:
            out.append(piece)
        else:
            out.extend(_refine(piece, source, max_size, piece_depth))
    return out


def _own_or_preamble(segment: Segment) -> tuple[Open, ...]:
    if segment.heading:
        return (segment.heading,)
    # The reference keeps `_preamble` in the IDs of a split preamble's sub-sections.
    return (Open(0, "", chunk_ids.PREAMBLE),) if segment.kind == "preamble" else ()


def _split_between_blocks(segment: Segment, source: str, max_size: int) -> list[Segment]:
    groups: list[list[Block]] = []
    size = 0
    # A list too large for one chunk may be cut between its items, never inside one.
    blocks = [piece for b in segment.blocks for piece in (_oversized_list(b, source, max_size) or (b,))]
    for block in blocks:
        block_size = block.end - block.start
        if groups and size + block_size <= max_size:
            groups[-1].append(block)
            size += block_size
        else:
            groups.append([block])
            size = block_size
    return [replace(segment, blocks=tuple(g), part=n) for n, g in enumerate(groups, 1)]


def _oversized_list(block: Block, source: str, max_size: int) -> tuple[Block, ...]:
    return list_items(source, block) if block.end - block.start > max_size else ()


def _size(blocks: tuple[Block, ...]) -> int:
    return blocks[-1].end - blocks[0].start if blocks else 0


def _materialize(page: Page, source: str, segments: list[Segment], title: str) -> tuple[Chunk, ...]:
    ids = chunk_ids.make_unique([_chunk_id(page.filepath, seg) for seg in segments])
    chunks = []
    mdx = page.filepath.lower().endswith(".mdx")
    for index, (seg, chunk_id) in enumerate(zip(segments, ids)):
        path = _heading_path(seg, page.front_title)
        searchable = _says_more_than_its_headings(seg, text := plain_text(seg.blocks, mdx=mdx))
        chunks.append(
            Chunk(
                chunk_id=chunk_id,
                filepath=page.filepath,
                heading=seg.heading.text if seg.heading else "",
                heading_level=seg.heading.level if seg.heading else 0,
                breadcrumb=" > ".join((page.filepath,) + path),
                chunk_index=index,
                file_chunk_count=len(segments),
                content=source[seg.blocks[0].start : seg.blocks[-1].end],
                text=text if searchable else "",
                title=title,
                metadata=dict(page.metadata),
                heading_path=path,
                headings=_headings(seg),
                searchable=searchable,
            )
        )
    return tuple(chunks)


def _says_more_than_its_headings(seg: Segment, text: str) -> bool:
    """Whether a section is worth searching: False for one with no word its headings do not have (an empty API entry).

    A preamble with any text is, even when it is the title alone: the title names the page, and it is
    what finds the page for a lookup of its name or a question about its topic.
    """
    if seg.heading is None:
        return bool(text.strip())
    heading_words = set(_WORD.findall(" ".join(b.title for b in seg.blocks if b.level).lower()))
    return bool(set(_WORD.findall(text.lower())) - heading_words)


def _heading_path(seg: Segment, front_title: str) -> tuple[str, ...]:
    if seg.heading is None:
        return ()
    opened = seg.ancestors + (seg.heading,)
    path = tuple(o.text for o in opened if o.text)
    # A front-matter title stands in for a missing H1 (in breadcrumbs and search, never in IDs).
    if front_title and not any(o.level == 1 for o in opened):
        path = (front_title,) + path
    return path


def _headings(seg: Segment) -> tuple[str, ...]:
    own_line = 1 if seg.heading and seg.part == 1 else 0  # part 1 of a section opens with its heading
    inside = tuple(b.title for b in seg.blocks[own_line:] if b.level and b.title)
    return ((seg.heading.text,) if seg.heading else ()) + inside


def _chunk_id(filepath: str, seg: Segment) -> str:
    if seg.kind == "file" and seg.heading is None:
        return chunk_ids.file_id(filepath, seg.part)
    if seg.heading is None:
        return chunk_ids.preamble_id(filepath, seg.part)
    slugs = tuple(o.slug for o in seg.ancestors) + (seg.heading.slug,)
    return chunk_ids.section_id(filepath, slugs, seg.part)
