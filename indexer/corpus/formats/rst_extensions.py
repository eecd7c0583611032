"""Sphinx's directives and roles as plain docutils understands them, and a fallback for any other.

docutils alone knows neither ``code-block`` nor ``:func:``; a Sphinx project's pages would come out
as error messages. Each Sphinx construct maps to the docutils node that reads the same (a literal
block with its language, a paragraph, inline code), an object description (``.. py:function::``)
to its signature in code followed by its body, and any directive or role nobody knows keeps its
content (directive) or its text (role), so no words are lost to an extension we do not have.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives

CODE_ROLES = frozenset(
    "func meth class mod attr data const exc obj type member var macro enum enumerator struct union "
    "function method property option envvar program command file samp code kbd keyword token literal "
    "makevar mimetype regexp".split()
)
# Directives whose argument names a documented object: the signature is shown as code.
OBJECT_DIRECTIVES = frozenset(
    "function method class attribute data exception module decorator decoratormethod classmethod staticmethod "
    "property type member var macro enum enumerator struct union option envvar describe object program "
    "autofunction automethod autoclass autoattribute autodata autoexception automodule autoproperty autodecorator".split()
)
# Directives whose content is not prose: tables of contents, index entries, settings.
SILENT_DIRECTIVES = frozenset(
    "toctree index currentmodule sectionauthor moduleauthor codeauthor tabularcolumns default-role default-domain "
    "py:currentmodule c:namespace cpp:namespace js:module highlightlang autosummary-toctree raw meta testsetup testcleanup "
    # docutils' own page furniture: a table of contents (the chunks are the sections), numbering, running heads
    "contents sectnum header footer".split()
)
CODE_DIRECTIVES = frozenset("code-block sourcecode code testcode doctest testoutput ipython jupyter-execute".split())
# Their argument is a test group, not a language.
_TEST_LANGUAGES = {"testcode": "python", "doctest": "pycon", "testoutput": "text"}
# docutils' ``class`` directive sets classes (``.. class:: special``); Sphinx's documents a class.
_CLASS_NAMES = re.compile(r"[a-z][a-z0-9_-]*(?:\s+[a-z][a-z0-9_-]*)*")
VERSION_DIRECTIVES = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
HIGHLIGHT = "highlight_language"
CURRENT_MODULE = "docs_mcp_current_module"  # the document attribute a `module` directive sets
CURRENT_OBJECT = "docs_mcp_current_object"  # the API object whose description is being read
# Object descriptions Sphinx names with the current module (a method or attribute sits in its class).
_MODULE_LEVEL = frozenset(
    "function class exception data decorator autofunction autoclass autoexception autodata autodecorator".split()
)  # the attribute of the marker a `highlight` directive leaves
_TARGET = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)


class CodeBlock(Directive):
    """``.. code-block:: python`` (and its Sphinx relatives): a literal block with its language."""

    optional_arguments = 1
    has_content = True
    final_argument_whitespace = False
    option_spec: Any = {"caption": directives.unchanged, "name": directives.unchanged, "class": directives.unchanged,
                        "linenos": directives.flag, "lineno-start": directives.unchanged, "emphasize-lines": directives.unchanged,
                        "dedent": directives.unchanged, "force": directives.flag, "hide": directives.flag,
                        "options": directives.unchanged, "number-lines": directives.unchanged, "pyversion": directives.unchanged,
                        "skipif": directives.unchanged, "trim-doctest-flags": directives.flag, "no-trim-doctest-flags": directives.flag}  # fmt: skip

    def run(self) -> list[nodes.Node]:
        if self.name in _TEST_LANGUAGES:
            language = _TEST_LANGUAGES[self.name]
        else:
            language = self.arguments[0] if self.arguments else ""  # the writer applies the `highlight` language
        block = nodes.literal_block("\n".join(self.content), "\n".join(self.content))
        block["language"] = language
        caption = self.options.get("caption")
        return [nodes.paragraph("", "", nodes.strong(caption, caption)), block] if caption else [block]


class Highlight(Directive):
    """``.. highlight:: python``: the language of the ``::`` blocks that follow."""

    required_arguments = 1
    option_spec: Any = {"linenothreshold": directives.unchanged, "force": directives.flag}

    def run(self) -> list[nodes.Node]:
        marker = nodes.comment()
        marker[HIGHLIGHT] = self.arguments[0]  # the writer meets it in document order
        return [marker]


class VersionNote(Directive):
    """``.. versionadded:: 3.2`` with optional text: one paragraph that says it."""

    required_arguments = 1
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = None

    def run(self) -> list[nodes.Node]:
        version, *rest = self.arguments[0].split(None, 1) + ([self.arguments[1]] if len(self.arguments) > 1 else [])
        label = f"{VERSION_DIRECTIVES[self.name]} {version}"
        lead = nodes.paragraph("", "", nodes.emphasis(label, label + (":" if rest or self.content else ".")))
        if rest:
            text_nodes, _ = self.state.inline_text(" " + " ".join(rest), self.lineno)
            lead.extend(text_nodes)
        body = nodes.container()
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, body)
        return [lead, *body.children]


class _AnyOptions(dict[str, Any]):
    """An option spec that accepts every option as text."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


class AnyDirective(Directive):
    """Any other directive: its content parsed as body text; an object description's signature first.

    Used only for names that neither this module nor docutils knows.
    """

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec: Any = _AnyOptions()  # every option accepted, only a module's synopsis shown

    def run(self) -> list[nodes.Node]:
        short = self.name.rsplit(":", 1)[-1]
        argument = " ".join(self.arguments).strip()
        if short in ("module", "currentmodule") and self.name in (
            "module",
            "currentmodule",
            "py:module",
            "py:currentmodule",
        ):
            self.state.document[CURRENT_MODULE] = argument  # Sphinx shows the functions that follow with it
        if self.name in SILENT_DIRECTIVES or short in SILENT_DIRECTIVES:
            return []
        out: list[nodes.Node] = []
        if short == "module":
            synopsis = str(self.options.get("synopsis") or "").strip()
            return [nodes.paragraph(synopsis, synopsis)] if synopsis else []
        if argument and (short in OBJECT_DIRECTIVES or ":" in self.name):
            return [self._description(short, argument)]
        if short == "code-tab":  # sphinx-tabs: `.. code-tab:: py [Label]`, its content is code
            return self._code_tab(argument)
        if argument and self.name in (
            "seealso",
            "tab",
            "group-tab",
            "tab-item",
            "dropdown",
            "card",
            "grid-item-card",
            "topic",
        ):
            out.append(nodes.paragraph("", "", nodes.strong(argument, argument)))
        out.extend(self._body())
        return out

    def _description(self, short: str, argument: str) -> nodes.Element:
        """An API object: named by its qualified name (the writer makes it a heading), its signatures, its description."""
        document = self.state.document
        module = str(document.get(CURRENT_MODULE) or "")
        enclosing = str(document.get(CURRENT_OBJECT) or "")
        signatures = [line.strip() for line in argument.split("\n") if line.strip()]
        name = object_name(signatures[0])
        prefix = enclosing or (
            module if short in _MODULE_LEVEL and (":" not in self.name or self.name.startswith("py:")) else ""
        )
        qualified = name if not prefix or name.startswith(prefix + ".") else f"{prefix}.{name}"
        node = object_description(name=qualified)
        node.extend(nodes.paragraph("", "", nodes.literal(signature, signature)) for signature in signatures)
        document[CURRENT_OBJECT] = qualified  # methods and attributes inside are named with it
        try:
            node.extend(self._body())
        finally:
            document[CURRENT_OBJECT] = enclosing
        return node

    def _code_tab(self, argument: str) -> list[nodes.Node]:
        """A tab of code: its label (the given one, else the language), then the code in that language."""
        language, _, label = argument.partition(" ")
        label = label.strip() or language
        block = nodes.literal_block("\n".join(self.content), "\n".join(self.content))
        block["language"] = language
        return [nodes.paragraph("", "", nodes.strong(label, label)), block] if label else [block]

    def _body(self) -> list[nodes.Node]:
        if not self.content:
            return []
        body = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, body)
        return list(body.children)


class object_description(nodes.General, nodes.Element):  # noqa: N801 - docutils names node classes in lower case
    """An API object (``.. function::``, ``.. autoclass::``): ``name`` is its qualified name."""


def object_name(signature: str) -> str:
    """The name a signature declares: ``async lru_cache(maxsize=128)`` -> ``lru_cache``, ``int PyList_Size(PyObject *list)`` -> ``PyList_Size``."""
    head = signature.split("(", 1)[0].strip().lstrip("@")
    return head.split()[-1] if head.split() else signature


class ClassDirective(AnyDirective):
    """``.. class::``: Sphinx's class description, unless it reads as docutils' ``.. class:: special`` (no content)."""

    def run(self) -> list[nodes.Node]:
        argument = " ".join(self.arguments).strip()
        if self.content or not _CLASS_NAMES.fullmatch(argument):
            return super().run()
        from docutils.parsers.rst.directives.misc import Class

        return Class(self.name, self.arguments, self.options, self.content, self.lineno,
                     self.content_offset, self.block_text, self.state, self.state_machine).run()  # fmt: skip


def directive_for(name: str) -> type[Directive] | None:
    """The Sphinx directive class for ``name`` (``py:function`` too), or None: docutils' own, else AnyDirective."""
    short = name.lower().rsplit(":", 1)[-1]
    if name.lower() in SILENT_DIRECTIVES:
        return AnyDirective
    if short == "class" and ":" not in name:
        return ClassDirective
    if short in CODE_DIRECTIVES or name.lower() in CODE_DIRECTIVES:
        return CodeBlock
    if short == "highlight":
        return Highlight
    if short in VERSION_DIRECTIVES:
        return VersionNote
    return None


def any_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> tuple[list[nodes.Node], list[nodes.Node]]:
    """A role nobody registered: ``:func:`x``` as code, ``:ref:`Title <label>``` as its title."""
    text = text.replace("\x00", "")
    match = _TARGET.match(text)
    shown = match.group("title") if match and match.group("title") else (match.group("target") if match else text)
    shown = shown.lstrip("~!")
    short = name.lower().rsplit(":", 1)[-1]
    if short in CODE_ROLES or (":" in name and short not in ("ref", "doc", "term", "numref", "any")):
        return [nodes.literal(rawtext, shown)], []
    return [nodes.inline(rawtext, shown)], []
