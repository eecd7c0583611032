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


def is_page(name: str) -> bool:
    """Whether a file of this name is a documentation page of a format docs-mcp reads."""
    return name.lower().endswith(PAGE_SUFFIXES)


def is_markdown(name: str) -> bool:
    """Whether the page is markdown (chunked as written, front matter read)."""
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def convert(rel: str, path: Path, root: Path, text: str) -> Converted:
    """The markdown of the non-markdown page ``text`` (read from ``path``, ``rel`` under the docs ``root``).

    Raises:
        FormatError: the page is not valid in its format (a notebook that is not JSON).
    """
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix in (".rst", ".rest"):
        from docs_mcp.indexer.formats.rst import rst_to_markdown

        try:
            markdown, warnings = rst_to_markdown(text, path, root)
        except Exception as error:  # noqa: BLE001 - docutils' own failures: one bad page never stops a scan
            raise FormatError(f"docutils cannot read it ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})") from None
        return Converted(markdown, "", warnings)
    if suffix in (".html", ".htm"):
        from docs_mcp.indexer.formats.html import html_to_markdown

        page = html_to_markdown(text, PurePosixPath(rel).stem)
        return Converted(page.markdown, page.title)
    if suffix == ".ipynb":
        from docs_mcp.indexer.formats.notebook import NotebookError, notebook_to_markdown

        try:
            markdown, _ = notebook_to_markdown(text)
        except NotebookError as error:
            raise FormatError(str(error)) from None
        return Converted(markdown)
    raise FormatError(f"no reader for {suffix or 'files without a suffix'}")
