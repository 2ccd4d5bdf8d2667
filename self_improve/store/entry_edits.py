"""Edits of an entry: each returns a new Entry and keeps every other byte.

A mixin of ``Entry`` (``store/entry.py``): a field is rewritten on the line its author wrote it
on, in the form it has there (bold or listed, under any spelling in ``grammar.FIELD_ALIASES``);
a new one goes where the reference layout puts it.
"""

from __future__ import annotations

from self_improve.events import Frozen
from self_improve.store.grammar import BOLD_FIELD as _BOLD_FIELD
from self_improve.store.grammar import FIELD_ALIASES as _ALIASES
from self_improve.store.grammar import META_LINE as _META_LINE
from self_improve.store.grammar import eol_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self  # the mixin's edits return an Entry: Self names it without importing it

    from self_improve import rx as re


class Section(Frozen):
    __slots__ = ("title", "start", "end")
    title: str
    start: int  # index of the ``### Title`` line within the entry
    end: int  # index one past the section's last line (trailing blanks and --- excluded)

    def __init__(self, title: str, start: int, end: int) -> None:
        # Frozen._set spelled out: an entry has several sections and a listing makes 60,000.
        setter = object.__setattr__
        setter(self, "title", title)
        setter(self, "start", start)
        setter(self, "end", end)


class EntryEdits:
    __slots__ = ()

    # Provided by Entry.
    lines: tuple[str, ...]
    file: str
    line: int

    @property
    def bare_lines(self) -> tuple[str, ...]:
        raise NotImplementedError

    @property
    def fields(self) -> dict[str, tuple[int, str]]:
        raise NotImplementedError

    @property
    def metadata(self) -> dict[str, tuple[int, str]]:
        raise NotImplementedError

    @property
    def sections(self) -> tuple[Section, ...]:
        raise NotImplementedError

    @property
    def body_end(self) -> int:
        raise NotImplementedError

    def section(self, *titles: str) -> Section | None:
        raise NotImplementedError

    @property
    def eol(self) -> str:
        for line in self.lines:
            ending = eol_of(line)
            if ending:
                return ending
        return "\n"

    def _replace_value(self, index: int, key_pattern: re.Pattern[str], value: str) -> Self:
        bare = self.bare_lines[index]
        match = key_pattern.match(bare)
        assert match is not None
        new_bare = bare[: match.start(2)] + value + bare[match.end(2) :]
        if match.start(2) == match.end(2) and not bare[: match.start(2)].endswith((" ", "\t")):
            new_bare = bare[: match.start(2)] + " " + value + bare[match.end(2) :]
        lines = list(self.lines)
        lines[index] = new_bare + eol_of(self.lines[index])
        return self._with_lines(lines)

    def _with_lines(self, lines: list[str]) -> Self:
        return type(self)(tuple(lines), file=self.file, line=self.line)  # type: ignore[call-arg]

    def _insert(self, index: int, new_lines: list[str]) -> Self:
        lines = list(self.lines)
        eol = self.eol
        if index > 0 and index == len(lines) and not eol_of(lines[-1]):
            lines[-1] += eol  # the file had no final newline and we insert after its last line
        lines[index:index] = [line + eol for line in new_lines]
        return self._with_lines(lines)

    def with_field(self, name: str, value: str) -> Self:
        """Set ``**name**: value``; a new field goes after the last bold field of the header block."""
        found = self.fields.get(name.casefold())
        if found is not None:
            return self._replace_value(found[0], _BOLD_FIELD, value)
        listed = self.metadata.get(name.casefold())
        if listed is not None:  # the author lists it (``- Status: open``): that line is the field
            return self._replace_value(listed[0], _META_LINE, value)
        first_section = self.sections[0].start if self.sections else self.body_end
        header_fields = [i for i, _ in self.fields.values() if i < first_section]
        if header_fields:
            return self._insert(max(header_fields) + 1, [f"**{name}**: {value}"])
        return self._insert(1, ["", f"**{name}**: {value}"])

    def with_status(self, status: str) -> Self:
        return self.with_field("Status", status)

    def with_metadata(self, key: str, value: str) -> Self:
        """Set ``- key: value`` in ``### Metadata``, creating the section if needed."""
        # The line the author wrote it on, in its form: listed, or bold (``**Recurrence-Count**: 8+``),
        # under its name or a spelling of it (``Pattern Key``).
        for name in (key.casefold(), *_ALIASES.get(key.casefold(), ())):
            found = self.metadata.get(name)
            if found is not None:
                return self._replace_value(found[0], _META_LINE, value)
            bold = self.fields.get(name)
            if bold is not None:
                return self._replace_value(bold[0], _BOLD_FIELD, value)
        section = self.section("Metadata")
        if section is not None:
            return self._insert(section.end, [f"- {key}: {value}"])
        return self.with_section("Metadata", [f"- {key}: {value}"])

    def with_section(self, title: str, body: list[str]) -> Self:
        """Replace a section's body, or add the section before the trailing ``---``."""
        section = self.section(title)
        if section is not None:
            lines = list(self.lines)
            eol = self.eol
            if section.end == len(lines) and not eol_of(lines[-1]):
                replacement = [line + eol for line in body]
                replacement[-1] = replacement[-1][: -len(eol)] if replacement else ""
            else:
                replacement = [line + eol for line in body]
            lines[section.start + 1 : section.end] = replacement
            return self._with_lines(lines)
        # Keep the Metadata section last: new sections go before it.
        metadata = self.section("Metadata")
        at = metadata.start if metadata is not None and title != "Metadata" else self.body_end
        if metadata is not None and title != "Metadata":
            return self._insert(at, [f"### {title}", *body, ""])
        return self._insert(at, ["", f"### {title}", *body])
