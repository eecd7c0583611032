"""reStructuredText -> markdown with docutils' own parser, Sphinx constructs understood.

docutils parses the page (no regexes): its sections give the heading hierarchy, its literal blocks
the code with their language. Includes (``include``, ``literalinclude``) are read only from inside
the docs root (and docutils' own standard includes); every other insertion of a file or URL
(``raw``, ``csv-table :file:`` or ``:url:``) stays off, so a page can neither read nor fetch
anything outside the folder being indexed. Markup errors become one warning for the page; the rest
of the page is indexed.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import directives, roles
from docutils.parsers.rst.directives.misc import Include


from docs_mcp.indexer.formats.doctree_markdown import to_markdown
from docs_mcp.indexer.formats.rst_extensions import AnyDirective, any_role, directive_for

# docutils looks directives and roles up through two module functions; a parse swaps in ours for its
# duration (as Sphinx does), under a lock so parses in other threads never see a half-swapped module.
_LOOKUP_LOCK = threading.Lock()
# Errors (3) and worse become the page's warning; nothing is printed and nothing stops the parse.
_ERROR_LEVEL = 3
# An include refused because it leaves the docs folder (RootInclude), told apart from markup errors when reported.
_REFUSED_INCLUDE = re.compile(r'"(?:literal)?include": (.+?) is outside the docs folder')
INCLUDE_ADVICE = "To include the project's root files, index the project folder: docs-mcp index PROJECT --include 'docs/**' --include '*.rst'."
_SUFFIX_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".json": "json",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".sh": "bash", ".bash": "bash",
    ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".rs": "rust", ".go": "go", ".java": "java", ".rb": "ruby",
    ".html": "html", ".css": "css", ".sql": "sql", ".rst": "rst", ".md": "markdown", ".xml": "xml", ".txt": "text",
}  # fmt: skip


def rst_to_markdown(text: str, path: Path, root: Path) -> tuple[str, tuple[str, ...]]:
    """The markdown of the reStructuredText ``text`` read from ``path`` under the docs ``root``, and its warnings."""
    settings = {
        "report_level": 5, "halt_level": 5, "warning_stream": False, "_disable_config": True,
        "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False,
        "syntax_highlight": "none", "smart_quotes": False, "pep_references": False, "rfc_references": False,
        "input_encoding": "utf-8", "line_length_limit": 100_000, "docs_root": str(root.resolve()),
    }  # fmt: skip
    with _sphinx_lookups():
        document = publish_doctree(text, source_path=str(path), settings_overrides=settings)
    errors = [message for message in document.findall(nodes.system_message) if message["level"] >= _ERROR_LEVEL]
    warnings = (_describe(errors),) if errors else ()
    return to_markdown(document), warnings


class RootInclude(Include):
    """docutils' ``include``, reading only files inside the docs root (or docutils' standard ones)."""

    def run(self) -> list[nodes.Node]:
        settings = self.state.document.settings
        settings.file_insertion_enabled = True
        try:
            return super().run()
        finally:
            settings.file_insertion_enabled = False

    def read_file(self, path: Any) -> str:
        target = Path(path).resolve()
        allowed = (Path(self.state.document.settings.docs_root), Path(self.standard_include_path).resolve())
        if not any(target.is_relative_to(folder) for folder in allowed):
            raise self.error(f'"{self.name}": {self.arguments[0]} is outside the docs folder; not included.')
        return super().read_file(str(target))


class LiteralInclude(RootInclude):
    """Sphinx's ``literalinclude``: a file from inside the docs root as a code block with its language."""

    option_spec: Any = {
        **Include.option_spec, "language": directives.unchanged, "lines": directives.unchanged, "caption": directives.unchanged,
        "start-at": directives.unchanged, "end-at": directives.unchanged, "pyobject": directives.unchanged,
        "linenos": directives.flag, "lineno-start": directives.unchanged, "lineno-match": directives.flag,
        "emphasize-lines": directives.unchanged, "dedent": directives.unchanged, "diff": directives.unchanged,
        "prepend": directives.unchanged, "append": directives.unchanged, "force": directives.flag, "class": directives.unchanged,
    }  # fmt: skip

    def run(self) -> list[nodes.Node]:
        self.settings = self.state.document.settings
        self.clip_options = (None, None, self.options.get("start-after") or self.options.get("start-at"),
                             self.options.get("end-before") or self.options.get("end-at"))  # fmt: skip
        argument = self.arguments[0]
        source = Path(self.state.document.current_source or ".")
        target = Path(self.settings.docs_root) / argument.lstrip("/") if argument.startswith("/") else source.parent / argument
        text = _selected_lines(self.read_file(target), self.options.get("lines", ""))
        text = "\n".join(filter(None, (self.options.get("prepend"), text.rstrip("\n"), self.options.get("append"))))
        block = nodes.literal_block(text, text)
        block["language"] = self.options.get("language") or _SUFFIX_LANGUAGES.get(target.suffix.lower(), "")
        caption = self.options.get("caption")
        return [nodes.paragraph("", "", nodes.strong(caption, caption)), block] if caption else [block]


_OWN_DIRECTIVES: dict[str, type] = {"include": RootInclude, "literalinclude": LiteralInclude}


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


def _selected_lines(text: str, spec: str) -> str:
    """The lines ``1,3-5,8-`` of ``text`` (Sphinx's ``:lines:``), all of it without a spec."""
    if not spec.strip():
        return text
    lines = text.split("\n")
    keep: list[str] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        try:
            start = int(first) if first else 1
            end = (int(last) if last else len(lines)) if "-" in part else start
        except ValueError:
            return text
        keep.extend(lines[start - 1 : end])
    return "\n".join(keep)


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
    return " ".join(paragraph.astext().split()) if paragraph else ""
