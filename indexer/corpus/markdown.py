"""Markdown -> top-level blocks with source offsets, heading texts and plain text for search.

mistune 3 gives an AST but no source positions; the raw markdown of a chunk must be
cut from the file exactly as written, so a thin parser subclass stamps each top-level
token with the offset it starts at.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import mistune
from mistune.block_parser import BlockParser
from mistune.core import BlockState

from docs_mcp.indexer.corpus import myst

_START = "_start"

# `## Use CORS { #use-cors }` (MkDocs attr_list, Hugo, kramdown `{: #id}`): not part of the title.
_ATTR_LIST = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")
# `## Usage {/*usage*/}` (react.dev, MDX): the anchor in a JSX comment, seen after its `*...*` read as emphasis.
_HEADING_ID_COMMENT = re.compile(r"\s*\{/\*?[^{}]*?\*?/\}\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<![A-Za-z][^<>]*>")
# Inline code is kept verbatim (`Map<K, V>`, `{{ var }}`): its markup characters hide from the cleaners.
_PROTECT = str.maketrans("<>{}", "\ue000\ue001\ue002\ue003")
_RESTORE = str.maketrans("\ue000\ue001\ue002\ue003", "<>{}")
_LIST_MARKER = re.compile(r"([ \t]*)(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
# Hugo shortcodes `{{< x >}}` / `{{% x %}}`, and Go-template actions `{{ $var }}`, `{{ if .X }}`, `{{ end }}`.
_SHORTCODE = re.compile(
    r"\{\{[<%].*?[%>]\}\}|\{\{-?\s*(?:[$.]|(?:if|else|end|range|with|partial|template|define|block)\b)[^{}]*\}\}",
    re.DOTALL,
)

# Line-level markup of MkDocs, Docusaurus and MDX; a captured title is kept, the marker goes.
_LINE_MARKUP = (
    # !!! note "Title" / ??? tip / ???+ warning inline end "Title"
    re.compile(r'^\s*(?:!!!|\?\?\?\+?)\s*[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"(?P<title>[^"]*)")?\s*$'),
    # /// note | Title ... ///   (pymdownx.blocks; nested blocks use more slashes)
    re.compile(r"^\s*/{3,}[ \t]*(?:[\w-]+)?(?:[ \t]*\|[ \t]*(?P<title>.*?))?\s*$"),
    # :::note Title / :::tip[Title] ... :::   (Docusaurus)
    re.compile(r"^\s*:::+[ \t]*(?:[\w-]+)?(?:\[(?P<title>[^\]]*)\]|[ \t]+(?P<title2>.*?))?\s*$"),
    # --8<-- "file.md"   (pymdownx.snippets) and FastAPI's {* ../docs_src/x.py hl[2] *}
    re.compile(r"^\s*(?:-{1,2}8<-{1,2}.*|\{\*.*\*\})\s*$"),
    # MDX module lines
    re.compile(r"""^\s*import\s+(?:[\w*{}\s,]+\s+from\s+)?['"][^'"]+['"];?\s*$"""),
    re.compile(r"^\s*export\s+(?:default\b|const\b|let\b|var\b|function\b|class\b|\{|\*).*$"),
    # a lone attribute list line, e.g. `{ .annotate }`
    re.compile(r"^\s*\{:?\s*[#.][^{}]*\}\s*$"),
)


# MDX: a paragraph that starts an ES module statement (it runs to the next blank line), and Docusaurus'
# fence whose content is MDX to render, not code to show.
_ESM = re.compile(r"\s*(?:import|export)\s")
# `export const title = "..."`: Nextra's and other MDX sites' page title and description, in the page's own ESM.
_MDX_EXPORT = re.compile(
    r"""^[ \t]*export\s+const\s+(title|description)\s*=\s*(?:"([^"\n]+)"|'([^'\n]+)'|`([^`\n$]+)`)[ \t]*;?[ \t]*$""",
    re.MULTILINE,
)
MDX_CODE_BLOCK = "mdx-code-block"
# MyST directive bodies read inside one another at most this deep (mistune nests blocks 6 deep); deeper stay as written.
MAX_NESTED_DIRECTIVES = 6


@dataclass(frozen=True)
class Block:
    """One top-level markdown block: its source span, and its level and title when it is a heading."""

    kind: str
    start: int
    end: int
    level: int = 0
    title: str = ""
    token: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


class _PositionState(BlockState):
    """A block state that stamps new paragraphs with the offset they start at."""

    def add_paragraph(self, text: str) -> None:
        before = len(self.tokens)
        super().add_paragraph(text)
        if len(self.tokens) > before:
            self.tokens[-1].setdefault(_START, self.cursor)


class _PositionParser(BlockParser):
    """A block parser that records where each token starts in the source."""

    state_cls = _PositionState

    def parse_method(self, m: re.Match[str], state: BlockState) -> int | None:
        return self._stamped(state, lambda: super(_PositionParser, self).parse_method(m, state))

    def _parse_indent_code_fast(self, state: BlockState) -> int | None:
        return self._stamped(state, lambda: super(_PositionParser, self)._parse_indent_code_fast(state))

    @staticmethod
    def _stamped(state: BlockState, parse: Any) -> int | None:
        # Rules such as block quotes move the cursor before appending, so the start is
        # taken on entry; a token already stamped by a nested call keeps its own start.
        start, before = state.cursor, len(state.tokens)
        end = parse()
        for token in state.tokens[before:]:
            token.setdefault(_START, start)
        return end


_MARKDOWN = mistune.Markdown(
    renderer=None,
    block=_PositionParser(),
    plugins=[mistune.plugins.import_plugin("table"), mistune.plugins.import_plugin("strikethrough")],
)


def parse_blocks(source: str) -> tuple[Block, ...]:
    """Parse markdown (``\\n`` line ends) into its top-level blocks, blank lines left out.

    Together the blocks cover every non-blank character of ``source``: text that makes no
    token of its own (a link reference definition) stays with the token before it.
    """
    parsed, _ = _MARKDOWN.parse(source)
    # Without a renderer mistune returns its tokens; its annotation also allows the rendered text.
    tokens = cast(list[dict[str, Any]], parsed)
    if not tokens and source.strip():  # only link definitions: no token, but text to keep
        tokens = [{"type": "blank_line"}]
    starts = [min(int(token.get(_START, 0)), len(source)) for token in tokens]
    if starts:
        starts[0] = 0
    for i in range(1, len(starts)):  # defensive: spans must never run backwards
        starts[i] = max(starts[i], starts[i - 1])
    blocks = []
    for i, token in enumerate(tokens):
        end = starts[i + 1] if i + 1 < len(tokens) else len(source)
        raw = source[starts[i] : end]
        if not raw.strip():
            continue
        # Start at the first non-blank line (keeping its indent), end at the last non-blank character.
        start = starts[i] + len(raw) - len(raw.lstrip())
        start = source.rfind("\n", starts[i], start) + 1 or starts[i]
        end = starts[i] + len(raw.rstrip())
        level = int(token["attrs"]["level"]) if token["type"] == "heading" else 0
        title = heading_title(token) if level else ""
        kind = "definition" if token["type"] == "blank_line" else token["type"]  # a link reference definition
        blocks.append(Block(kind, start, end, level, title, token))
    return tuple(blocks)


def list_items(source: str, block: Block) -> tuple[Block, ...]:
    """A list block's items as blocks of their own, or ``()`` when the items cannot be told apart safely.

    Item starts are lines with a marker at the list's own indent outside code fences; they
    are used only when their count equals the number of items mistune found.
    """
    items = block.token.get("children", ()) if block.kind == "list" else ()
    first = _LIST_MARKER.match(source, block.start)
    if len(items) < 2 or not first:
        return ()
    indent = first.group(1)
    starts, fence, pos = [], "", block.start
    for line in source[block.start : block.end].split("\n"):
        marker, opens = _LIST_MARKER.match(line), _FENCE.match(line)
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
        elif opens:
            fence = opens.group(1)
        elif marker and marker.group(1) == indent:
            starts.append(pos)
        pos += len(line) + 1
    if len(starts) != len(items):
        return ()
    ends = [source.rfind("\n", 0, s) for s in starts[1:]] + [block.end]
    return tuple(
        Block("list", start, start + len(source[start:end].rstrip()), token={**block.token, "children": [item]})
        for start, end, item in zip(starts, ends, items)
    )


def heading_title(token: Mapping[str, Any]) -> str:
    """The visible text of a heading: inline markup, HTML and a trailing attribute list or id comment removed."""
    # A heading keeps its MyST roles as written: its text makes the chunk ID, which must not move.
    text = _strip_markup(_inline_text(token.get("children", ()), keep_autolinks=True, keep_roles=True))
    text = _HEADING_ID_COMMENT.sub("", _ATTR_LIST.sub("", " ".join(text.split())))
    return text.strip().translate(_RESTORE)


def clean_heading(text: str) -> str:
    """The heading text the chunker records for a heading written as ``text`` (after the ``#`` marks)."""
    blocks = parse_blocks("# " + " ".join(text.split()))
    return blocks[0].title if blocks and blocks[0].level else text.strip()


def plain_text(blocks: tuple[Block, ...] | list[Block], *, mdx: bool = False, nesting: int = 0) -> str:
    """The text search sees for these blocks: code kept, markup, URLs, comments and shortcodes removed.

    With ``mdx`` (an ``.mdx`` page) MDX's own syntax goes too: ESM blocks (``import``/``export``
    up to the next blank line), JSX expressions in braces, and Docusaurus ``mdx-code-block``
    fences are read as the MDX they hold, not as code. ``nesting``: how many MyST directive bodies these blocks
    are inside; past ``MAX_NESTED_DIRECTIVES`` a body is kept as written (a page nesting fences hundreds deep
    would otherwise recurse without bound).
    """
    parts, fences = [], 0
    for block in blocks:
        token = block.token
        inner = nesting < MAX_NESTED_DIRECTIVES
        if inner and fences and token["type"] == "block_code" and token.get("style") == "indent":
            # In a MyST colon fence a body indented by four spaces (a glossary's definitions) is markdown, not code.
            body = textwrap.dedent(str(token.get("raw", "")))
            parts.append(plain_text(parse_blocks(body), mdx=mdx, nesting=nesting + 1))
        else:
            parts.append(_block_text(token, mdx, nesting))
        if token["type"] == "paragraph" and (fences or _opens_a_colon_fence(token)):
            lines = _inline_text(token.get("children", ()), keep_autolinks=True, keep_roles=True)
            fences = myst.colon_fences_open(fences, lines)
    return "\n\n".join(part for part in parts if part)


def _opens_a_colon_fence(paragraph: Mapping[str, Any]) -> bool:
    """Whether a paragraph may open a MyST colon fence (its text has ``:::{``): only such a paragraph, or one inside
    a fence, is read a second time for its fence lines."""
    return any(":::{" in str(child.get("raw", "")) for child in paragraph.get("children", ()))


def mdx_title(source: str, blocks: tuple[Block, ...]) -> str:
    """The title an MDX page exports (``export const title = "..."`` in a top-level ESM block), or ``""``."""
    for block in blocks:
        text = source[block.start : block.end] if block.kind == "paragraph" else ""
        for name, *values in _MDX_EXPORT.findall(text) if _ESM.match(text) else ():
            if name == "title":
                return "".join(values).strip()
    return ""


def _block_text(token: Mapping[str, Any], mdx: bool = False, nesting: int = 0) -> str:
    kind = token["type"]
    if kind == "block_code":
        raw, info = str(token.get("raw", "")), str(token.get("attrs", {}).get("info", ""))
        found = myst.directive(info, raw) if nesting < MAX_NESTED_DIRECTIVES else None
        if found is not None:
            return myst.directive_text(found, lambda body: plain_text(parse_blocks(body), mdx=mdx, nesting=nesting + 1))
        if mdx and info.split(" ", 1)[0] == MDX_CODE_BLOCK:
            return "\n".join(
                filter(None, (_clean_prose(part, mdx) for part in re.split(r"\n\s*\n", raw) if not _ESM.match(part)))
            )
        return raw.strip("\n")
    if kind == "heading":
        return heading_title(token)
    if kind == "block_html":
        return _clean_prose(str(token.get("raw", "")), mdx)
    if kind in ("paragraph", "block_text", "table_cell"):
        text = _inline_text(token.get("children", ()), keep_autolinks=False, keep_roles=False)
        if mdx and _ESM.match(text):  # code, but for the title and description it states
            return "\n".join("".join(values) for _, *values in _MDX_EXPORT.findall(text))
        return _clean_prose(text, mdx)
    if kind in ("table_head", "table_row"):
        return " | ".join(filter(None, (_block_text(cell, mdx, nesting) for cell in token.get("children", ()))))
    children = token.get("children")
    if isinstance(children, list):
        return "\n".join(filter(None, (_block_text(child, mdx, nesting) for child in children)))
    return ""


def _inline_text(children: Any, *, keep_autolinks: bool, keep_roles: bool) -> str:
    out: list[str] = []
    children = list(children)
    for i, child in enumerate(children):
        kind = child["type"]
        if kind == "codespan":
            out.append(str(child.get("raw", "")).translate(_PROTECT))
        elif kind == "text" and not keep_roles and i + 1 < len(children) and children[i + 1]["type"] == "codespan":
            # A MyST role before the code span it marks ({func}`echo`): the reader sees the code, not the role.
            raw = str(child.get("raw", ""))
            role = myst.role_text(raw, str(children[i + 1].get("raw", "")))
            if role is not None:
                children[i + 1] = {**children[i + 1], "raw": role[1]}
            out.append(role[0] if role is not None else raw)
        elif kind in ("text", "inline_html"):
            out.append(str(child.get("raw", "")))
        elif kind in ("softbreak", "linebreak"):
            out.append("\n")
        elif kind == "link" and not keep_autolinks and _is_autolink(child):
            continue
        elif "children" in child:
            out.append(_inline_text(child["children"], keep_autolinks=keep_autolinks, keep_roles=keep_roles))
    return "".join(out)


def _is_autolink(link: Mapping[str, Any]) -> bool:
    # `<https://x.y>` renders its URL as its text: a URL that search should not see.
    url = str(link.get("attrs", {}).get("url", ""))
    text = "".join(str(c.get("raw", "")) for c in link.get("children", ()))
    return bool(url) and text.strip() in (url, url.removeprefix("mailto:"))


def _strip_markup(text: str) -> str:
    # Comments first: they may hold tags or shortcodes; shortcodes before tags: `{{<tab>}}`.
    return _HTML_TAG.sub("", _SHORTCODE.sub("", _HTML_COMMENT.sub("", text)))


def _without_expressions(text: str) -> str:
    """``text`` less its JSX expressions: every balanced ``{...}`` (MDX reads braces in prose as code)."""
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def _clean_prose(text: str, mdx: bool = False) -> str:
    if mdx:
        text = _without_expressions(text)
    lines, options = [], False
    for line in _strip_markup(text).split("\n"):
        # MyST: a target label names the heading after it; a colon fence shows its argument, not its options.
        if myst.TARGET_LABEL.match(line) or (options and myst.OPTION.match(line)):
            continue
        argument = myst.colon_fence_argument(line)
        options = argument is not None
        if argument is not None:
            line = argument
        for pattern in _LINE_MARKUP:
            m = pattern.match(line)
            if m:
                line = next((g for g in m.groups() if g), "")
                break
        line = " ".join(line.split())
        if line:
            lines.append(line)
    return "\n".join(lines).translate(_RESTORE)
