"""MyST markdown (Sphinx's markdown) as search reads it: roles, target labels and directive fences.

A page rendered by Sphinx with myst-parser shows ``{func}`echo``` as ``echo``, a target label line
``(options)=`` as nothing (it names the heading after it), and a fence ```` ```{note} ```` as a note
box. Read as plain markdown they put the role names (``func``, ``class``, ``meth``) into every section's
words, hand a label's words to the section *before* the heading it names, and keep a note's markdown
(link URLs included) as if it were code. The page's own text (``content``, what ``get_doc`` returns)
stays as written; only the search text changes. Headings keep their roles: a heading's text makes its
chunk ID, which must not move.

A fence whose name MyST does not define (R Markdown's ```` ```{r} ````, Quarto's ```` ```{python} ````)
stays code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# `(options)=` on a line of its own: a cross-reference target for the heading that follows.
TARGET_LABEL = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
# A role ({func}, {py:class}) right before an inline code span, at the start of the text or after a space or an
# opening mark. Found from the text's last brace and the title from the code's last "<", never by a pattern that
# backtracks: a page's text is untrusted, and a lazy match before trailing spaces is quadratic in them.
_ROLE = re.compile(r"\{[a-z][a-z0-9]*(?:[:-][a-z0-9]+)*\}")
_BEFORE_ROLE = " \t\n([\"'\u2014"
# A fence's info string: ```{name} argument
_DIRECTIVE = re.compile(r"^\{(?P<name>[a-z][\w:.-]*)\}[ \t]*(?P<argument>.*)$", re.DOTALL)
# A colon fence's opening line: :::{name} argument (closing `:::` lines are plain Docusaurus markers); the
# argument is stripped after the match (see _ROLE for why).
COLON_FENCE = re.compile(r"^\s*:{3,}\{(?P<name>[a-z][\w:.-]*)\}(?P<argument>.*)$")
_CLOSING_COLON_FENCE = re.compile(r"^\s*:{3,}\s*$")
# A directive's option lines (`:caption: Example`, `:linenos:`), at the start of its body.
OPTION = re.compile(r"^\s*:[\w-]+:(?:[ \t].*)?$")

# Directives whose body is markdown a reader sees (admonitions, version notes, containers).
_PROSE = frozenset(
    "admonition attention caution danger error hint important note seealso tip warning todo "
    "versionadded versionchanged versionremoved deprecated dropdown topic sidebar margin epigraph "
    "card tab-item tab-set grid grid-item grid-item-card glossary rubric figure table list-table".split()
)
# Directives whose body is code or literal text.
_CODE = frozenset("code code-block sourcecode code-cell math literal parsed-literal".split())
# Directives that show no text of their own here: a table of contents, a file include (not read),
# the module context, a picture.
_SILENT = frozenset(
    "toctree contents include literalinclude currentmodule module image highlight default-role "
    "tabularcolumns index only raw rst-class".split()
)
# API descriptions: the argument is the object's name (`{autofunction} click.echo`), the body its text.
_API = re.compile(
    r"^(?:auto\w+|(?:py:|c:|cpp:|js:)?(?:function|class|method|attribute|data|exception|decorator|property))$"
)


@dataclass(frozen=True)
class Directive:
    """A MyST directive fence: its name, the argument after it and its body, option lines left out."""

    name: str
    argument: str
    body: str


def directive(info: str, raw: str) -> Directive | None:
    """The directive a fence holds when its info string names one MyST defines, else None (code)."""
    m = _DIRECTIVE.match(info.strip())
    if not m:
        return None
    name = m.group("name")
    if not (name in _PROSE or name in _CODE or name in _SILENT or name == "eval-rst" or _API.match(name)):
        return None
    return Directive(name, " ".join(m.group("argument").split()), _without_options(raw))


def directive_text(found: Directive, prose: Callable[[str], str]) -> str:
    """What search reads of a directive: prose bodies through ``prose`` (markdown -> text), code as written."""
    if found.name in _SILENT:
        return ""
    if found.name in _CODE or found.name == "eval-rst":
        return found.body.strip("\n")
    return "\n".join(part for part in (found.argument, prose(found.body)) if part)


def role_text(role_and_text: str, code: str) -> tuple[str, str] | None:
    """``(text before the role, what the reader sees)`` when ``role_and_text`` ends in a role before ``code``."""
    start = role_and_text.rfind("{")
    if (
        start < 0
        or not _ROLE.fullmatch(role_and_text, start)
        or (start and role_and_text[start - 1] not in _BEFORE_ROLE)
    ):
        return None
    seen = code
    opens = code.rfind("<")
    if code.endswith(">") and opens > 0 and code[:opens].strip() and ">" not in code[opens + 1 : -1]:
        seen = code[:opens].rstrip()  # `title <target>`: the reader sees the title
    return role_and_text[:start], seen.lstrip("~!")


def colon_fence_argument(line: str) -> str | None:
    """The argument of a colon fence's opening line (``:::{note} Title`` -> ``Title``), None for any other line."""
    found = COLON_FENCE.match(line)
    return found.group("argument").strip() if found else None


def colon_fences_open(depth: int, text: str) -> int:
    """How many colon fences are open after a paragraph's ``text``, ``depth`` of them open before it."""
    for line in text.split("\n"):
        if COLON_FENCE.match(line):
            depth += 1
        elif depth and _CLOSING_COLON_FENCE.match(line):
            depth -= 1
    return depth


def _without_options(raw: str) -> str:
    """A directive body less its leading option lines, or its leading ``---`` YAML block of options."""
    lines = raw.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            return "\n".join(lines[end + 1 :])
    start = 0
    while start < len(lines) and OPTION.match(lines[start]):
        start += 1
    return "\n".join(lines[start:])
