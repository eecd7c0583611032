"""HTML -> markdown: the page's main content only, its headings, code blocks with their language.

BeautifulSoup (html.parser, no native dependency) and markdownify. Scripts, styles, navigation,
headers, footers, sidebars and forms are dropped, and the page's ``main``/``article``/``role=main``
element is kept when it has one. The permalink anchors documentation generators put after each
heading (Sphinx and MkDocs ``headerlink``, ``¶``) are dropped so headings read as written, and a
code block's language is read from its classes (``highlight-python3``, ``language-js``), and each API
object a Sphinx page documents gets a heading of its own (its qualified name). Used for
local ``.html`` pages and for pages fetched by the remote sources alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

from docs_mcp.indexer.corpus.formats import Converted, nesting_depth, too_deep
from docs_mcp.indexer.corpus.formats.doctree_markdown import escape_markup, fenced

_DROP = (
    "script",
    "style",
    "noscript",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "svg",
    "iframe",
    "button",
    "template",
)
# Sphinx and MkDocs sidebars and related-page bars live in divs, not in <nav>.
_DROP_CLASSES = frozenset(
    ("headerlink", "sphinxsidebar", "related", "toctree-wrapper", "md-sidebar", "md-header", "md-footer", "skip-link")
)
# Sphinx domains whose <dl> entries document an API object; the first four name it by its qualified ID.
_API_DOMAINS = frozenset(("py", "c", "cpp", "js", "rst", "std", "describe"))
_QUALIFIED_DOMAINS = frozenset(("py", "c", "cpp", "js"))
_LANGUAGE_CLASS = re.compile(r"^(?:highlight-|language-|lang-|sourceCode\s)([\w+#.-]+)$")
_NOT_LANGUAGES = frozenset({"default", "notranslate", "none", "text", "highlight", "sourcecode"})
MAX_HTML_DEPTH = 200  # real documentation pages nest a few dozen elements at most; the conversion recurses per level
_BLANK_RUNS = re.compile(r"\n{3,}")
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class HtmlPage:
    """A page as markdown, with its title (its first H1, else its ``<title>``, else ``fallback_title``)."""

    title: str
    markdown: str


def read_page(rel: str, path: Path, root: Path, text: str) -> Converted:
    """The HTML page ``text`` as markdown, titled by its own title (else by its file name)."""
    page = html_to_markdown(text, PurePosixPath(rel).stem)
    return Converted(page.markdown, page.title)


def html_to_markdown(html: str, fallback_title: str) -> HtmlPage:
    """The main content of ``html`` as markdown; a page without an H1 gets its title as one.

    Raises:
        FormatError: the elements nest deeper than MAX_HTML_DEPTH (converting them would exhaust the stack).
    """
    soup = BeautifulSoup(html, "html.parser", element_classes={Tag: _Element})
    depth = nesting_depth(soup, lambda node: [child for child in node.contents if hasattr(child, "contents")])
    if depth > MAX_HTML_DEPTH:
        raise too_deep("HTML", f"{depth} levels", MAX_HTML_DEPTH)
    try:
        return _page(soup, fallback_title)
    except RecursionError:
        raise too_deep("HTML", "too many levels", MAX_HTML_DEPTH) from None


def _page(soup: BeautifulSoup, fallback_title: str) -> HtmlPage:
    title = " ".join(soup.title.get_text(" ").split()) if soup.title else ""  # one line: it may become the H1
    _prune(soup)
    _api_headings(soup)
    root = soup.find("main") or soup.find("article") or soup.find(None, {"role": "main"}) or soup.body or soup
    converter = _Converter(heading_style="ATX", bullets="-", strip=["img"], escape_underscores=False)
    markdown = converter.convert_soup(
        root
    ).strip()  # the tree already parsed: markdownify would parse it again from text
    markdown = "\n".join(line.rstrip() for line in markdown.split("\n"))
    markdown = _BLANK_RUNS.sub("\n\n", markdown) + "\n"
    heading = markdown_title(markdown)
    title = heading or title or fallback_title
    if not heading and markdown.strip():
        markdown = f"# {title}\n\n{markdown}"
    return HtmlPage(title, markdown if markdown.strip() else "")


class _Element(Tag):
    """A tag whose ``find_parent(name)`` walks up comparing names.

    markdownify asks it of every tag it converts (``find_parent("pre")``), and bs4 answers through its
    general matching machinery: a fifth of the Python docs' conversion time. Any other query is bs4's.
    """

    def find_parent(self, name: Any = None, attrs: Any = None, **kwargs: Any) -> Any:
        if not isinstance(name, str) or attrs or kwargs:
            return super().find_parent(name, attrs, **kwargs)
        parent = self.parent
        while parent is not None and parent.name != name:
            parent = parent.parent
        return parent if isinstance(parent, Tag) and not isinstance(parent, BeautifulSoup) else None


def _prune(soup: BeautifulSoup) -> None:
    """Drop page furniture and unwrap links inside the site, in one walk of the tree.

    The walk does not enter what it drops. (Asking each tag of a flat list whether an ancestor's drop
    took it too, ``tag.decomposed``, searched the tag's subtree for a child named ``_decomposed`` on
    bs4's attribute fallback.)
    """
    internal_links = []
    stack: list[Tag] = [soup]
    while stack:
        for child in stack.pop().find_all(True, recursive=False):
            if child.name in _DROP or _DROP_CLASSES.intersection(child.get("class") or ()):
                child.decompose()
                continue
            if child.name == "a" and not str(child.get("href") or "").startswith(("http://", "https://")):
                internal_links.append(child)  # a link inside the site: its target is no address the reader can use
            stack.append(child)
    for link in internal_links:
        link.unwrap()  # after the walk: unwrapping moves a link's children up, out of the list being walked


def _api_headings(soup: BeautifulSoup) -> None:
    """Give each API object Sphinx documents (``<dl class="py function">``...) a heading one level below its section.

    A reference page documents dozens of functions under one heading; as headings of their own, each is
    a section of the page (its own chunk when the section is split) named by its qualified name
    (``functools.lru_cache``), with its signature as the first line below.
    """
    for entry in soup.find_all("dl", class_=_API_DOMAINS):
        signature = entry.find("dt", class_="sig", recursive=False)
        if not isinstance(signature, Tag):
            continue
        depth = sum(1 for parent in entry.parents if isinstance(parent, Tag) and _opens_level(parent))
        qualified = str(signature.get("id") or "") if _QUALIFIED_DOMAINS.intersection(entry.get("class") or ()) else ""
        heading, code = (
            soup.new_tag(f"h{min(depth + 1, 6)}"),
            soup.new_tag("code"),
        )  # as code: `__init__` is no emphasis
        code.string = qualified or " ".join(signature.get_text("").split())
        heading.append(code)
        signature.insert_before(heading)


def _opens_level(tag: Tag) -> bool:
    """A Sphinx section (``<section>``, older ``div.section``) or an enclosing API object (a class holding methods)."""
    classes = tag.get("class") or ()
    return (
        tag.name == "section"
        or (tag.name == "div" and "section" in classes)
        or (tag.name == "dl" and bool(_API_DOMAINS.intersection(classes)))
    )


def markdown_title(markdown: str) -> str:
    """The text of the first ATX H1 of ``markdown``, or ``""``."""
    match = _H1.search(markdown)
    return match.group(1).strip() if match else ""


class _Converter(MarkdownConverter):
    """markdownify, with definition lists as markdown reads them, and text that stays text whatever it holds.

    markdownify writes PHP Markdown Extra's ``: definition``, indented; markdown parsers without that
    extension read the indented code blocks inside as one literal block. A page's text must not become
    markup: a code block is fenced longer than any backtick run inside it (markdownify's three backticks
    end at a line of three in the code, and what follows, ``## X``, became a section), inline code is one
    line, and text escapes ``<`` and a line-starting ``#``, ``>``, list marker (``&lt;script&gt;`` was a
    ``<script>`` line, ``<p>## X</p>`` a heading).
    """

    def escape(self, text: str, parent_tags: Any) -> str:
        # A heading's or a table cell's text is one line after its marker: no line of it starts a block.
        # escape (and convert_code below) are markdownify's, but its stub (__init__.pyi) omits them
        return str(super().escape(escape_markup(text, line_starts="_inline" not in parent_tags), parent_tags))  # type: ignore[misc]

    def convert_pre(self, el: Tag, text: str, parent_tags: Any) -> str:
        text = (text or "").strip("\n")
        return f"\n\n{fenced(text, _code_language(el) or '')}\n\n" if text else ""

    def convert_code(self, el: Tag, text: str, parent_tags: Any) -> str:
        if "_noformat" not in parent_tags:
            text = " ".join(
                (text or "").split("\n")
            )  # a line break in a code span could start a heading on the next line
        return super().convert_code(el, text, parent_tags)  # type: ignore[misc]  # markdownify's, not in its stub

    def convert_dt(self, el: Tag, text: str, parent_tags: Any) -> str:
        text = " ".join((text or "").split())
        if "_inline" in parent_tags or not text:
            return f" {text} " if text else "\n"
        if "sig" in (el.get("class") or ()):  # an API signature (Sphinx): code, as written
            signature = " ".join(el.get_text("").split())  # its spans carry their own spaces
            return f"\n\n`{signature}`\n\n"
        return f"\n\n**{text}**\n\n"

    def convert_dd(self, el: Tag, text: str, parent_tags: Any) -> str:
        text = (text or "").strip()
        if "_inline" in parent_tags:
            return f" {text} "
        return f"\n\n{text}\n\n" if text else "\n"


def _code_language(pre: Tag) -> str | None:
    """The language of a ``<pre>`` block, from its own classes, its ``<code>``'s or its wrappers' (Sphinx: two levels up)."""
    candidates: list[Tag] = [pre]
    code = pre.find("code")
    if isinstance(code, Tag):
        candidates.append(code)
    parent = pre.parent
    for _ in range(2):
        if isinstance(parent, Tag):
            candidates.append(parent)
            parent = parent.parent
    for tag in candidates:
        for name in tag.get("class") or ():
            match = _LANGUAGE_CLASS.match(name)
            if match and match.group(1).lower() not in _NOT_LANGUAGES:
                return match.group(1).lower()
    return None
