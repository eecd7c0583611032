"""Documentation formats: which files are pages, and each page's text as the markdown the chunker splits.

Markdown (``.md``, ``.markdown``, ``.mdx``) is chunked as written, so ``get_doc`` returns its
source. reStructuredText, HTML and Jupyter notebooks are converted to markdown first (docutils,
the HTML converter remote pages use, the notebook's JSON), and ``get_doc`` returns that markdown:
the contract's ``get_doc`` answers in markdown, and raw HTML or notebook JSON would be unreadable.
Chunk IDs are the same grammar for every format: the file's path, then its heading path.
The converters load on first use: docutils and BeautifulSoup are slow to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
# Suffix -> the format's name, as messages say it.
CONVERTED_FORMATS = {".rst": "reStructuredText", ".rest": "reStructuredText", ".html": "HTML", ".htm": "HTML", ".ipynb": "Jupyter notebook"}
PAGE_SUFFIXES = MARKDOWN_SUFFIXES + tuple(CONVERTED_FORMATS)


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
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix not in CONVERTED_FORMATS:
        raise FormatError(f"no reader for {suffix or 'files without a suffix'}")
    try:
        return _read(suffix, rel, path, root, text)
    except FormatError:
        raise
    # Whatever a reader raises is this page's problem: SystemExit too (a module a page once made docutils import
    # ran its main), and RecursionError or MemoryError from a page built to exhaust them. Ctrl-C still stops the build.
    except (Exception, SystemExit) as error:  # noqa: BLE001
        detail = f": {str(error).splitlines()[0][:200]}" if str(error).strip() else ""
        raise FormatError(f"the {CONVERTED_FORMATS[suffix]} reader failed on it ({type(error).__name__}{detail})") from None


def _read(suffix: str, rel: str, path: Path, root: Path, text: str) -> Converted:
    if suffix in (".rst", ".rest"):
        from docs_mcp.indexer.corpus.formats.rst import rst_to_markdown

        markdown, warnings = rst_to_markdown(text, path, root)
        return Converted(markdown, "", warnings)
    if suffix in (".html", ".htm"):
        from docs_mcp.indexer.corpus.formats.html import html_to_markdown

        page = html_to_markdown(text, PurePosixPath(rel).stem)
        return Converted(page.markdown, page.title)
    from docs_mcp.indexer.corpus.formats.notebook import notebook_to_markdown

    markdown, _ = notebook_to_markdown(text)
    return Converted(markdown)
