"""What a reStructuredText page may read besides itself: regular files inside the docs root, bounded; nothing else.

A page is untrusted (it may come from a release archive or a repository), and docutils' directives
can read any path, fetch URLs and import modules: ``include`` with ``:parser: NAME`` imports NAME and
parses the file in a copy of the settings, ``csv-table`` and ``raw`` take ``:file:`` and ``:url:``.
So file insertion stays off for the whole parse but for the read of an include, and the two includes
here check the file in ``Include.read_file`` (where docutils 0.22+ reads every include) before it is
opened: inside the docs root (or docutils' standard includes), a regular file (a FIFO
would block the build, a device never ends), within the page's budget (``MAX_INCLUDES`` files and
``MAX_INCLUDED_BYTES`` in all, so includes cannot multiply a page). ``:parser:`` names only the
reStructuredText parser, which is the page's own; any other name is refused before docutils can
import it. Each refusal is a markup error naming the include and why; the rest of the page is indexed.
"""

from __future__ import annotations

import os
import stat
from encodings.aliases import aliases
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.parsers.rst.directives.misc import Include
from docutils.parsers.rst.directives.tables import CSVTable

MAX_INCLUDES = 200
MAX_INCLUDED_BYTES = 4_000_000
_RST_PARSERS = frozenset(("rst", "rest", "restructuredtext", "rstx", "restx", "rtxt"))
_ENCODINGS = frozenset(aliases) | frozenset(aliases.values())
_INCLUDED = "docs_mcp_included"  # the document attribute counting (files, bytes) the page's includes read
SUFFIX_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".json": "json",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".sh": "bash", ".bash": "bash",
    ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".rs": "rust", ".go": "go", ".java": "java", ".rb": "ruby",
    ".html": "html", ".css": "css", ".sql": "sql", ".rst": "rst", ".md": "markdown", ".xml": "xml", ".txt": "text",
}  # fmt: skip
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def rst_parser_only(argument: str) -> str:
    """``:parser:``: only reStructuredText (the page's own parser); docutils would import any other name as a module."""
    name = (argument or "").strip().lower()
    if name not in _RST_PARSERS:
        raise ValueError(f'only the reStructuredText parser is used; "{argument.strip()}" is not imported')
    return name


def known_encoding(argument: str) -> str:
    """``:encoding:``: a codec Python ships (looked up by name, never imported by a name the page makes up)."""
    name = argument.strip().lower().replace("-", "_")
    if name not in _ENCODINGS:
        raise ValueError(f'unknown encoding: "{argument.strip()}"')
    return argument.strip()


class RootInclude(Include):
    """docutils' ``include``, reading only regular files inside the docs root (or docutils' standard ones), bounded."""

    option_spec: Any = {**Include.option_spec, "parser": rst_parser_only, "encoding": known_encoding}

    def run(self) -> list[nodes.Node]:
        # The file is read and checked before docutils sees it; the reStructuredText parser is the page's own,
        # so the text joins the page's input (parsed under the page's settings, file insertion off).
        self.options.pop("parser", None)
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
            raise self._refused("is outside the docs folder")
        try:
            status = os.stat(target)  # never opens it: opening a FIFO waits for a writer
        except OSError as error:
            raise self._refused(f"cannot be read ({error.strerror})") from None
        kind = next(
            (name for test, name in _KINDS if test(status.st_mode)),
            "" if stat.S_ISREG(status.st_mode) else "not a regular file",
        )
        if kind:
            raise self._refused(f"is {kind}, not a file")
        files, total = self.state.document.get(_INCLUDED, (0, 0))
        if files >= MAX_INCLUDES or total + status.st_size > MAX_INCLUDED_BYTES:
            raise self._refused(
                f"is past the page's include budget ({MAX_INCLUDES} files, {MAX_INCLUDED_BYTES:,} bytes in all)"
            )
        self.state.document[_INCLUDED] = (files + 1, total + status.st_size)
        return super().read_file(str(target))

    def _refused(self, reason: str) -> Exception:
        return self.error(f'"{self.name}": {self.arguments[0]} {reason}; not included.')


class ContentOnlyCsvTable(CSVTable):
    """``csv-table`` from its own content only: ``:file:`` and ``:url:`` are refused whatever the settings say."""

    option_spec: Any = {**CSVTable.option_spec, "encoding": known_encoding}

    def run(self) -> list[nodes.Node]:
        if "file" in self.options or "url" in self.options:
            return [self.reporter.error(f'"{self.name}": :file: and :url: are not read (a page reads no other file and no URL); '
                                        "put the rows in the directive.", line=self.lineno)]  # fmt: skip
        return super().run()


class LiteralInclude(RootInclude):
    """Sphinx's ``literalinclude``: a file from inside the docs root as a code block with its language."""

    option_spec: Any = {
        **RootInclude.option_spec, "language": directives.unchanged, "lines": directives.unchanged, "caption": directives.unchanged,
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
        target = (
            sphinx_source_folder(source, Path(self.settings.docs_root)) / argument.lstrip("/")
            if argument.startswith("/")
            else source.parent / argument
        )
        text = _selected_lines(self.read_file(target), self.options.get("lines", ""))
        text = "\n".join(filter(None, (self.options.get("prepend"), text.rstrip("\n"), self.options.get("append"))))
        block = nodes.literal_block(text, text)
        block["language"] = self.options.get("language") or SUFFIX_LANGUAGES.get(target.suffix.lower(), "")
        caption = self.options.get("caption")
        return [nodes.paragraph("", "", nodes.strong(caption, caption)), block] if caption else [block]


def sphinx_source_folder(page: Path, docs_root: Path) -> Path:
    """The folder Sphinx reads ``/path`` from for ``page``: the nearest one above it, inside ``docs_root``, that holds
    a ``conf.py`` (pytest's ``doc/en/``), else ``docs_root``. Only looked at, never read."""
    root = docs_root.resolve()
    folder = page.resolve().parent
    while folder.is_relative_to(root):
        if (folder / "conf.py").is_file():
            return folder
        if folder == root:
            break
        folder = folder.parent
    return docs_root


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
