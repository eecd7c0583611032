"""HTML -> markdown: the page's main content only, its headings, code blocks with their language.

BeautifulSoup (html.parser, no native dependency) and markdownify. Scripts, styles, navigation,
headers, footers, sidebars and forms are dropped, and the page's ``main``/``article``/``role=main``
element is kept when it has one. The permalink anchors documentation generators put after each
heading (Sphinx and MkDocs ``headerlink``, ``¶``) are dropped so headings read as written, and a
code block's language is read from its classes (``highlight-python3``, ``language-js``). Used for
local ``.html`` pages and for pages fetched by the remote sources alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from typing import Any

from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

_DROP = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "svg", "iframe", "button", "template")
# Sphinx and MkDocs sidebars and related-page bars live in divs, not in <nav>.
_DROP_CLASSES = frozenset(("headerlink", "sphinxsidebar", "related", "toctree-wrapper", "md-sidebar", "md-header", "md-footer", "skip-link"))
_LANGUAGE_CLASS = re.compile(r"^(?:highlight-|language-|lang-|sourceCode\s)([\w+#.-]+)$")
_NOT_LANGUAGES = frozenset({"default", "notranslate", "none", "text", "highlight", "sourcecode"})
_BLANK_RUNS = re.compile(r"\n{3,}")
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class HtmlPage:
    """A page as markdown, with its title (its first H1, else its ``<title>``, else ``fallback_title``)."""

    title: str
    markdown: str


def html_to_markdown(html: str, fallback_title: str) -> HtmlPage:
    """The main content of ``html`` as markdown; a page without an H1 gets its title as one."""
    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    _prune(soup)
    root = soup.find("main") or soup.find("article") or soup.find(attrs={"role": "main"}) or soup.body or soup
    converter = _Converter(heading_style="ATX", bullets="-", strip=["img"], escape_underscores=False, code_language_callback=_code_language)
    markdown = converter.convert_soup(root).strip()  # the tree already parsed: markdownify would parse it again from text
    markdown = "\n".join(line.rstrip() for line in markdown.split("\n"))
    markdown = _BLANK_RUNS.sub("\n\n", markdown) + "\n"
    heading = markdown_title(markdown)
    title = heading or title or fallback_title
    if not heading and markdown.strip():
        markdown = f"# {title}\n\n{markdown}"
    return HtmlPage(title, markdown if markdown.strip() else "")


def _prune(soup: BeautifulSoup) -> None:
    """Drop page furniture and unwrap links inside the site, in one walk of the tree."""
    for tag in list(soup.find_all(True)):
        if tag.decomposed:
            continue
        if tag.name in _DROP or _DROP_CLASSES.intersection(tag.get("class") or ()):
            tag.decompose()
        elif tag.name == "a" and not str(tag.get("href") or "").startswith(("http://", "https://")):
            tag.unwrap()  # a link inside the site: its target is no address the reader can use


def markdown_title(markdown: str) -> str:
    """The text of the first ATX H1 of ``markdown``, or ``""``."""
    match = _H1.search(markdown)
    return match.group(1).strip() if match else ""


class _Converter(MarkdownConverter):  # type: ignore[misc]
    """markdownify, with definition lists as markdown reads them: the term on its own line, the definition as blocks.

    markdownify writes PHP Markdown Extra's ``: definition``, indented; markdown parsers without that
    extension read the indented code blocks inside as one literal block.
    """

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
