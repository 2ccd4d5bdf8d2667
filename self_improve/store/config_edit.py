"""``config set``: change one key in TOML text, keeping every comment and line of the rest.

The edit is checked: the result must parse, hold the new value at the key and every other value
as before, or it is refused (``SelfImproveError``) and the user edits the file by hand.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from self_improve.errors import SelfImproveError

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _CannotEdit(Exception):
    pass


@dataclass
class _Stmt:
    """A key/value pair: where its value is and, for a statement, where its line ends."""

    path: tuple[str, ...]  # full key path: table header + dotted key (+ inline-table keys)
    table: tuple[str, ...] | None  # the header it sits under; None inside an inline table
    value_start: int
    value_end: int
    end: int  # after the statement's newline (value_end inside an inline table)
    inline_last: int | None = None  # an inline table's value: end of its last item, -1 if empty


class _TomlScanner:
    """Finds every key/value pair and table header of a (valid) TOML text, with their offsets."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.stmts: list[_Stmt] = []
        self.headers: list[tuple[tuple[str, ...], bool, int]] = []  # path, is [[array]], offset

    def blank(self, newlines: bool) -> None:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c == "#":
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            elif c in " \t" or (newlines and (c == "\n" or text.startswith("\r\n", self.i))):
                self.i += 1
            else:
                return

    def at(self, token: str) -> bool:
        """Past blanks, newlines and comments (allowed in arrays): is ``token`` next?"""
        self.blank(True)
        return self.text.startswith(token, self.i)

    def expect(self, token: str) -> None:
        if not self.text.startswith(token, self.i):
            raise _CannotEdit(f"unexpected text at line {self.text.count(chr(10), 0, self.i) + 1}")
        self.i += len(token)

    def line_end(self) -> None:
        self.blank(False)
        if self.i < len(self.text):
            self.expect("\r\n" if self.text.startswith("\r", self.i) else "\n")

    def key(self) -> tuple[str, ...]:
        parts = []
        while True:
            self.blank(False)
            start, c = self.i, self.text[self.i : self.i + 1]
            if c in ('"', "'"):
                self.string()
                import tomllib

                parts.append(str(tomllib.loads(f"k = {self.text[start:self.i]}")["k"]))
            else:
                while self.text[self.i : self.i + 1] in _BARE:
                    self.i += 1
                if self.i == start:
                    self.expect("a key")
                parts.append(self.text[start : self.i])
            self.blank(False)
            if not self.text.startswith(".", self.i):
                return tuple(parts)
            self.i += 1

    def string(self) -> None:
        text, quote = self.text, self.text[self.i]
        delim = quote * 3 if text.startswith(quote * 3, self.i) else quote
        self.i += len(delim)
        while self.i < len(text) and (len(delim) == 3 or text[self.i] != "\n"):
            if text[self.i] == "\\" and quote == '"':
                self.i += 2
            elif text.startswith(delim, self.i):
                run = len(delim)  # a multi-line string may end with one or two more quotes
                while len(delim) == 3 and run < 5 and text.startswith(quote, self.i + run):
                    run += 1
                self.i += run
                return
            else:
                self.i += 1
        self.expect(delim)  # unterminated: refused

    def value(self, path: tuple[str, ...]) -> int | None:
        """Skip one value; for an inline table, record its items and return the end of the last."""
        text, c = self.text, self.text[self.i : self.i + 1]
        if c in ('"', "'"):
            self.string()
        elif c == "[":
            self.i += 1
            while not self.at("]"):
                self.value(path)
                if not self.at(","):
                    break
                self.i += 1
            self.expect("]")
        elif c == "{":
            self.i, last = self.i + 1, -1
            while not self.at("}"):
                inner = path + self.key()
                self.expect("=")
                self.blank(False)
                start, inline = self.i, self.value(inner)
                self.stmts.append(_Stmt(inner, None, start, self.i, self.i, inline))
                last = self.i
                if not self.at(","):
                    break
                self.i += 1
            self.expect("}")
            return last
        else:
            start = self.i
            while self.i < len(text) and text[self.i] not in " \t\r\n,]}#":
                self.i += 1
            if self.i == start:
                self.expect("a value")
            word = text[start : self.i]  # a date and a time may be separated by one space
            if len(word) == 10 and word[4] == word[7] == "-" and text[self.i : self.i + 2].strip().isdigit():
                self.i += 1
                self.value(path)
        return None

    def scan(self) -> _TomlScanner:
        table: tuple[str, ...] = ()
        while True:
            self.blank(True)
            if self.i >= len(self.text):
                return self
            start = self.text.rfind("\n", 0, self.i) + 1
            if self.text.startswith("[", self.i):
                array = self.text.startswith("[[", self.i)
                self.i += 2 if array else 1
                table = self.key()
                self.expect("]]" if array else "]")
                self.headers.append((table, array, start))
                self.line_end()
                continue
            path = table + self.key()
            self.expect("=")
            self.blank(False)
            value_start, inline = self.i, self.value(path)
            value_end = self.i
            self.line_end()
            self.stmts.append(_Stmt(path, table, value_start, value_end, self.i, inline))


def _render(value: Any) -> str:
    import tomli_w  # only `config set` writes TOML; keep it off every other path

    if isinstance(value, list):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    return tomli_w.dumps({"v": value})[4:].rstrip("\n")


def _edit(text: str, section: str, name: str, value: Any) -> str:
    scan = _TomlScanner(text).scan()
    rendered, eol = _render(value), "\r\n" if "\r\n" in text else "\n"
    line = f"{name} = {rendered}{eol}"
    for stmt in scan.stmts:
        if stmt.path == (section, name):
            return text[: stmt.value_start] + rendered + text[stmt.value_end :]
    for path, _, offset in scan.headers:
        if path == (section,):
            later = [o for _, _, o in scan.headers if o > offset]
            at = min(later, default=len(text))
            while at > offset:  # before the blank lines that end the table
                start = text.rfind("\n", 0, at - 1) + 1
                if text[start:at].strip() or start <= offset:
                    break
                at = start
            if at == len(text) and not text.endswith("\n"):
                line = eol + line
            return text[:at] + line + text[at:]
    for stmt in scan.stmts:
        if stmt.path == (section,) and stmt.inline_last is not None:
            if stmt.inline_last < 0:
                return text[: stmt.value_start] + f"{{ {name} = {rendered} }}" + text[stmt.value_end :]
            return text[: stmt.inline_last] + f", {name} = {rendered}" + text[stmt.inline_last :]
    dotted = [s for s in scan.stmts if s.table == () and len(s.path) > 1 and s.path[0] == section]
    if dotted:  # the table is made of dotted keys at the top: a [section] header would redefine it
        at = dotted[-1].end
        line = f"{section}.{line}"
        if at == len(text) and not text.endswith("\n"):
            line = eol + line
        return text[:at] + line + text[at:]
    if text and not text.endswith("\n"):
        text += eol
    if text.strip():
        text += eol
    return text + f"[{section}]{eol}{line}"


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return ("float", repr(value)) if isinstance(value, float) else value


def set_value_text(original: str, key: str, value: Any) -> str:
    """Set ``key`` in TOML text by changing only its value or adding one line; checked: the result
    parses, holds ``value`` at ``key`` and every other value as before, or the edit is refused."""
    import tomllib

    section, name = key.split(".", 1)
    before = tomllib.loads(original)
    try:
        if not isinstance(before.get(section, {}), dict):
            raise _CannotEdit(f"{section} is not a table")
        expected = copy.deepcopy(before)
        expected.setdefault(section, {})[name] = value
        updated = _edit(original, section, name, value)
        try:
            ok = _canonical(tomllib.loads(updated)) == _canonical(expected)
        except tomllib.TOMLDecodeError:
            ok = False
        if not ok:
            table = before.get(section, {})
            how = "is a table" if isinstance(table.get(name), dict) else "is defined in a way this editor cannot change"
            raise _CannotEdit(f"{key} {how}")
    except (_CannotEdit, RecursionError) as exc:
        raise SelfImproveError(f"cannot edit {key} in this file: {exc}, edit it by hand") from None
    return updated
