"""Format-preserving JSON edits: change a user's settings file without restyling it.

Why not ``json.load`` + ``json.dump``: that rewrites every byte (indentation, key spacing, escapes,
CRLF, the final newline) of a file the user owns. Installers must touch only what they add.

How: a small recursive-descent parser keeps the span (start, end offsets) of every value, member
and item. Edits are textual splices at those offsets, and the text is re-parsed after each edit, so
spans never go stale. Only the part we insert is rendered, in the style of its surroundings:

- **multi-line containers**: the new child starts with the same whitespace (newline + indentation)
  as the last existing child; a child value spanning several lines is indented one unit deeper
  (the unit is detected from the document: tabs, 2 or 4 spaces, ...); the key separator
  (``": "``, ``":"``, ``" : "``) is copied from the document.
- **compact (one-line) containers**: the new child goes in one line, with the document's item and
  key separators (``", "`` vs ``","``).
- **empty containers** (``[]``, ``{}``): multi-line (one indentation unit deeper than the line the
  container starts on) unless the whole document is a one-liner.
- the canonical re-serialisation of the inserted value itself is ``json.dumps`` with the detected
  indentation and separators, ``ensure_ascii=False`` (settings files are UTF-8), newlines in the
  document's style (``\\r\\n`` when the document uses it).

Removal is the exact inverse of appending: removing the last child deletes the ``,`` + whitespace
+ child that an append inserted, so "append then remove" gives back every byte. Removing the only
child of a container leaves ``[]``/``{}`` (or ``inner`` whitespace the caller passes, e.g. what the
container held before we touched it).

Strict JSON only (RFC 8259): no comments, no trailing commas. A UTF-8 byte-order mark is kept.
Duplicate keys are refused for the objects we edit, since it is unclear which one a reader uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from self_improve.harnesses.json_spans import (
    STRING,
    ArrayNode,
    JsonEditError,
    JsonSyntaxError,
    Node,
    ObjectNode,
    Path_,
    children_ends,
    children_starts,
    parse,
    to_value,
    walk,
)

__all__ = ["JsonDocument", "JsonEditError", "JsonSyntaxError", "Style", "parse"]

def _line_indent(text: str, offset: int) -> str:
    """The leading whitespace of the line that holds ``offset``."""
    line_start = text.rfind("\n", 0, offset) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


@dataclass(frozen=True)
class Style:
    newline: str  # "\n" or "\r\n"
    indent: str  # one indentation unit: "  ", "    ", "\t", ...
    key_sep: str  # between a key and its value: ": ", ":", " : "
    item_sep: str  # after the comma in one-line containers: " " or ""
    compact: bool  # the whole document is on one line

    @classmethod
    def detect(cls, text: str, root: Node) -> Style:
        newline = "\r\n" if "\r\n" in text else "\n"
        nodes = walk(root)
        key_sep = _detect_key_sep(text, nodes)
        return cls(
            newline=newline,
            indent=_detect_indent(text, nodes),
            key_sep=key_sep,
            item_sep=_detect_item_sep(text, nodes, key_sep),
            # An empty root ("{}", a new file) gets the multi-line layout tools write by default.
            compact="\n" not in text[root.start : root.end] and bool(children_starts(root)),
        )


def _detect_indent(text: str, nodes: list[Node]) -> str:
    """The indentation unit: child indent minus parent indent, in the first container that has one."""
    for node in nodes:
        starts = children_starts(node)
        if not starts or "\n" not in text[node.start : starts[0]]:
            continue
        parent = _line_indent(text, node.start)
        child = _line_indent(text, starts[0])
        if child.startswith(parent) and len(child) > len(parent):
            return child[len(parent) :]
    return "  "  # Claude Code and Codex write their own files with two spaces


def _detect_key_sep(text: str, nodes: list[Node]) -> str:
    for node in nodes:
        if isinstance(node, ObjectNode) and node.members:
            member = node.members[0]
            key_end = STRING.match(text, member.key_start)
            assert key_end is not None
            separator = text[key_end.end() : member.value.start]
            if "\n" not in separator:
                return separator
    return ": "


def _detect_item_sep(text: str, nodes: list[Node], key_sep: str) -> str:
    for node in nodes:
        starts, ends = children_starts(node), children_ends(node)
        if len(starts) >= 2:
            between = text[ends[0] : starts[1]]
            if "\n" not in between:
                return between.split(",", 1)[1]
    # No one-line list to copy from: a spaceless key separator suggests a spaceless style.
    return "" if key_sep == ":" else " "


def render(value: Any, style: Style, base_indent: str) -> str:
    """``value`` as JSON text in ``style``, for a position whose line is indented ``base_indent``."""
    if style.compact:
        return json.dumps(value, ensure_ascii=False, separators=("," + style.item_sep, style.key_sep))
    dumped = json.dumps(value, ensure_ascii=False, indent=style.indent, separators=(",", style.key_sep))
    # json.dumps writes "\n" + unit-multiples; re-base every continuation line on base_indent.
    return dumped.replace("\n", style.newline + base_indent)


# --- the document ----------------------------------------------------------------------


class JsonDocument:
    """A JSON text with span-preserving edits. ``text`` is always valid JSON after an edit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root = parse(text)

    # reading
    @property
    def value(self) -> Any:
        return to_value(self.text, self.root)

    def node(self, path: Path_) -> Node | None:
        """The node at ``path`` (keys and indexes), or None when some step is missing."""
        node: Node | None = self.root
        for step in path:
            if isinstance(step, str) and isinstance(node, ObjectNode):
                node = node.get(step)
            elif isinstance(step, int) and isinstance(node, ArrayNode) and 0 <= step < len(node.items):
                node = node.items[step]
            else:
                return None
            if node is None:
                return None
        return node

    def get(self, path: Path_) -> Any:
        node = self.node(path)
        return None if node is None else to_value(self.text, node)

    def _container(self, path: Path_, kind: type[Node]) -> Node:
        node = self.node(path)
        if not isinstance(node, kind):
            what = "an object" if kind is ObjectNode else "an array"
            raise JsonEditError(f"{_show(path)} is not {what}")
        return node

    # editing
    def _splice(self, start: int, end: int, replacement: str) -> None:
        self.text = self.text[:start] + replacement + self.text[end:]
        self.root = parse(self.text)

    def _append(self, container: Node, child_text_for: Any) -> None:
        """Append a child (``child_text_for(base_indent, style) -> str``) to ``container``."""
        style = Style.detect(self.text, self.root)
        starts, ends = children_starts(container), children_ends(container)
        if starts:
            # Copy the whitespace that precedes the last child: same line break, same indent.
            previous_start = ends[-2] if len(ends) >= 2 else container.start + 1
            gap = self.text[previous_start : starts[-1]]
            lead = gap.split(",", 1)[1] if len(ends) >= 2 else gap
            if "\n" in lead:
                child_indent = lead[lead.rfind("\n") + 1 :]
                child = child_text_for(child_indent, _multiline(style))
            else:
                # One line: after a comma, the container's own spacing; else the document's.
                lead = lead if len(ends) >= 2 else style.item_sep
                child = child_text_for("", _compact(style))
            self._splice(ends[-1], ends[-1], "," + lead + child)
            return
        if style.compact:
            self._splice(container.start + 1, container.end - 1, child_text_for("", style))
            return
        outer = _line_indent(self.text, container.start)
        inner = outer + style.indent
        child = child_text_for(inner, style)
        self._splice(container.start + 1, container.end - 1, style.newline + inner + child + style.newline + outer)

    def append_item(self, path: Path_, value: Any) -> None:
        """Append ``value`` to the array at ``path``."""
        array = self._container(path, ArrayNode)
        self._append(array, lambda base, style: render(value, style, base))

    def add_member(self, path: Path_, key: str, value: Any) -> None:
        """Add ``key: value`` as the last member of the object at ``path`` (the key must be new)."""
        obj = self._container(path, ObjectNode)
        assert isinstance(obj, ObjectNode)
        if key in obj.keys():  # a list of keys, not a dict
            raise JsonEditError(f"{_show(path + (key,))} already exists")
        key_text = json.dumps(key, ensure_ascii=False)
        self._append(obj, lambda base, style: key_text + style.key_sep + render(value, style, base))

    def _remove_child(self, container: Node, index: int, inner: str) -> None:
        starts, ends = children_starts(container), children_ends(container)
        if len(starts) == 1:
            self._splice(container.start + 1, container.end - 1, inner)
        elif index > 0:
            # The inverse of an append: drop "," + whitespace + child after the previous child.
            self._splice(ends[index - 1], ends[index], "")
        else:
            self._splice(starts[0], starts[1], "")

    def remove_item(self, path: Path_, index: int, *, inner: str = "") -> None:
        """Remove item ``index`` of the array at ``path``; ``inner`` fills an array left empty."""
        array = self._container(path, ArrayNode)
        assert isinstance(array, ArrayNode)
        if not 0 <= index < len(array.items):
            raise JsonEditError(f"{_show(path)} has no item {index}")
        self._remove_child(array, index, inner)

    def remove_member(self, path: Path_, key: str, *, inner: str = "") -> None:
        """Remove member ``key`` of the object at ``path``; ``inner`` fills an object left empty."""
        obj = self._container(path, ObjectNode)
        assert isinstance(obj, ObjectNode)
        indexes = [i for i, m in enumerate(obj.members) if m.key == key]
        if len(indexes) != 1:
            raise JsonEditError(f"{_show(path + (key,))} {'is duplicated' if indexes else 'does not exist'}")
        self._remove_child(obj, indexes[0], inner)

    def inner_whitespace(self, path: Path_) -> str | None:
        """What an empty container at ``path`` holds between its brackets (None if not an empty one)."""
        node = self.node(path)
        if isinstance(node, (ObjectNode, ArrayNode)) and not children_starts(node):
            return self.text[node.start + 1 : node.end - 1]
        return None


def _multiline(style: Style) -> Style:
    return Style(style.newline, style.indent, style.key_sep, style.item_sep, compact=False)


def _compact(style: Style) -> Style:
    return Style(style.newline, style.indent, style.key_sep, style.item_sep, compact=True)


def _show(path: Path_) -> str:
    return "the document root" if not path else "".join(f"[{json.dumps(step)}]" for step in path)
