"""Three-way merge of one entry changed on both branches, part by part.

The rules are in the :mod:`self_improve.store.merge` docstring. An entry is cut into its header
line, the bold fields before the first section, each ``### Section`` and the trailing ``---``;
each part merges on its own, with :func:`~self_improve.store.three_way.merge_keyed`, and a part
changed on one side only comes from that side byte for byte.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from self_improve.store.entry import (
    _BOLD_FIELD,  # the entry parser's own grammar, so a field means the same thing in both places
    _META_LINE,
    _SECTION,
    ACTION_SECTIONS,
    Entry,
    Occurrence,
    eol_of,
    parse_occurrences,
    strip_eol,
)
from self_improve.store.merge_values import (
    DEFAULT_KEEP,
    EARLIEST_DAYS,
    LATEST_DAYS,
    NEWEST_SIDE_VALUES,
    PRIORITY_RANK,
    STATUS_RANK,
    SUMMED_COUNTS,
    absorbed_count,
    bound_occurrences,
    count_of,
    earlier,
    later,
    merge_comma_list,
    merge_occurrence_lists,
    ranked,
    three_way_count,
    union_occurrences,
)
from self_improve.store.three_way import MergeResult, conflict_lines, merge_keyed, terminated, with_ordinals

_LIST_FIELDS = frozenset({"promoted", "see also", "tags", "related files", "imported-from"})
ACTION_TITLES = frozenset(title.casefold() for title in ACTION_SECTIONS)
_COUNTERS = frozenset(name.casefold() for name in SUMMED_COUNTS)
_EARLIEST = frozenset(name.casefold() for name in EARLIEST_DAYS)
_LATEST = frozenset(name.casefold() for name in LATEST_DAYS)
_NEWEST_SIDE = frozenset(name.casefold() for name in NEWEST_SIDE_VALUES)
_FREQUENCY_RANK = {name: rank for rank, name in enumerate(("first_time", "recurring"))}


@dataclass(frozen=True)
class _Parts:
    """An entry cut into the pieces that merge independently; joined they give its lines back."""

    header: str
    preface: tuple[str, ...]  # lines between the header and the first section (bold fields)
    sections: tuple[tuple[str, ...], ...]  # each from its ``### Title`` line to the next part
    trailer: tuple[str, ...]  # trailing blank lines and the ``---`` separator


def _parts(entry: Entry) -> _Parts:
    lines, end = entry.lines, entry.body_end
    starts = [section.start for section in entry.sections]
    first = starts[0] if starts else end
    sections = tuple(lines[start : (starts[n + 1] if n + 1 < len(starts) else end)] for n, start in enumerate(starts))
    return _Parts(lines[0] if lines else "", tuple(lines[1:first]), sections, tuple(lines[end:]))


def _section_key(chunk: Sequence[str]) -> str:
    match = _SECTION.match(strip_eol(chunk[0]))
    return match.group(1).casefold() if match else strip_eol(chunk[0])


def _split_chunk(chunk: Sequence[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``### Title`` line, body lines, trailing blank lines."""
    end = len(chunk)
    while end > 1 and not strip_eol(chunk[end - 1]).strip():
        end -= 1
    return chunk[0], tuple(chunk[1:end]), tuple(chunk[end:])


def _line_key(line: str) -> Hashable:
    """Bold fields and metadata lines are keyed by their name; any other line by its content."""
    bare = strip_eol(line)
    if "**" in bare:
        match = _BOLD_FIELD.match(bare)
        if match:
            return ("field", match.group(1).strip().casefold())
    elif bare[:1] in ("-", "*"):
        match = _META_LINE.match(bare)
        if match:
            return ("meta", match.group(1).strip().casefold())
    return ("line", bare)


def _keyed_lines(lines: Iterable[str]) -> list[tuple[Hashable, tuple[str, ...]]]:
    lines = list(lines)
    return [(key, (line,)) for key, line in zip(with_ordinals(_line_key(line) for line in lines), lines, strict=True)]


def _value_of(line: str) -> str:
    bare = strip_eol(line)
    match = (_BOLD_FIELD if "**" in bare else _META_LINE).match(bare)
    return match.group(2) if match else bare


def _with_value(line: str, value: str) -> str:
    """``line`` with its field value replaced; every other byte (prefix, line ending) kept."""
    bare = strip_eol(line)
    match = (_BOLD_FIELD if "**" in bare else _META_LINE).match(bare)
    if match is None or match.group(2) == value:
        return line
    head = bare[: match.start(2)]
    if not head.endswith((" ", "\t")):
        head += " "
    return head + value + bare[match.end(2) :] + eol_of(line)


@dataclass(frozen=True)
class _Trio:
    """The three versions of one entry (base is None when both sides added it)."""

    base: Entry | None
    ours: Entry
    theirs: Entry
    keep: int

    def counter(self, name: str) -> int:
        def value(entry: Entry) -> int:
            return count_of(entry, name)

        if self.base is None:  # one entry reached both sides (archived on both, imported on both)
            if name == "recurrence-count":
                return absorbed_count(self.ours, self.theirs)
            return max(value(self.ours), value(self.theirs))
        return three_way_count(value(self.base), value(self.ours), value(self.theirs))

    def occurrences(self) -> tuple[Occurrence, ...]:
        if self.base is None:
            return bound_occurrences(union_occurrences(self.ours.occurrences, self.theirs.occurrences), self.keep)
        return merge_occurrence_lists(self.base.occurrences, self.ours.occurrences, self.theirs.occurrences, self.keep)


class _Conflicts:
    """Where conflicts were left; collected while merging one file."""

    def __init__(self) -> None:
        self.places: list[str] = []

    def add(self, place: str) -> None:
        self.places.append(place)


def _merge_field_line(
    key: tuple[str, str], base: str | None, ours: str, theirs: str, trio: _Trio, conflicts: _Conflicts
) -> tuple[str, ...]:
    """One bold-field or metadata line changed on both sides (see the merge docstring)."""
    kind, name = key
    o_value, t_value = _value_of(ours), _value_of(theirs)
    b_value = _value_of(base) if base is not None else ""
    chosen: str | None = None
    if kind == "meta" and name in _COUNTERS:
        chosen = str(trio.counter(name))
    elif kind == "meta" and name == "occurrences":
        merged = trio.occurrences()
        chosen = o_value if merged == parse_occurrences(o_value) else ", ".join(item.render() for item in merged)
    elif o_value == t_value:
        return (ours,)
    elif name in _EARLIEST:
        chosen = earlier(o_value.strip(), t_value.strip())
    elif name in _LATEST:
        chosen = later(o_value.strip(), t_value.strip())
    elif name == "status":
        chosen = ranked(o_value, t_value, STATUS_RANK)
    elif name == "priority":
        chosen = ranked(o_value, t_value, PRIORITY_RANK)
    elif name == "frequency":
        chosen = ranked(o_value, t_value, _FREQUENCY_RANK)
    elif name in _LIST_FIELDS:
        chosen = merge_comma_list(b_value, o_value, t_value)
    elif name in _NEWEST_SIDE:
        chosen = t_value if trio.theirs.last_seen > trio.ours.last_seen else o_value
    if chosen is None:
        conflicts.add(f"{trio.ours.id}: {name}")
        return conflict_lines([ours], [theirs], trio.ours.eol)
    return (_with_value(ours, chosen),)


def _merge_lines(
    base: Sequence[str] | None, ours: Sequence[str], theirs: Sequence[str], trio: _Trio, conflicts: _Conflicts
) -> list[str]:
    """Field lines keyed by name, other lines by content; new lines land next to their neighbours."""

    def both(key: Hashable, b: tuple[str, ...] | None, o: tuple[str, ...], t: tuple[str, ...]) -> tuple[str, ...]:
        inner: tuple[str, str] = key[0]  # type: ignore[index]  # (kind, name) from _line_key
        if inner[0] == "line":
            return o  # same content on both sides by construction
        return _merge_field_line(inner, b[0] if b else None, o[0], t[0], trio, conflicts)

    groups = merge_keyed(_keyed_lines(base or ()), _keyed_lines(ours), _keyed_lines(theirs), both, theirs_new_at_end=False)
    return [line for group in groups for line in group]


def _merge_action_lines(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> tuple[str, ...] | None:
    """Both sides only appended fix lines: ours' lines, then theirs' new ones. None otherwise."""
    bare_b = [strip_eol(line) for line in base]
    bare_o = [strip_eol(line) for line in ours]
    bare_t = [strip_eol(line) for line in theirs]
    if bare_o[: len(bare_b)] != bare_b or bare_t[: len(bare_b)] != bare_b:
        return None
    known = set(bare_o)
    added = []
    for line, bare in zip(theirs[len(base) :], bare_t[len(base) :], strict=True):
        if bare not in known:
            added.append(line)
            known.add(bare)
    return (*ours, *added)


def _merge_section(
    base: tuple[str, ...] | None, ours: tuple[str, ...], theirs: tuple[str, ...], trio: _Trio, conflicts: _Conflicts
) -> tuple[str, ...]:
    if ours == theirs and _section_key(ours) != "metadata":
        return ours
    eol = trio.ours.eol
    title, o_body, o_tail = _split_chunk(ours)
    _, t_body, _ = _split_chunk(theirs)
    b_body = _split_chunk(base)[1] if base is not None else ()
    key = _section_key(ours)
    if key == "metadata":
        body = _merge_lines(b_body, o_body, t_body, trio, conflicts)
    elif key in ACTION_TITLES and (appended := _merge_action_lines(b_body, o_body, t_body)) is not None:
        body = list(appended)
    else:
        conflicts.add(f"{trio.ours.id}: {strip_eol(title).lstrip('#').strip()}")
        body = list(conflict_lines(o_body, t_body, eol))
    return _joined([title, *body, *o_tail], eol)


def _joined(lines: Sequence[str], eol: str) -> tuple[str, ...]:
    """Every line but the last ends with a line ending (a piece may come from a file's last line)."""
    return tuple(terminated(line, eol) if n + 1 < len(lines) else line for n, line in enumerate(lines))


T = TypeVar("T")


def _pick(base: T | None, ours: T, theirs: T) -> T:
    """A part that is not worth a conflict: the changed side, ours if both changed."""
    return theirs if ours == base else ours


def merge_entry(base: Entry | None, ours: Entry, theirs: Entry, *, keep: int = DEFAULT_KEEP) -> MergeResult:
    """Three-way merge of one entry (see the merge docstring); ``.text`` is the entry's text."""
    if base is not None and ours == base:
        return MergeResult(theirs.text)
    if base is not None and theirs == base:
        return MergeResult(ours.text)
    if base is None and ours == theirs:
        return MergeResult(ours.text)
    conflicts = _Conflicts()
    trio = _Trio(base, ours, theirs, keep)
    b = _parts(base) if base is not None else None
    o, t = _parts(ours), _parts(theirs)
    header = _pick(b.header if b else None, o.header, t.header)
    preface = _merge_lines(b.preface if b else None, o.preface, t.preface, trio, conflicts)

    def sections(parts: _Parts | None) -> list[tuple[Hashable, tuple[str, ...]]]:
        chunks = parts.sections if parts else ()
        return list(zip(with_ordinals(_section_key(chunk) for chunk in chunks), chunks, strict=True))

    merged_sections = merge_keyed(
        sections(b),
        sections(o),
        sections(t),
        lambda _key, bs, os_, ts: _merge_section(bs, os_, ts, trio, conflicts),
        theirs_new_at_end=False,
    )
    trailer = _pick(b.trailer if b else None, o.trailer, t.trailer)
    lines = [header, *preface, *(line for chunk in merged_sections for line in chunk), *trailer]
    return MergeResult("".join(_joined([line for line in lines if line], ours.eol)), tuple(conflicts.places))
