"""JSON with comments, parsed into values that remember where they lie in the text (for json_members' splices).

VS Code's ``mcp.json`` is JSON with comments (``//``, ``/* */``) and trailing commas; the other clients'
files are plain JSON, a subset.  Each value records its span, each object its members in file order.
A key written twice means its last value, as clients (JavaScript's ``JSON.parse``, Python's ``json``) read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NoReturn

from docs_mcp.server.errors import TOO_DEEP_HINT, ConfigFileError

MAX_DEPTH = (
    200  # objects and arrays inside each other; client configs nest a handful, Python's stack far fewer than 3,000
)


@dataclass
class Member:
    key: str
    key_start: int  # the opening quote of the key
    value: Node

    @property
    def end(self) -> int:
        return self.value.end


@dataclass
class Node:
    start: int
    end: int  # one past the last character
    value: Any = None
    members: list[Member] = field(default_factory=list)  # objects only
    items: list[Node] = field(default_factory=list)  # arrays only
    is_object: bool = False
    is_array: bool = False

    def member(self, key: str) -> Member | None:
        """The member ``key`` clients read: the last one when the key is written twice."""
        return next((m for m in reversed(self.members) if m.key == key), None)


class Parser:
    """JSON with comments (``//``, ``/* */``) and trailing commas, recording each value's span."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.pos = 0
        self.depth = 0

    def document(self) -> Node:
        self._space()
        node = self._value()
        self._space()
        if self.pos != len(self.text):
            self._fail("unexpected text after the end of the JSON document")
        return node

    def _fail(self, what: str) -> NoReturn:
        raise ConfigFileError(self.path, f"is not valid JSON: {what} (line {self._line()})")

    def _line(self) -> int:
        return self.text.count("\n", 0, self.pos) + 1

    def _space(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                newline = text.find("\n", self.pos)
                self.pos = n if newline < 0 else newline
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    self._fail("a /* comment is never closed")
                self.pos = close + 2
            else:
                return

    def _value(self) -> Node:
        if self.pos >= len(self.text):
            self._fail("the document ends early")
        char = self.text[self.pos]
        if char in "{[":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ConfigFileError(
                    self.path, f"nests objects and arrays more than {MAX_DEPTH} deep (line {self._line()})",
                    TOO_DEEP_HINT,
                )  # fmt: skip
            node = self._object() if char == "{" else self._array()
            self.depth -= 1
            return node
        if char == '"':
            start = self.pos
            return Node(start, self._string_end(), self._string_value(start))
        return self._scalar()

    def _string_end(self) -> int:
        text, i = self.text, self.pos + 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == '"':
                self.pos = i + 1
                return self.pos
            if text[i] == "\n":
                break
            i += 1
        self._fail("a string is never closed")
        return 0  # unreachable

    def _string_value(self, start: int) -> str:
        """The string from ``start`` (its opening quote) to the position _string_end() left."""
        try:
            return json.loads(self.text[start : self.pos])
        except ValueError:
            string, self.pos = self.text[start : self.pos], start
            self._fail(f"invalid escape or control character in the string {string[:40]}")

    def _scalar(self) -> Node:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",]} \t\r\n/":
            self.pos += 1
        try:
            return Node(start, self.pos, json.loads(self.text[start : self.pos]))
        except ValueError:
            self.pos = start
            self._fail(f"unexpected {self.text[start : start + 12]!r}")
            raise  # unreachable

    def _object(self) -> Node:
        node = Node(self.pos, 0, {}, is_object=True)
        self.pos += 1
        while True:
            self._space()
            if self._at("}"):
                break
            if not self._at('"'):
                self._fail("expected a quoted key or }")
            key_start = self.pos
            self._string_end()
            key = self._string_value(key_start)
            self._space()
            if not self._at(":"):
                self._fail(f"expected : after the key {key!r}")
            self.pos += 1
            self._space()
            value = self._value()
            node.members.append(Member(key, key_start, value))
            node.value[key] = value.value
            self._space()
            if self._at(","):
                self.pos += 1
            elif not self._at("}"):
                self._fail("expected , or } after a member")
        self.pos += 1
        node.end = self.pos
        return node

    def _array(self) -> Node:
        node = Node(self.pos, 0, [], is_array=True)
        self.pos += 1
        while True:
            self._space()
            if self._at("]"):
                break
            item = self._value()
            node.items.append(item)
            node.value.append(item.value)
            self._space()
            if self._at(","):
                self.pos += 1
            elif not self._at("]"):
                self._fail("expected , or ] in an array")
        self.pos += 1
        node.end = self.pos
        return node

    def _at(self, char: str) -> bool:
        return self.text.startswith(char, self.pos)
