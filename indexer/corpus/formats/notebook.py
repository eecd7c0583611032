"""Jupyter notebooks (``.ipynb``) -> markdown: markdown cells as written, code cells fenced in the kernel's language.

The notebook is read as JSON (nbformat 4, and 3's worksheets); no Jupyter package is needed.
Outputs are mostly dropped: only text a cell printed or returned (``stream``, ``text/plain``) is
kept, at most ``OUTPUT_LINES`` lines and ``OUTPUT_CHARS`` characters per cell, fenced as ``text``;
images, HTML, widgets and tracebacks never reach the index. Raw cells are dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.formats import Converted, FormatError, nesting_depth, too_deep
from docs_mcp.indexer.corpus.formats.doctree_markdown import fenced

OUTPUT_LINES = 12
OUTPUT_CHARS = 1_000
# Real notebooks nest their JSON a dozen levels (widget state a few more); Python's parser recurses per level.
MAX_NOTEBOOK_DEPTH = 100


class NotebookError(FormatError):
    """The file is not a notebook this reader understands (the message says why)."""


def read_page(rel: str, path: Path, root: Path, text: str) -> Converted:
    """The notebook ``text`` (its JSON) as markdown: markdown cells as written, code cells fenced."""
    markdown, _ = notebook_to_markdown(text)
    return Converted(markdown)


def notebook_to_markdown(text: str) -> tuple[str, str]:
    """(markdown, language) of the notebook JSON ``text``.

    Raises:
        NotebookError: invalid JSON, or no list of cells.
        FormatError: the JSON nests deeper than MAX_NOTEBOOK_DEPTH.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"invalid notebook JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise too_deep("JSON", "too many levels", MAX_NOTEBOOK_DEPTH) from None
    depth = nesting_depth(data, _members)
    if depth > MAX_NOTEBOOK_DEPTH:
        raise too_deep("JSON", f"{depth} levels", MAX_NOTEBOOK_DEPTH)
    if not isinstance(data, dict):
        raise NotebookError("a notebook is a JSON object with a list of cells")
    cells = data.get("cells")
    if cells is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [
            cell
            for sheet in data["worksheets"]
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list)
            for cell in sheet["cells"]
        ]
    if not isinstance(cells, list):
        raise NotebookError("a notebook is a JSON object with a list of cells")
    language = _language(data.get("metadata"))
    parts = (_cell(cell, language) for cell in cells if isinstance(cell, dict))
    markdown = "\n\n".join(part for part in parts if part.strip())
    return (markdown + "\n" if markdown else ""), language


def _cell(cell: dict[str, Any], language: str) -> str:
    kind = cell.get("cell_type")
    source = _text(cell.get("source", cell.get("input", ""))).strip("\n")
    if kind in ("markdown", "heading"):
        if kind == "heading":  # nbformat 3 heading cells
            return f"{'#' * _heading_level(cell.get('level'))} {source.strip()}"
        return source
    if kind != "code" or not source.strip():
        return ""
    blocks = [fenced(source, _cell_language(source, language))]
    output = _printed(cell.get("outputs") or ())
    if output:
        blocks.append(fenced(output, "text"))
    return "\n\n".join(blocks)


def _printed(outputs: Any) -> str:
    """What the cell printed or returned as plain text, bounded."""
    texts = []
    for output in outputs if isinstance(outputs, list) else ():
        if not isinstance(output, dict):
            continue
        if output.get("output_type") == "stream":
            texts.append(_text(output.get("text", "")))
        elif output.get("output_type") in ("execute_result", "display_data", "pyout"):
            data = output.get("data")
            if not isinstance(data, dict):
                data = output
            texts.append(_text(data.get("text/plain", data.get("text", ""))))
    text = "\n".join(t.rstrip("\n") for t in texts if t.strip())
    lines = text.split("\n")
    bounded = "\n".join(lines[:OUTPUT_LINES])[:OUTPUT_CHARS]
    if len(bounded) < len(text):
        bounded = bounded.rstrip() + "\n..."
    return bounded


def _heading_level(level: Any) -> int:
    """An nbformat 3 heading cell's level as markdown has it (1-6): a level that is no number is 1, a larger one 6."""
    if isinstance(level, str) and level.strip().isdecimal():  # not isdigit: int() refuses "²"
        level = int(level)
    if not isinstance(level, int) or isinstance(level, bool):
        return 1
    return min(max(level, 1), 6)


def _members(value: Any) -> list[Any]:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [child for child in children if isinstance(child, (dict, list))]


def _language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str) and value[field].strip():
            return value[field].strip().lower()
    return "python"


def _cell_language(source: str, language: str) -> str:
    # A cell magic runs another language: %%bash, %%sql, %%html...
    first = source.lstrip().split("\n", 1)[0]
    if first.startswith("%%") and len(first) > 2:
        return first[2:].split()[0].lower() if first[2:].split() else language
    return language


def _text(value: Any) -> str:
    if isinstance(value, list):  # nbformat's lines; anything else in the list is no text
        return "".join(part for part in value if isinstance(part, str))
    return value if isinstance(value, str) else ""
