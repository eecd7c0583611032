"""reStructuredText -> markdown with docutils' own parser, Sphinx constructs understood.

docutils parses the page (no regexes): its sections give the heading hierarchy, its literal blocks
the code with their language. Includes (``include``, ``literalinclude``) are read only from inside
the docs root (and docutils' own standard includes), checked and bounded (rst_includes.py); every
other insertion of a file or URL (``raw``, ``csv-table :file:`` or ``:url:``) stays off, so a page
can neither read nor fetch anything outside the folder being indexed, nor make docutils import a
module. Markup errors become one warning for the page; the rest of the page is indexed. A page
nested deeper than ``MAX_RST_DEPTH`` elements is refused (FormatError).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import directives, roles

from docs_mcp.indexer.corpus.formats import Converted, nesting_depth, too_deep
from docs_mcp.indexer.corpus.formats.doctree_markdown import to_markdown
from docs_mcp.indexer.corpus.formats.rst_extensions import AnyDirective, any_role, directive_for
from docs_mcp.indexer.corpus.formats.rst_includes import ContentOnlyCsvTable, LiteralInclude, RootInclude

# docutils looks directives and roles up through two module functions; a parse swaps in ours for its
# duration (as Sphinx does), under a lock so parses in other threads never see a half-swapped module.
_LOOKUP_LOCK = threading.Lock()
# Errors (3) and worse become the page's warning; nothing is printed and nothing stops the parse.
_ERROR_LEVEL = 3
# An include refused because it leaves the docs folder (RootInclude), told apart from markup errors when reported.
_REFUSED_INCLUDE = re.compile(r'"(?:literal)?include": (.+?) is outside the docs folder')
INCLUDE_ADVICE = "To include the project's root files, index the project folder: docs-mcp index PROJECT --include 'docs/**' --include '*.rst'."
# Elements inside elements (a list item in a list in a section is three). Real pages nest a few dozen at most;
# docutils' parser and the markdown writer recurse per level, and docutils runs out of stack at about 300.
MAX_RST_DEPTH = 120


def read_page(rel: str, path: Path, root: Path, text: str) -> Converted:
    """The reStructuredText page ``text`` (read from ``path`` under the docs ``root``) as markdown, with docutils' warnings."""
    markdown, warnings = rst_to_markdown(text, path, root)
    return Converted(markdown, "", warnings)


def rst_to_markdown(text: str, path: Path, root: Path) -> tuple[str, tuple[str, ...]]:
    """The markdown of the reStructuredText ``text`` read from ``path`` under the docs ``root``, and its warnings."""
    settings = {
        "report_level": 5, "halt_level": 5, "warning_stream": False, "_disable_config": True,
        "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False,
        "syntax_highlight": "none", "smart_quotes": False, "pep_references": False, "rfc_references": False,
        "input_encoding": "utf-8", "line_length_limit": 100_000, "docs_root": str(root.resolve()),
    }  # fmt: skip
    try:
        with _sphinx_lookups():
            document = publish_doctree(text, source_path=str(path), settings_overrides=settings)
    except RecursionError:
        raise too_deep("reStructuredText", "too many levels", MAX_RST_DEPTH) from None
    depth = nesting_depth(document, lambda node: [child for child in node.children if isinstance(child, nodes.Element)])
    if depth > MAX_RST_DEPTH:
        raise too_deep("reStructuredText", f"{depth} levels", MAX_RST_DEPTH)
    errors = [message for message in document.findall(nodes.system_message) if message["level"] >= _ERROR_LEVEL]
    warnings = (_describe(errors),) if errors else ()
    return to_markdown(document), warnings


_OWN_DIRECTIVES: dict[str, type] = {
    "include": RootInclude,
    "literalinclude": LiteralInclude,
    "csv-table": ContentOnlyCsvTable,
}


@contextmanager
def _sphinx_lookups() -> Iterator[None]:
    with _LOOKUP_LOCK:
        find_directive, find_role = directives.directive, roles.role

        def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
            own = _OWN_DIRECTIVES.get(name.lower()) or directive_for(name)
            if own is not None:
                return own, []
            found, messages = find_directive(name, language, document)
            return (found, messages) if found is not None else (AnyDirective, [])

        def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
            found, messages = find_role(name, language, lineno, reporter)
            return (found, messages) if found is not None else (any_role, [])

        directives.directive, roles.role = directive, role
        try:
            yield
        finally:
            directives.directive, roles.role = find_directive, find_role


def _describe(errors: list[nodes.system_message]) -> str:
    """The page's one warning: includes refused by design (nothing to fix in the page), then markup errors."""
    refused = [match[1] for match in map(_REFUSED_INCLUDE.search, map(_detail, errors)) if match]
    markup = [error for error in errors if not _REFUSED_INCLUDE.search(_detail(error))]
    parts = []
    if refused:
        # Sphinx's standard layout (docs/changes.rst including ../CHANGES.rst) meets this on every project.
        parts.append(f"{', '.join(dict.fromkeys(refused))} {'is' if len(set(refused)) == 1 else 'are'} outside the docs folder: not included, "
                     "by design (a page reads only files inside the folder being indexed)")  # fmt: skip
    if markup:
        line = f" at line {markup[0]['line']}" if markup[0].get("line") else ""
        more = f" (and {len(markup) - 1} more)" if len(markup) > 1 else ""
        parts.append(f"reStructuredText markup error{line}: {_detail(markup[0])}{more}")
    advice = [INCLUDE_ADVICE] if refused else []
    advice += ["Fix the markup (docutils names it)."] if markup else []
    return f"{'; '.join(parts)}; indexed the rest of the page. {' '.join(advice)}"


def _detail(error: nodes.system_message) -> str:
    paragraph = error.next_node(nodes.paragraph)
    return " ".join(paragraph.astext().split()).rstrip(".") if paragraph else ""
