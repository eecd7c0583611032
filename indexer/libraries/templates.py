"""Prompt templates: ``*.template.md`` files of a corpus, read into the index instead of being searched.

A template is markdown with optional YAML front matter (``name``, ``title``,
``description``, ``arguments: [{name, description, required}]``) and a Mustache body
(``{{arg}}``, ``{{#arg}}..{{/arg}}``).  The server offers each one as an MCP prompt.
A bad template is a problem of that file, never a failed build.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.discover import MARKDOWN_SUFFIXES, TEMPLATE_MARK
from docs_mcp.indexer.records import Problem

_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a prompt template."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt read from a ``*.template.md`` file (``path`` relative to the docs root)."""

    name: str
    path: str
    template: str
    title: str = ""
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()

    def as_json(self, library: str) -> dict[str, Any]:
        """The prompt as metadata.json stores it, attributed to ``library``."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required} for a in self.arguments
            ],
            "template": self.template,
            "library": library,
            "path": self.path,
        }


def find_templates(root: Path) -> tuple[tuple[PromptTemplate, ...], tuple[Problem, ...]]:
    """Every readable prompt template under ``root`` in path order, and a problem for each bad one.

    Hidden folders are skipped and symlinks are not followed, as for pages.
    """
    templates: list[PromptTemplate] = []
    problems: list[Problem] = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (base / d).is_symlink())
        for name in sorted(files):
            path = base / name
            if _is_template(name) and not path.is_symlink():
                rel = path.relative_to(root).as_posix()
                try:
                    templates.append(parse_template(rel, path.read_text(encoding="utf-8-sig")))
                except (OSError, UnicodeDecodeError) as exc:
                    problems.append(
                        Problem(rel, f"cannot read this prompt template ({exc}); skipped it. Re-save it as UTF-8.")
                    )
                except ValueError as exc:
                    problems.append(Problem(rel, f"{exc} Skipped this prompt template."))
    return tuple(sorted(templates, key=lambda t: t.path)), tuple(problems)


def parse_template(path: str, text: str) -> PromptTemplate:
    """Read one template file; ``path`` names it in messages and gives the default name.

    Raises:
        ValueError: the front matter is not a YAML mapping of the fields above, or the body is empty.
    """
    text = text.replace("\r\n", "\n")
    match = _FRONT.match(text)
    data: Any = {}
    if match:
        import yaml  # here, not at the top: a server's start reads no template (PyYAML, 20 ms)

        try:
            data = yaml.safe_load(match.group(1) or "") or {}
        except yaml.YAMLError as exc:
            raise ValueError(f"front matter is not valid YAML ({exc.__class__.__name__}).") from None
        text = text[match.end() :]
    if not isinstance(data, dict):
        raise ValueError("front matter must be a YAML mapping (name, title, description, arguments).")
    body = text.strip()
    if not body:
        raise ValueError("the template body is empty.")
    default_name = path.rsplit("/", 1)[-1].lower().split(TEMPLATE_MARK, 1)[0]
    name = str(data.get("name") or default_name)
    if not _NAME.fullmatch(name):
        raise ValueError(f"prompt name {name!r} must be 1-64 letters, digits, '_', '.' or '-'.")
    return PromptTemplate(
        name=name,
        path=path,
        template=body,
        title=_field(data, "title"),
        description=_field(data, "description"),
        arguments=_arguments(data.get("arguments")),
    )


def _is_template(name: str) -> bool:
    lower = name.lower()
    return not name.startswith(".") and TEMPLATE_MARK in lower and lower.endswith(MARKDOWN_SUFFIXES)


def _field(data: dict[str, Any], key: str) -> str:
    value = data.get(key) or ""
    if not isinstance(value, str):
        raise ValueError(f"front matter `{key}` must be text.")
    return value.strip()


def _arguments(raw: Any) -> tuple[PromptArgument, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ValueError("front matter `arguments` must be a list of {name, description, required}.")
    out = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            raise ValueError("each entry of `arguments` needs a `name`.")
        required = item.get("required", False)
        if not isinstance(required, bool):
            raise ValueError(f"`required` of argument {item['name']!r} must be true or false.")
        out.append(PromptArgument(item["name"].strip(), str(item.get("description") or "").strip(), required))
    return tuple(out)
