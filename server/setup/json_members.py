"""Add, replace or remove one member of a JSON object inside a client's config file, keeping the rest byte for byte.

Client config files are edited by people and by the clients themselves: their other entries,
comments (VS Code's ``mcp.json`` is JSON with comments), indentation and key order must survive.
So the file is never re-serialised.  A small parser records where each member lies, and an edit
splices text in or out at those offsets:

- an added member is appended after the object's last member (``,`` newline, indentation, member)
  or, in an empty object, right after its ``{``; nothing the file held is rewritten, so removing the
  member again (the same span) gives back the original bytes;
- a container object that did not exist (``mcpServers``) is added the same way, as a member of
  its parent; removing the last member we added removes the container again, when it has the
  shape we wrote;
- the new text follows the file's own indentation (spaces, tabs or a one-line file).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from docs_mcp.server.errors import ConfigFileError
from docs_mcp.server.setup.json_spans import Node, Parser

INDENT = "  "  # for a file whose indentation cannot be read (an empty object)
_EMPTY_DOCUMENT = "{\n}\n"  # a document set_member created, once its members are gone


def parse(text: str, path: str = "") -> Any:
    """The document's value (comments and trailing commas allowed).

    Raises:
        ConfigFileError: the text is not JSON.
    """
    return Parser(text, path).document().value


def member_value(text: str, container: Sequence[str], name: str, path: str = "") -> Any:
    """The value of member ``name`` of the object at ``container`` (keys from the top), or None when absent."""
    node = _container(_root(text, path), container, path)
    member = node.member(name) if node is not None else None
    return None if member is None else member.value.value


def set_member(text: str, container: Sequence[str], name: str, value: Any, path: str = "") -> str:
    """``text`` with member ``name`` of the object at ``container`` set to ``value`` (the container is made if missing).

    An equal value leaves ``text`` as it is; another value is replaced in place.

    Raises:
        ConfigFileError: the text is not JSON, or something on the way is not an object.
    """
    if not text.strip():
        return _fresh_document(container, name, value)
    root = _root(text, path)
    node, depth = root, 0
    while depth < len(container):
        found = node.member(container[depth])
        if found is None:
            break
        if not found.value.is_object:
            raise ConfigFileError(path, f"has {'.'.join(container[: depth + 1])!r} that is not an object")
        node, depth = found.value, depth + 1
    if depth < len(container):  # the rest of the container path is new: one nested member holds it all
        nested: Any = {name: value}
        for key in reversed(container[depth + 1 :]):
            nested = {key: nested}
        return _insert(text, node, container[depth], nested)
    existing = node.member(name)
    if existing is None:
        return _insert(text, node, name, value)
    if existing.value.value == value:
        return text
    indent = _line_indent(text, existing.key_start)
    rendered = _render(value, indent, _indent_unit(text, node))
    return text[: existing.value.start] + rendered + text[existing.value.end :]


def remove_member(text: str, container: Sequence[str], name: str, path: str = "") -> str:
    """``text`` without member ``name`` of the object at ``container``: the inverse of ``set_member`` when it added it.

    The containers ``set_member`` made are removed with it when nothing else is left in them;
    a document left empty becomes the empty string (the caller deletes the file).

    Raises:
        ConfigFileError: the text is not JSON.
    """
    if not text.strip():
        return text
    root = _root(text, path)
    chain = [root]
    for key in container:
        found = chain[-1].member(key)
        if found is None or not found.value.is_object:
            return text
        chain.append(found.value)
    if chain[-1].member(name) is None:
        return text
    text = _cut(text, chain[-1], name)
    # Drop containers that held only our member, innermost first, when they look as set_member made them.
    for depth in range(len(container), 0, -1):
        node = _container(_root(text, path), container[:depth], path)
        parent = _container(_root(text, path), container[: depth - 1], path)
        if node is None or parent is None or node.members or not _made_here(text, parent, container[depth - 1], node):
            break
        text = _cut(text, parent, container[depth - 1])
    # What is left of a document set_member created from nothing: the caller deletes the file.
    return "" if text == _EMPTY_DOCUMENT else text


def add_item(text: str, key: str, item: str, path: str = "") -> str:
    """``text`` with the string ``item`` in the top-level array ``key`` (made if missing); unchanged if it is there.

    Raises:
        ConfigFileError: the text is not JSON, or ``key`` is not an array.
    """
    if not text.strip():
        return _fresh_document((), key, [item])
    root = _root(text, path)
    member = root.member(key)
    if member is None:
        return _insert(text, root, key, [item])
    array = member.value
    if not array.is_array:
        raise ConfigFileError(path, f"has {key!r} that is not a list")
    if item in array.value:
        return text
    rendered = json.dumps(item, ensure_ascii=False)
    if not array.items:
        return text[: array.start + 1] + rendered + text[array.start + 1 :]
    last = array.items[-1]
    multi_line = "\n" in text[array.start : array.end]
    lead = (
        ",\n" + _line_indent(text, last.start) if multi_line and text.rfind("\n", 0, last.start) > array.start else ", "
    )
    return text[: last.end] + lead + rendered + text[last.end :]


def remove_item(text: str, key: str, item: str, path: str = "") -> str:
    """``text`` without the string ``item`` in the top-level array ``key``: the inverse of ``add_item``.

    An array add_item made (holding only ``item``) goes with it, and so does a document it created.

    Raises:
        ConfigFileError: the text is not JSON.
    """
    if not text.strip():
        return text
    root = _root(text, path)
    member = root.member(key)
    if member is None or not member.value.is_array or item not in member.value.value:
        return text
    array = member.value
    index = array.value.index(item)
    if len(array.items) == 1:
        if text[array.start : array.end] == "[" + json.dumps(item, ensure_ascii=False) + "]":
            text = _cut(text, root, key)  # the member add_item made
            return "" if text == _EMPTY_DOCUMENT else text
        return text[: array.start + 1] + text[array.items[0].end :]
    if index:
        return text[: array.items[index - 1].end] + text[array.items[index].end :]
    return text[: array.items[0].start] + text[array.items[1].start :]


def _root(text: str, path: str) -> Node:
    root = Parser(text, path).document()
    if not root.is_object:
        raise ConfigFileError(path, "does not hold a JSON object at the top")
    return root


def _container(root: Node, keys: Sequence[str], path: str) -> Node | None:
    node = root
    for key in keys:
        found = node.member(key)
        if found is None or not found.value.is_object:
            return None
        node = found.value
    return node


def _insert(text: str, node: Node, key: str, value: Any) -> str:
    """Append member ``key`` to the object ``node``: after its last member, or right after its ``{``."""
    one_line = "\n" not in text[node.start : node.end] and "\n" not in text.strip()
    if node.members:
        last = node.members[-1]
        indent = _line_indent(text, last.key_start)
        at = last.end
        lead = "," if one_line else ",\n" + indent
    else:
        indent = _line_indent(text, node.start) + _indent_unit(text, node)
        at = node.start + 1
        lead = "" if one_line else "\n" + indent
    unit = "" if one_line else _indent_unit(text, node)
    member = (
        f"{json.dumps(key)}: {_render(value, indent, unit)}"
        if not one_line
        else f"{json.dumps(key)}:{_render(value, '', '')}"
    )
    return text[:at] + lead + member + text[at:]


def _cut(text: str, node: Node, key: str) -> str:
    """Remove member ``key`` of ``node`` with the separator before it (or, as the first of several, after it)."""
    index = max(i for i, m in enumerate(node.members) if m.key == key)  # the one clients read, as node.member()
    member = node.members[index]
    if index:  # the inverse of _insert after a last member
        return text[: node.members[index - 1].end] + text[member.end :]
    if len(node.members) == 1:  # the inverse of _insert into an empty object
        return text[: node.start + 1] + text[member.end :]
    return text[: member.key_start] + text[node.members[1].key_start :]


def _made_here(text: str, parent: Node, key: str, node: Node) -> bool:
    """Whether the (now empty) object ``node`` has the shape set_member gives a container it creates.

    ``{}`` in a one-line document, else ``{`` newline ``}`` at its key's indentation: a pretty-printer
    writes an empty object as ``{}``, which is therefore kept in a multi-line document.
    """
    member = parent.member(key)
    if "\n" not in text.strip():  # _insert writes `"key":{` with no space; json.dumps writes `"key": {`
        return member is not None and text[member.key_start : node.end] == json.dumps(key, ensure_ascii=False) + ":{}"
    indent = _line_indent(text, member.key_start) if member else ""
    return text[node.start : node.end] == "{\n" + indent + "}"


def _fresh_document(container: Sequence[str], name: str, value: Any) -> str:
    nested: Any = {name: value}
    for key in reversed(container):
        nested = {key: nested}
    return _render(nested, "", INDENT) + "\n"


def _render(value: Any, indent: str, unit: str) -> str:
    """``value`` as JSON whose lines after the first start at ``indent`` (objects nested one ``unit`` deeper each
    level; a list of plain values on one line, as people write ``args``)."""
    if not unit:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, dict) and value:
        inner = indent + unit
        members = [
            f"{inner}{json.dumps(key, ensure_ascii=False)}: {_render(item, inner, unit)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(members) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        inner = indent + unit
        return "[\n" + ",\n".join(inner + _render(item, inner, unit) for item in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _line_indent(text: str, position: int) -> str:
    """The whitespace that starts the line holding ``position``."""
    start = text.rfind("\n", 0, position) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _indent_unit(text: str, node: Node) -> str:
    """One level of the file's indentation, read from the first member that sits deeper than its object."""
    for candidate in (node, *_objects(node)):
        for member in candidate.members:
            outer = _line_indent(text, candidate.start)
            inner = _line_indent(text, member.key_start)
            if (
                text.rfind("\n", 0, member.key_start) > text.rfind("\n", 0, candidate.start)
                and inner.startswith(outer)
                and inner != outer
            ):
                return inner[len(outer) :]
    return INDENT


def _objects(node: Node):
    for member in node.members:
        if member.value.is_object:
            yield member.value
            yield from _objects(member.value)
