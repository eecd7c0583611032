"""A docutils document tree -> markdown: what the chunker splits and ``get_doc`` shows for a ``.rst`` page.

Sections become ATX headings by depth (so the heading path is the document's own), literal blocks
fenced code with their language, admonitions block quotes with a bold label, lists, definition and
field lists markdown lists, simple tables pipe tables. Targets, comments, substitution definitions,
``contents`` topics and system messages leave no text. Text is escaped only where markdown would
read it as markup (``*``, `````, ``<``, ``[``, a leading ``#``), so identifiers stay as written.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.nodes import Node

from docs_mcp.indexer.corpus.formats.rst_extensions import HIGHLIGHT, object_description

_ESCAPE = re.compile(r"([\\`*<\[\]])")
_HTML_ESCAPE = re.compile(r"([\\<])")  # markdownify escapes the rest it needs (emphasis) itself
_LINE_START = re.compile(r"^(\s*)(#+|[>+-]|\d+[.)])(?=\s|$)", re.MULTILINE)
_SILENT = (
    nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message, nodes.pending,
    nodes.raw, nodes.meta, nodes.decoration, nodes.docinfo,
)  # fmt: skip
_ADMONITION_LABELS = {
    "attention": "Attention", "caution": "Caution", "danger": "Danger", "error": "Error", "hint": "Hint",
    "important": "Important", "note": "Note", "tip": "Tip", "warning": "Warning",
}  # fmt: skip


def to_markdown(document: nodes.document, default_language: str = "") -> str:
    """The markdown of ``document`` (``\\n`` line ends, one blank line between blocks)."""
    text = _Writer(default_language).blocks(document.children, depth=0)
    return text.strip() + "\n" if text.strip() else ""


class _Writer:
    def __init__(self, default_language: str) -> None:
        self.language = default_language

    # Blocks -------------------------------------------------------------------------------------

    def blocks(self, children: list[Node], depth: int) -> str:
        parts = (self.block(child, depth) for child in children)
        return "\n\n".join(part for part in parts if part.strip())

    def block(self, node: Node, depth: int) -> str:
        if isinstance(node, nodes.comment) and node.get(HIGHLIGHT):
            self.language = str(node[HIGHLIGHT])
            return ""
        if isinstance(node, _SILENT) or (isinstance(node, nodes.topic) and "contents" in node["classes"]):
            return ""
        if isinstance(node, nodes.section):
            return self.section(node, depth + 1)
        if isinstance(node, object_description):  # an API object: a heading one level below its section
            heading = f"{'#' * min(depth + 1, 6)} {code_span(node['name'])}"  # as code: `__init__` is no emphasis
            return "\n\n".join(part for part in (heading, self.blocks(node.children, depth + 1)) if part)
        if isinstance(node, nodes.paragraph):
            return self.inline(node)
        if isinstance(node, nodes.literal_block):
            return self.code(node)
        if isinstance(node, nodes.doctest_block):
            return fenced(node.astext(), "pycon")
        if isinstance(node, nodes.math_block):
            return fenced(node.astext(), "math")
        if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            return self.listing(node, depth)
        if isinstance(node, (nodes.definition_list, nodes.field_list, nodes.option_list)):
            return self.term_list(node, depth)
        if isinstance(node, nodes.Admonition):
            return self.admonition(node, depth)
        if isinstance(node, nodes.block_quote):
            return quoted(self.blocks(node.children, depth))
        if isinstance(node, nodes.table):
            return self.table(node, depth)
        if isinstance(node, nodes.line_block):
            return "  \n".join(self.inline(line) for line in node.findall(nodes.line) if line.astext().strip())
        if isinstance(node, nodes.transition):
            return "***"
        if isinstance(node, (nodes.rubric, nodes.title, nodes.caption)):
            return f"**{self.inline(node)}**" if node.astext().strip() else ""
        if isinstance(node, (nodes.image, nodes.figure)):
            return self.figure(node, depth)
        if isinstance(node, (nodes.footnote, nodes.citation)):
            label = next(iter(node.findall(nodes.label)), None)
            body = self.blocks([child for child in node.children if not isinstance(child, nodes.label)], depth)
            return f"[{label.astext()}] {body}" if label else body
        if isinstance(node, (nodes.topic, nodes.sidebar)):
            return self.blocks(node.children, depth)
        if isinstance(node, nodes.Element):  # compound, container, glossary, only, tabs ... and unknown ones
            return self.blocks(node.children, depth) if _has_blocks(node) else self.inline(node)
        return _escape(node.astext())

    def section(self, node: nodes.section, depth: int) -> str:
        title = next((child for child in node.children if isinstance(child, nodes.title)), None)
        heading = f"{'#' * min(depth, 6)} {self.inline(title).replace(chr(10), ' ')}" if title else ""
        body = self.blocks([child for child in node.children if child is not title], depth)
        return "\n\n".join(part for part in (heading, body) if part)

    def code(self, node: nodes.literal_block) -> str:
        classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
        language = node.get("language") or (classes[0] if classes else "") or self.language
        return fenced(node.astext(), language)

    def listing(self, node: nodes.Element, depth: int) -> str:
        ordered = isinstance(node, nodes.enumerated_list)
        start = int(node.get("start", 1)) if ordered else 1
        items = []
        for number, item in enumerate(node.children, start):
            marker = f"{number}. " if ordered else "- "
            items.append(hanging(marker, self.blocks(item.children, depth) or " "))
        return "\n".join(items)

    def term_list(self, node: nodes.Element, depth: int) -> str:
        items = []
        for item in node.children:
            if isinstance(item, nodes.option_list_item):
                group = item.next_node(nodes.option_group)
                term = f"`{group.astext()}`" if group else ""
                body_node = item.next_node(nodes.description)
            else:
                term_node = item.next_node(nodes.term) or item.next_node(nodes.field_name)
                term = f"**{self.inline(term_node)}**" if term_node else ""
                body_node = item.next_node(nodes.definition) or item.next_node(nodes.field_body)
            body = self.blocks(body_node.children, depth) if body_node else ""
            items.append(hanging("- ", f"{term}: {body}" if body else term))
        return "\n".join(items)

    def admonition(self, node: nodes.Element, depth: int) -> str:
        title = next((child for child in node.children if isinstance(child, nodes.title)), None)
        name = node.tagname if node.tagname != "admonition" else ""
        label = self.inline(title) if title else _ADMONITION_LABELS.get(name, name.capitalize())
        body = self.blocks([child for child in node.children if child is not title], depth)
        return quoted("\n\n".join(part for part in (f"**{label}**" if label else "", body) if part))

    def table(self, node: nodes.Element, depth: int) -> str:
        rows = [row for row in node.findall(nodes.row)]
        if not rows:
            return ""
        cells = [
            [" ".join(self.blocks(entry.children, depth).split()).replace("|", "\\|") for entry in row.children]
            for row in rows
        ]
        width = max(len(row) for row in cells)
        cells = [row + [""] * (width - len(row)) for row in cells]
        head_rows = len(list(node.findall(nodes.thead))) and len(
            list(next(node.findall(nodes.thead)).findall(nodes.row))
        )
        header, body = (cells[0], cells[1:]) if head_rows else ([""] * width, cells)
        lines = [_row(header), _row(["---"] * width), *(_row(row) for row in body)]
        title = next((child for child in node.children if isinstance(child, nodes.title)), None)
        return "\n\n".join(part for part in (f"**{self.inline(title)}**" if title else "", "\n".join(lines)) if part)

    def figure(self, node: nodes.Element, depth: int) -> str:
        image = node if isinstance(node, nodes.image) else node.next_node(nodes.image)
        alt = image.get("alt", "") if image is not None else ""
        rest = [child for child in node.children if not isinstance(child, nodes.image)]
        return "\n\n".join(part for part in (_escape(alt), self.blocks(rest, depth)) if part.strip())

    # Inline -------------------------------------------------------------------------------------

    def inline(self, node: Node | None) -> str:
        if node is None:
            return ""
        return "".join(self._inline(child) for child in node.children).strip()

    def _inline(self, node: Node) -> str:
        if isinstance(node, nodes.Text):
            return _escape(str(node))
        if isinstance(node, (nodes.literal, nodes.title_reference)):
            return code_span(node.astext())
        if isinstance(node, nodes.emphasis):
            return _wrapped("*", self.inline(node))
        if isinstance(node, nodes.strong):
            return _wrapped("**", self.inline(node))
        if isinstance(node, nodes.reference):
            return self.reference(node)
        if isinstance(node, (nodes.footnote_reference, nodes.citation_reference)):
            return f"[{node.astext()}]"
        if isinstance(node, nodes.math):
            return code_span(node.astext())
        if isinstance(node, (nodes.image,)):
            return _escape(node.get("alt", ""))
        if isinstance(node, (nodes.target, nodes.system_message, nodes.substitution_definition, nodes.raw)):
            return "" if not isinstance(node, nodes.target) else self.inline(node)
        if isinstance(node, nodes.Element):
            return "".join(self._inline(child) for child in node.children)
        return _escape(node.astext())

    def reference(self, node: nodes.reference) -> str:
        text = "".join(self._inline(child) for child in node.children)
        uri = node.get("refuri", "")
        if not uri.startswith(("http://", "https://")):
            return text  # a link inside the docs: its target file is not part of this index's addresses
        if node.astext() == uri:
            return f"<{uri}>"
        return f"[{text}]({uri})"


def fenced(text: str, language: str = "") -> str:
    """``text`` as a fenced code block, the fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def code_span(text: str) -> str:
    """``text`` as an inline code span (a longer backtick run when it holds backticks)."""
    text = " ".join(text.split("\n"))
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def hanging(marker: str, body: str) -> str:
    """A list item: ``marker`` before the first line, the others indented under it."""
    lines = body.split("\n")
    indent = " " * len(marker)
    return "\n".join([marker + lines[0]] + [indent + line if line else "" for line in lines[1:]])


def quoted(body: str) -> str:
    """``body`` as a block quote."""
    return "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _wrapped(mark: str, text: str) -> str:
    return f"{mark}{text}{mark}" if text else ""


def _escape(text: str) -> str:
    return escape_markup(text, _ESCAPE)


def escape_markup(text: str, characters: re.Pattern[str] = _HTML_ESCAPE, *, line_starts: bool = True) -> str:
    """``text`` as markdown reads it as text: ``characters`` escaped, and (``line_starts``) a line-starting ``#``, ``>`` or list marker."""
    text = characters.sub(r"\\\1", text)
    return _LINE_START.sub(r"\1\\\2", text) if line_starts else text


def _has_blocks(node: nodes.Element) -> bool:
    return any(isinstance(child, (nodes.Body, nodes.section)) for child in node.children)
