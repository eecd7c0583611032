"""Documentation formats: which files are pages, and each page's text as the markdown the chunker splits.

Markdown (``.md``, ``.markdown``, ``.mdx``) is chunked as written, so ``get_doc`` returns its
source. reStructuredText, HTML and Jupyter notebooks are converted to markdown first (docutils,
the HTML converter remote pages use, the notebook's JSON), and ``get_doc`` returns that markdown:
the contract's ``get_doc`` answers in markdown, and raw HTML or notebook JSON would be unreadable.
Chunk IDs are the same grammar for every format: the file's path, then its heading path.
``CONVERTERS`` is the one table of the formats converted: suffix -> the format's name and its reader module,
which exports ``read_page``. A new format is one module and one row. The readers load on first use:
docutils and BeautifulSoup are slow to import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path, PurePosixPath
from typing import Any

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


@dataclass(frozen=True)
class Converter:
    """A format converted to markdown: its name, as messages say it, and its reader's module in this package."""

    name: str
    module: str  # exports read_page(rel, path, root, text) -> Converted

    def read(self, rel: str, path: Path, root: Path, text: str) -> Converted:
        reader = import_module(f"{__name__}.{self.module}")
        return reader.read_page(rel, path, root, text)


HTML = Converter("HTML", "html")
# The one table of the formats converted to markdown: suffix -> converter.
CONVERTERS = {
    ".rst": Converter("reStructuredText", "rst"),
    ".rest": Converter("reStructuredText", "rst"),
    ".html": HTML,
    ".htm": HTML,
    ".ipynb": Converter("Jupyter notebook", "notebook"),
}
PAGE_SUFFIXES = MARKDOWN_SUFFIXES + tuple(CONVERTERS)


@dataclass(frozen=True)
class Converted:
    """A page as markdown: its title when the source states one (besides an H1), and its warnings."""

    markdown: str
    title: str = ""
    warnings: tuple[str, ...] = ()


class FormatError(ValueError):
    """The file cannot be read as its format says (the message says why)."""


def nesting_depth(root: Any, children: Callable[[Any], Iterable[Any]]) -> int:
    """How deep a parsed page nests, walked with a stack: a page built to be deeper than Python's recursion limit is one."""
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children(node))
    return deepest


def too_deep(what: str, depth: str, limit: int) -> FormatError:
    """The refusal of a page that nests past its reader's ``limit`` (``depth``: how deep, as far as it is known)."""
    return FormatError(f"its {what} nests {depth} deep (at most {limit} are converted)")


def is_page(name: str) -> bool:
    """Whether a file of this name is a documentation page of a format docs-mcp reads."""
    return name.lower().endswith(PAGE_SUFFIXES)


def is_markdown(name: str) -> bool:
    """Whether the page is markdown (chunked as written, front matter read)."""
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def convert(rel: str, path: Path, root: Path, text: str) -> Converted:
    """The markdown of the non-markdown page ``text`` (read from ``path``, ``rel`` under the docs ``root``).

    Raises:
        FormatError: the page is not valid in its format (a notebook that is not JSON), is past a bound the
            format's reader sets, or its reader failed on it in any way (one page never stops a build).
    """
    converter = CONVERTERS.get(PurePosixPath(rel).suffix.lower())
    if converter is None:
        raise FormatError(f"no reader for {PurePosixPath(rel).suffix.lower() or 'files without a suffix'}")
    try:
        return converter.read(rel, path, root, text)
    except FormatError:
        raise
    # Whatever a reader raises is this page's problem: SystemExit too (a module a page once made docutils import
    # ran its main), and RecursionError or MemoryError from a page built to exhaust them. Ctrl-C still stops the build.
    except (Exception, SystemExit) as error:  # noqa: BLE001
        detail = f": {str(error).splitlines()[0][:200]}" if str(error).strip() else ""
        raise FormatError(f"the {converter.name} reader failed on it ({type(error).__name__}{detail})") from None
