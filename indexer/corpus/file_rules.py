"""What a walk of a docs folder leaves out, and why: .gitignore files, folders docs never live in, globs.

By default a walk skips what git ignores (every ``.gitignore`` from the repository's top down to
each folder, nested ones included, as git reads them), dependencies (``node_modules``, a
virtualenv: any folder holding ``pyvenv.cfg``), build outputs (``_build``, ``site``, ``dist``,
``build``...) and hidden files and folders. Include and exclude globs (``--include``/``--exclude``,
a manifest's ``include``/``exclude``) are relative to the docs root: a file must match an include
glob when there are any, and must match no exclude glob; a glob without a slash matches a name at
any depth (``*.rst``), as in .gitignore. An include glob that names a skipped folder (``site/**``)
opens it again. The folder given to index is never skipped itself, and the files of ``.git`` folders
are not counted (they are the repository's, not the docs').
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docs_mcp.indexer.corpus.manifest import glob_regex

if TYPE_CHECKING:  # pathspec loads when a walk reads a .gitignore, not when the CLI starts
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"
DEPENDENCY_DIRS = frozenset({"node_modules", "bower_components", "jspm_packages", "site-packages", "__pypackages__"})
BUILD_DIRS = frozenset(
    {"_build", "build", "dist", "site", "_site", "target", "__pycache__", "htmlcov", ".tox", ".nox", ".eggs"}
)
# Folders that are a Python or conda environment, whatever their name.
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")
# Pages documentation generators write that only list other pages (Sphinx, MkDocs).
GENERATED_PAGES = frozenset({"genindex.html", "search.html", "py-modindex.html", "modindex.html", "404.html"})

# Why a file was skipped: the key counts in the build summary, the label says it to people.
REASONS = {
    "gitignored": "ignored by .gitignore",
    "dependencies": "in dependency folders (node_modules, virtualenvs)",
    "build": "in build outputs (_build, site, dist, build, ...)",
    "hidden": "hidden",
    "excluded": "excluded by a glob (--exclude, manifest)",
    "not-included": "outside the include globs (--include, manifest)",
    "generated": "generated index and search pages",
    "template": "prompt templates (*.template.md)",
    "other": "not documentation",
}
# Counting the files of a skipped folder stops here (node_modules can hold a million).
COUNT_CAP = 100_000


@dataclass(frozen=True)
class FileRules:
    """The globs and switches that decide which files of a docs folder are read."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True  # honour .gitignore files
    skip_defaults: bool = True  # skip dependencies and build outputs

    def merged(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> FileRules:
        """These rules with more globs (a manifest's beside the command line's)."""
        return FileRules(self.include + include, self.exclude + exclude, self.gitignore, self.skip_defaults)


@dataclass(frozen=True)
class _Ignore:
    """One .gitignore: a path relative to the docs root is matched as ``prefix + path[len(strip):]``."""

    strip: str  # the .gitignore's folder inside the docs root, with a slash ('' for the root or above it)
    prefix: str  # the path from a .gitignore above the docs root down to the root, with a slash
    spec: GitIgnoreSpec

    def says(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by a ``!`` pattern) or None (no pattern matches)."""
        result = self.spec.check_file(self.prefix + rel[len(self.strip) :] + ("/" if is_dir else ""))
        return None if result.include is None else bool(result.include)


class Judge:
    """Decides, folder by folder during one walk, what is skipped and why."""

    def __init__(self, root: Path, rules: FileRules) -> None:
        self.rules = rules
        self._include = [glob_regex(_anywhere(_clean(p))) for p in rules.include]
        self._exclude = [glob_regex(_anywhere(_clean(p))) for p in rules.exclude]
        # The fixed folder part of each include glob ("site/**" -> "site/"): such a folder is opened again.
        self._opened = tuple(_fixed_prefix(_clean(p)) for p in rules.include)
        self._above = _ancestor_ignores(root) if rules.gitignore else []
        self._ignores: dict[str, list[_Ignore]] = {}

    def enter(self, folder: Path, rel: str) -> None:
        """Read ``folder``'s .gitignore (if any) before its entries are judged; ``rel`` is '' for the root."""
        inherited = self._ignores.get(rel.rpartition("/")[0], self._above) if rel else self._above
        own = _read_ignore(folder / GITIGNORE) if self.rules.gitignore else None
        self._ignores[rel] = inherited + [_Ignore(rel + "/" if rel else "", "", own)] if own is not None else inherited

    def folder(self, path: Path, rel: str) -> str | None:
        """Why the folder at ``rel`` is skipped, or None to walk into it."""
        name = path.name
        if self._opened_by_include(rel):
            return None
        if name.startswith("."):
            return "hidden"
        if self.rules.skip_defaults:
            if name in DEPENDENCY_DIRS or any((path / marker).exists() for marker in ENVIRONMENT_MARKERS):
                return "dependencies"
            if name in BUILD_DIRS or name.endswith(".egg-info"):
                return "build"
        if self._ignored(rel, is_dir=True):
            return "gitignored"
        if any(pattern.fullmatch(rel + "/") for pattern in self._exclude):
            return "excluded"
        return None

    def file(self, rel: str) -> str | None:
        """Why the file at ``rel`` is skipped (before its format is looked at), or None to read it."""
        name = rel.rpartition("/")[2]
        if name.startswith("."):
            return "hidden"
        if self._ignored(rel, is_dir=False):
            return "gitignored"
        if any(pattern.fullmatch(rel) for pattern in self._exclude):
            return "excluded"
        if self._include and not any(pattern.fullmatch(rel) for pattern in self._include):
            return "not-included"
        if self.rules.skip_defaults and name.lower() in GENERATED_PAGES and not self._include:
            return "generated"
        return None

    def _opened_by_include(self, rel: str) -> bool:
        return any(prefix and (prefix == rel + "/" or prefix.startswith(rel + "/")) for prefix in self._opened)

    def _ignored(self, rel: str, *, is_dir: bool) -> bool:
        # The deepest .gitignore that says anything about the path decides (git's precedence).
        for ignore in reversed(self._ignores.get(rel.rpartition("/")[0], self._above)):
            verdict = ignore.says(rel, is_dir)
            if verdict is not None:
                return verdict
        return False


def count_files(folder: Path) -> int:
    """How many files are under ``folder`` (symlinks not followed), up to ``COUNT_CAP``."""
    count = 0
    for _, _, files in os.walk(folder):
        count += len(files)
        if count >= COUNT_CAP:
            return COUNT_CAP
    return count


def _ancestor_ignores(root: Path) -> list[_Ignore]:
    """The .gitignore files from the repository's top down to the docs root's parent.

    None when the root is not inside a git work tree, or when one of them ignores the root itself
    (the user asked for this very folder).
    """
    resolved = root.resolve()
    chain = []
    for ancestor in resolved.parents:
        chain.append(ancestor)
        if (ancestor / ".git").exists():
            break
    else:
        return []
    specs = []
    for ancestor in reversed(chain):
        spec = _read_ignore(ancestor / GITIGNORE)
        if spec is None:
            continue
        to_root = resolved.relative_to(ancestor).as_posix()
        if spec.match_file(to_root + "/"):
            return []
        specs.append(_Ignore("", to_root + "/", spec))
    return specs


def _read_ignore(path: Path) -> GitIgnoreSpec | None:
    from pathspec import GitIgnoreSpec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return GitIgnoreSpec.from_lines(lines)


def _clean(pattern: str) -> str:
    return pattern.strip().removeprefix("./")


def _anywhere(pattern: str) -> str:
    """A glob without a slash matches a name at any depth, as in .gitignore: ``*.rst`` is ``**/*.rst``."""
    return pattern if "/" in pattern.rstrip("/") else "**/" + pattern


def _fixed_prefix(pattern: str) -> str:
    """The folders an include glob names before its first wildcard: ``site/api/**`` -> ``site/api/``."""
    cut = min((i for i, c in enumerate(pattern) if c in "*?[{"), default=len(pattern))
    head = pattern[:cut]
    return head[: head.rfind("/") + 1]
