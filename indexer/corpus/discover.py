"""Walk a docs folder: find the pages and manifests, count what is skipped and why, refuse what must not be read.

Pages are the files of a format docs-mcp reads (indexer/corpus/formats: markdown, MDX, reStructuredText,
HTML, notebooks). What git ignores, dependencies, build outputs, hidden files and folders and
``*.template.md`` prompt templates are skipped (indexer/corpus/file_rules), each counted by reason, and
every other file is counted by suffix, so a build can say what it left out. A symlink may point
anywhere inside the docs root; one that leaves it is reported and not followed, so indexing never
reads files outside the folder it was given.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from docs_mcp.indexer.corpus.file_rules import GITIGNORE, FileRules, Judge, count_files
from docs_mcp.indexer.corpus.formats import MARKDOWN_SUFFIXES, is_markdown, is_page
from docs_mcp.indexer.corpus.manifest import MANIFEST_NAME
from docs_mcp.indexer.errors import CorpusNotFoundError
from docs_mcp.indexer.records import Problem

__all__ = ["MARKDOWN_SUFFIXES", "METADATA_NAME", "TEMPLATE_MARK", "Found", "discover"]

TEMPLATE_MARK = ".template."
METADATA_NAME = "metadata.json"
NO_SUFFIX = "(no suffix)"


@dataclass(frozen=True)
class Found:
    """What a walk of the docs root found: pages and manifests (root-relative -> absolute), problems, what it skipped."""

    pages: dict[str, Path]
    manifests: dict[str, Path]  # folder ('' for the root) -> manifest file
    problems: tuple[Problem, ...]
    skipped: Mapping[str, int] = field(default_factory=dict)  # file_rules.REASONS key -> files
    other_files: Mapping[str, int] = field(default_factory=dict)  # suffix -> files that are no documentation


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def discover(root: Path, rules: FileRules | None = None) -> Found:
    """Find every page and manifest under ``root``, in sorted path order.

    Raises:
        CorpusNotFoundError: ``root`` does not exist or is not a folder.
    """
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise CorpusNotFoundError(f"docs folder {root} {what}.", "Pass the folder that holds your documentation.")
    real_root = root.resolve()
    judge = Judge(root, rules or FileRules())
    pages: dict[str, Path] = {}
    manifests: dict[str, Path] = {}
    problems: list[Problem] = []
    skipped: Counter[str] = Counter()
    others: Counter[str] = Counter()

    def unreadable(exc: OSError) -> None:
        rel = Path(exc.filename).relative_to(root).as_posix() if exc.filename else str(root)
        problems.append(Problem(rel, f"cannot read this folder ({exc.strerror}); skipped it. Check its permissions."))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        base = Path(folder)
        rel_folder = base.relative_to(root).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder
        judge.enter(base, rel_folder)
        kept = []
        for name in sorted(dirs):
            path, rel = base / name, _rel(rel_folder, name)
            reason = judge.folder(path, rel)
            if reason:
                skipped[reason] += count_files(path) if name != ".git" else 0
            elif _walk_into(path, real_root, rel, problems):
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path, rel = base / name, _rel(rel_folder, name)
            if name == MANIFEST_NAME:
                manifests[rel_folder] = path
                continue
            if name == GITIGNORE or (name == METADATA_NAME and not rel_folder):
                continue  # read by the rules and by the scan, not skipped
            reason = judge.file(rel) or _kind(name)
            if reason == "other":
                others[_suffix(name)] += 1
            elif reason:
                skipped[reason] += 1
            elif _addressable(rel, problems) and _inside(path, real_root, rel, problems) and path.is_file():
                pages[rel] = path
    return Found(
        dict(sorted(pages.items())),
        manifests,
        tuple(sorted(problems, key=lambda p: p.path)),
        dict(sorted(skipped.items())),
        dict(sorted(others.items(), key=lambda item: (-item[1], item[0]))),
    )


def _kind(name: str) -> str | None:
    """Why a file that passed the rules is still not a page (None: it is one)."""
    if not is_page(name):
        return "other"
    if is_markdown(name) and TEMPLATE_MARK in name.lower():
        return "template"
    return None


def _suffix(name: str) -> str:
    return PurePosixPath(name).suffix.lower() or NO_SUFFIX


def _rel(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _addressable(rel: str, problems: list[Problem]) -> bool:
    """Whether chunk IDs of this path can be parsed back: '#' separates path from heading path."""
    if "#" in rel or _UNPRINTABLE.search(rel):
        problems.append(
            Problem(
                rel,
                "its path contains '#' or a control character, which chunk IDs cannot carry; skipped it. Rename the file.",
            )
        )
        return False
    return True


def _walk_into(path: Path, real_root: Path, rel: str, problems: list[Problem]) -> bool:
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
            Problem(
                rel,
                f"symlink leaves the docs root (points to {target}); skipped it. Copy the file into the docs folder instead.",
            )
        )
        return False
    return True
