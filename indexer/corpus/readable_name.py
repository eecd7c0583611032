"""What to call a documentation set nobody named: what its site generator's configuration calls it, else a folder
name that names something (``flask``, not ``docs``); and "X documentation" said once.

The server's instructions and the agent rule say "the Flask documentation ... code that uses Flask": a folder
named ``docs`` or ``html`` names no library ("code that uses docs"), and a page title that already says
"documentation" must not get a second one ("the Python 3.11.2 documentation documentation").
The configuration files are read as text, never run (a ``conf.py`` is Python: only its ``project = "..."`` line is read).
"""

from __future__ import annotations

import re
from pathlib import Path

# Folders named for what they hold, not for whose it is: the name is looked for further up.
GENERIC_FOLDERS = frozenset(
    {"docs", "doc", "documentation", "html", "_build", "build", "site", "_site", "public", "source", "src", "content"}
)
_LANGUAGE_FOLDER = re.compile(
    r"^[a-z]{2}([-_][a-z]{2,4})?$", re.IGNORECASE
)  # a translation's folder: en, zh, pt-BR, zh_Hant
_MAX_LEVELS = 4  # docs/zh/docs/html: at most this many folders up
_MAX_CONFIG_BYTES = 64 * 1024
_MKDOCS = ("mkdocs.yml", "mkdocs.yaml")
_SITE_NAME = re.compile(r"^site_name:\s*['\"]?(?P<name>[^'\"#\n]+?)['\"]?\s*(#.*)?$", re.MULTILINE)
_INHERIT = re.compile(r"^INHERIT:\s*['\"]?(?P<path>[^'\"#\n]+?)['\"]?\s*$", re.MULTILINE)
_SPHINX_PROJECT = re.compile(r"^project\s*=\s*(['\"])(?P<name>[^'\"\n]+)\1", re.MULTILINE)
_DOCUMENTATION_SUFFIX = re.compile(r"\s*[-:|]?\s*\b(documentation|docs)\s*$", re.IGNORECASE)


def readable_name(root: Path) -> str:
    """The name of the documentation in the folder ``root``: mkdocs.yml's ``site_name`` or Sphinx's ``project``
    (in the folder or its parent), else the nearest folder name from ``root`` up that is not generic."""
    folder = Path(root).resolve()
    configured = _configured_name(folder) or _configured_name(folder.parent)
    if configured:
        return configured
    for candidate in [folder, *folder.parents][:_MAX_LEVELS]:
        if (
            candidate.name
            and candidate.name.lower() not in GENERIC_FOLDERS
            and not _LANGUAGE_FOLDER.match(candidate.name)
        ):
            return candidate.name
    return folder.name or "local"


def documentation_of(name: str) -> str:
    """'Flask documentation'; a name that already says it stays as it is ('Python 3.11.2 documentation')."""
    return name if _DOCUMENTATION_SUFFIX.search(name) else f"{name} documentation"


def library_name(name: str) -> str:
    """A name as a library's: 'Python 3.11.2' for 'Python 3.11.2 documentation' ('code that uses Python 3.11.2')."""
    return _DOCUMENTATION_SUFFIX.sub("", name).strip() or name


def _configured_name(folder: Path) -> str:
    for config in _MKDOCS:
        text = _read(folder / config)
        named = _SITE_NAME.search(text)
        inherited = _INHERIT.search(text)
        base = (folder / inherited["path"].strip()).resolve() if inherited else None
        if not named and base is not None and base.name in _MKDOCS and base.is_relative_to(folder.parent):
            # A translation's mkdocs.yml inherits the main one (FastAPI's docs/zh/mkdocs.yml: INHERIT: ../en/mkdocs.yml),
            # a sibling folder's, never a file elsewhere on the machine.
            named = _SITE_NAME.search(_read(base))
        if named:
            return named["name"].strip()
    project = _SPHINX_PROJECT.search(_read(folder / "conf.py"))
    return project["name"].strip() if project else ""


def _read(path: Path) -> str:
    try:
        with path.open("rb") as file:
            return file.read(_MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
