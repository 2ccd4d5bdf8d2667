"""JSON with the span of every value: the parser under :mod:`self_improve.harnesses.jsonedit`.

A small recursive-descent parser of strict JSON (RFC 8259) that keeps the start and end offsets of
every value, member and item, so that an edit can splice text at exact places.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Path_ = tuple[str | int, ...]

WHITESPACE = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_LITERALS = ("true", "false", "null")
BOM = "\ufeff"


class JsonSyntaxError(ValueError):
    """The text is not strict JSON. ``str()`` is one line: what and where (line:column)."""

    def __init__(self, message: str, text: str, offset: int) -> None:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"{message} at line {line} column {column}")
        self.line = line
        self.column = column


class JsonEditError(ValueError):
    """An edit that cannot be made (wrong type at a path, missing key, duplicate keys)."""


@dataclass
class Node:
    """A JSON value and its span ``text[start:end]``."""

    start: int
    end: int


@dataclass
class Scalar(Node):
    value: Any = None


@dataclass
class Member:
    key: str
    key_start: int  # offset of the key's opening quote: the member's span starts here
    value: Node


@dataclass
class ObjectNode(Node):
    members: list[Member] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        found = [m.value for m in self.members if m.key == key]
        if len(found) > 1:
            raise JsonEditError(f"duplicate key {key!r}")
        return found[0] if found else None

    def keys(self) -> list[str]:
        return [m.key for m in self.members]


@dataclass
class ArrayNode(Node):
    items: list[Node] = field(default_factory=list)


# --- parsing ---------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str, offset: int | None = None) -> JsonSyntaxError:
        return JsonSyntaxError(message, self.text, self.pos if offset is None else offset)

    def skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in WHITESPACE:
            pos += 1
        self.pos = pos

    def document(self) -> Node:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise self.fail("empty document: expected a JSON value")
        node = self.value()
        self.skip_ws()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the JSON value")
        return node

    def value(self) -> Node:
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of text: expected a value")
        char = self.text[self.pos]
        if char == "{":
            return self.object()
        if char == "[":
            return self.array()
        if char == '"':
            start = self.pos
            return Scalar(start, self.pos_after_string(), self.string_value(start))
        for literal in _LITERALS:
            if self.text.startswith(literal, self.pos):
                start = self.pos
                self.pos += len(literal)
                return Scalar(start, self.pos, json.loads(literal))
        match = _NUMBER.match(self.text, self.pos)
        if match and match.end() > self.pos:
            self.pos = match.end()
            return Scalar(match.start(), match.end(), json.loads(match.group()))
        raise self.fail(f"unexpected character {char!r}")

    def pos_after_string(self) -> int:
        match = STRING.match(self.text, self.pos)
        if not match:
            raise self.fail("invalid string (bad escape, control character or missing closing quote)")
        self.pos = match.end()
        return self.pos

    def string_value(self, start: int) -> str:
        try:
            return json.loads(self.text[start : self.pos])
        except ValueError as exc:  # e.g. a lone surrogate escape is still valid JSON; this is a guard
            raise self.fail(f"invalid string: {exc}", start) from exc

    def object(self) -> ObjectNode:
        node = ObjectNode(self.pos, self.pos)
        node.end = self.elements("}", lambda: node.members.append(self.member()))
        return node

    def member(self) -> Member:
        if not self.text.startswith('"', self.pos):
            raise self.fail("expected a string key")
        key_start = self.pos
        self.pos_after_string()
        key = self.string_value(key_start)
        self.skip_ws()
        if not self.text.startswith(":", self.pos):
            raise self.fail("expected ':' after the key")
        self.pos += 1
        self.skip_ws()
        return Member(key, key_start, self.value())

    def array(self) -> ArrayNode:
        node = ArrayNode(self.pos, self.pos)
        node.end = self.elements("]", lambda: node.items.append(self.value()))
        return node

    def elements(self, close: str, element: Callable[[], None]) -> int:
        """Parse the comma-separated elements after an opening bracket up to ``close``, each with
        ``element``; the position after ``close``."""
        self.pos += 1
        self.skip_ws()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            return self.pos
        while True:
            self.skip_ws()
            element()
            self.skip_ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith(close, self.pos):
                self.pos += 1
                return self.pos
            raise self.fail(f"expected ',' or '{close}'")


def parse(text: str) -> Node:
    """The span tree of ``text`` (strict JSON, optional leading BOM); raises JsonSyntaxError."""
    parser = _Parser(text)
    if text.startswith(BOM):
        parser.pos = 1
    try:
        return parser.document()
    except RecursionError:
        raise JsonSyntaxError("nested too deeply", text, 0) from None


def to_value(text: str, node: Node) -> Any:
    """The Python value of ``node``."""
    return json.loads(text[node.start : node.end])


# --- style detection -------------------------------------------------------------------


def children_starts(node: Node) -> list[int]:
    if isinstance(node, ObjectNode):
        return [m.key_start for m in node.members]
    if isinstance(node, ArrayNode):
        return [item.start for item in node.items]
    return []


def children_ends(node: Node) -> list[int]:
    if isinstance(node, ObjectNode):
        return [m.value.end for m in node.members]
    if isinstance(node, ArrayNode):
        return [item.end for item in node.items]
    return []


def walk(node: Node) -> list[Node]:
    out = [node]
    if isinstance(node, ObjectNode):
        for member in node.members:
            out.extend(walk(member.value))
    elif isinstance(node, ArrayNode):
        for item in node.items:
            out.extend(walk(item))
    return out
