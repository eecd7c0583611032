"""Checks of the files and folders a command reads or writes, made before any work starts.

A command that runs for minutes should not find out at the end that ``--json`` points into a
folder that does not exist: every output path is checked up front, with one error that says
what is wrong and what to pass instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from docs_mcp.eval.errors import OutputPathError


def input_file_problem(path: Path, what: str) -> str | None:
    """Why ``path`` cannot be read as ``what`` ("golden JSONL file", ...): missing or a folder; None when it is a file."""
    if path.is_dir():
        return f"is a folder, not a {what}"
    if not path.exists():
        return "does not exist"
    return None


def check_output_file(path: Path | None, option: str) -> None:
    """Check that the file ``option`` names can be written: not a folder, in an existing, writable folder.

    Raises:
        OutputPathError: it cannot (the message names the option, the path and why).
    """
    if path is None:
        return
    if path.is_dir():
        raise OutputPathError(option, path, "is a folder", f"Pass a file path, e.g. {path / 'out.json'}.")
    _check_writable_folder(option, path, path.parent)


def check_output_folder(path: Path | None, option: str) -> None:
    """Check that the folder ``option`` names is a folder or can be created in one.

    Raises:
        OutputPathError: it is a file, or lies under a file or an unwritable folder.
    """
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise OutputPathError(option, path, "is a file, not a folder", "Pass a folder (it is created when missing).")
    _check_writable_folder(option, path, _nearest_existing(path))


def _check_writable_folder(option: str, path: Path, folder: Path) -> None:
    """``folder`` (where ``path`` will be written) must exist, be a folder, and be writable."""
    if not folder.exists():
        raise OutputPathError(
            option,
            path,
            f"folder {folder} does not exist",
            "Create the folder first, or pass a path in an existing one.",
        )
    if not folder.is_dir():
        raise OutputPathError(option, path, f"{folder} is a file, not a folder", "Pass a path inside a folder.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(
            option, path, f"folder {folder} is not writable", "Pass a path in a folder you can write to."
        )


def _nearest_existing(path: Path) -> Path:
    """``path`` itself if it exists, else its closest existing ancestor."""
    absolute = path.absolute()
    return next(candidate for candidate in (absolute, *absolute.parents) if candidate.exists())
