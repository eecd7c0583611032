"""Walk a docs folder: find the markdown pages and manifests, refuse what must not be read.

Hidden folders and files are skipped, as are ``*.template.md`` prompt templates. A
symlink may point anywhere inside the docs root; one that leaves it is reported and
not followed, so indexing never reads files outside the folder it was given.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.indexer.errors import CorpusNotFoundError
from docs_mcp.indexer.manifest import MANIFEST_NAME
from docs_mcp.indexer.records import Problem

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
TEMPLATE_MARK = ".template."


@dataclass(frozen=True)
class Found:
    """What a walk of the docs root found: pages and manifests (root-relative -> absolute), problems."""

    pages: dict[str, Path]
    manifests: dict[str, Path]  # folder ('' for the root) -> manifest file
    problems: tuple[Problem, ...]


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def discover(root: Path) -> Found:
    """Find every markdown page and manifest under ``root``, in sorted path order.

    Raises:
        CorpusNotFoundError: ``root`` does not exist or is not a folder.
    """
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise CorpusNotFoundError(f"docs folder {root} {what}.", "Pass the folder that holds your markdown files.")
    real_root = root.resolve()
    pages: dict[str, Path] = {}
    manifests: dict[str, Path] = {}
    problems: list[Problem] = []
    def unreadable(exc: OSError) -> None:
        rel = Path(exc.filename).relative_to(root).as_posix() if exc.filename else str(root)
        problems.append(Problem(rel, f"cannot read this folder ({exc.strerror}); skipped it. Check its permissions."))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        base = Path(folder)
        rel_folder = base.relative_to(root).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder
        dirs[:] = sorted(d for d in dirs if _keep_dir(base / d, real_root, _rel(rel_folder, d), problems))
        for name in sorted(files):
            path, rel = base / name, _rel(rel_folder, name)
            if name == MANIFEST_NAME:
                manifests[rel_folder] = path
            elif _is_page(name) and _addressable(rel, problems) and _inside(path, real_root, rel, problems) and path.is_file():
                pages[rel] = path
    return Found(dict(sorted(pages.items())), manifests, tuple(sorted(problems, key=lambda p: p.path)))


def _rel(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _is_page(name: str) -> bool:
    lower = name.lower()
    return not name.startswith(".") and lower.endswith(MARKDOWN_SUFFIXES) and TEMPLATE_MARK not in lower


def _addressable(rel: str, problems: list[Problem]) -> bool:
    """Whether chunk IDs of this path can be parsed back: '#' separates path from heading path."""
    if "#" in rel or _UNPRINTABLE.search(rel):
        problems.append(
            Problem(rel, "its path contains '#' or a control character, which chunk IDs cannot carry; skipped it. Rename the file.")
        )
        return False
    return True


def _keep_dir(path: Path, real_root: Path, rel: str, problems: list[Problem]) -> bool:
    if path.name.startswith("."):
        return False
    if not path.is_symlink():
        return True
    # os.walk does not follow folder symlinks; one that stays inside is indexed where it points.
    _inside(path, real_root, rel, problems)
    return False


def _inside(path: Path, real_root: Path, rel: str, problems: list[Problem]) -> bool:
    if not path.is_symlink():
        return True
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        problems.append(Problem(rel, "broken symlink; skipped it. Remove the link or fix its target."))
        return False
    if not target.is_relative_to(real_root):
        problems.append(
            Problem(rel, f"symlink leaves the docs root (points to {target}); skipped it. Copy the file into the docs folder instead.")
        )
        return False
    return True
