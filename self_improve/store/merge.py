"""Three-way merge of self-improve's files, so two git branches never lose a learning.

Everything here is a pure ``str -> str`` function over whole file texts (base, ours, theirs);
the merge driver (``commands/merge_driver.py``) does the file I/O. The only impure helper is
:func:`git_text_merge`, which runs ``git merge-file`` on temp files for plain text; it is passed
in by the driver, and every function defaults to the pure :func:`plain_text_merge`. These merges
trust both sides; the driver first asks :mod:`self_improve.store.merge_safety` whether a side looks like
lost data (emptied, reset, garbled, gutted), and makes that a whole-file conflict instead.

Learnings files (``.learnings/*.md``, ``archive/*.md``) -- :func:`merge_learnings`
===================================================================================

* **Entries are a union by ID.** The result keeps ours' entries in ours' order, then theirs' new
  entries in theirs' order. An entry changed on one side only is taken from that side byte for
  byte; an entry untouched on both sides is kept byte for byte.
* **Deletions**: deleted on one side and unchanged on the other -> deleted (an archive move is a
  deletion here plus an addition to ``archive/<year>.md``, which merges as a union). Deleted on
  one side and modified on the other -> kept, modified (nothing is ever lost). Deleted on both
  sides -> deleted.
* **Preamble** (text before the first entry): ours, unless only theirs changed it; changed on
  both sides -> a line merge (``git merge-file`` semantics), conflict markers if that conflicts.
* **An ID changed on both sides** is merged part by part (header line, the bold fields before
  the first section, each ``### Section``, the trailing ``---``); a part changed on one side only
  comes from that side. A part changed on both sides:

  - ``Occurrences``: multiset three-way merge, ``count(x) = ours(x) + theirs(x) - base(x)``
    (never below 0) for each ``DATE/TASK`` pair; so an occurrence recorded on both branches on
    the same day by the same task counts twice (they are two events), and one trimmed away by
    the store's bound on either side stays trimmed. Ours' order, then theirs' additions, sorted
    by date (stable), then bounded exactly as the store bounds them (``occurrences.add``).
  - ``Recurrence-Count``, ``Helpful``, ``Harmful``: ``ours + theirs - base`` (never below 0).
  - ``First-Seen``: the earlier; ``Last-Seen``: the later; ``Logged``: the earlier.
  - ``Status``: the more advanced, in :data:`STATUS_ORDER`; ``Priority``: the higher.
  - ``Promoted``, ``See Also``, ``Tags``, ``Related Files``, ``Imported-From``: comma lists,
    merged as sets (an item removed on one side stays removed, additions of both are kept).
  - ``Frequency``: ``recurring`` beats ``first_time``. ``Last-Excerpt``: the side whose
    ``Last-Seen`` is later (ours on a tie).
  - ``Suggested Action`` / ``Suggested Fix`` / ``Suggested Implementation``: the store appends
    one line per fix (``log --action``), so when both sides only appended lines, the result is
    ours' lines plus theirs' new lines not already there.
  - Any other free-text section (Summary, Details, Context, Resolution, ...) or any other field
    edited differently on both sides: both versions stay inside the entry between
    ``<<<<<<< ours`` / ``=======`` / ``>>>>>>> theirs`` lines, and the merge reports a conflict.
  - The header line (``## [ID] category``) changed differently on both sides: ours (a category
    is a label; markers around a header line would split the entry in two).

  Because the counters are event counts, an entry changed *identically* on both sides still has
  its occurrences and counts summed. (If both branches end with byte-identical *files*, git takes
  the file without calling the driver at all.)
* **The same new ID on both sides** (absent from the base, e.g. an entry archived on both
  branches lands in ``archive/<year>.md`` twice): identical entries are kept once; otherwise, if
  the ``Logged`` times agree (or one is missing) it is one entry that reached both sides, merged
  as above but as a *union* rather than a sum: an occurrence on both sides is one event
  (multiplicity = the larger), ``Recurrence-Count`` = each side's count plus the events only the
  other side has (the larger of the two, :func:`absorbed_count`), ``Helpful``/``Harmful`` = the
  larger. Different ``Logged`` times mean an ID collision between two unrelated learnings: both
  are kept, ours first (``self-improve lint`` reports the duplicate ID).
* **Bytes**: CRLF is kept (marker lines use the entry's own line ending); a file without a
  final newline stays without one unless ours had one.

Managed blocks (``CLAUDE.md``, ``AGENTS.md``, ...) -- :func:`merge_managed`
============================================================================

* Inside ``<!-- self-improve:begin ... -->`` / ``<!-- self-improve:end -->``: the rule bullets
  (``- text <!-- ID -->``) are a union by ID, in ours' order with theirs' new bullets placed
  after the bullet that precedes them in theirs. A bullet removed on one side and unchanged on
  the other is removed (that is a retire); removed on one side and reworded on the other is
  kept. A bullet reworded differently on both sides takes ours' wording: the rule text is
  regenerated from its entry by the next ``review``, so a wording choice is not worth a
  conflict. A side that removed the whole block retired every rule it held, but does not vote
  on the block's other lines (heading, markers). No bullet left -> the block and the blank
  line we added before it go, as ``remove_rule`` does. The merged block's begin marker gets the
  hash of its merged bullets (``managed_block.rehash``), unless some side's block carried a stale
  hash (an unreviewed hand edit), which then stays visible to ``lint``.
* Outside the block: a line merge of the user's text (``git merge-file`` semantics; the block
  is replaced by a placeholder line so its position merges like any other line). A conflict
  there keeps both versions with markers; user text is never dropped. A merged block whose
  position was deleted by the line merge is appended at the end, as ``upsert_block`` does.
* Unparseable markers (two blocks, a begin without an end...) -> the whole file gets the plain
  line merge.

:data:`STATUS_ORDER` (why this order): an entry moves from open (``pending``), to being worked on
(``in_progress``), to fixed (``resolved``); a fix that proved itself becomes a rule
(``promoted``) and may later become a skill (``promoted_to_skill``). ``wont_fix``, ``retired``
and ``archived`` are deliberate decisions to stop tracking, taken after looking at an entry (a
rule is retired only after it was promoted), so they beat every open or promoted state: a merge
must never silently reopen an entry, or bring back a rule, that someone closed.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from self_improve.review.managed_block import (
    RULES_MARKER,
    RULES_NOTE,
    ManagedBlockError,
    list_rules,
    rehash,
    remove_block,
    scan_rules,
    upsert_block,
)
from self_improve.store import occurrences as occ
from self_improve.store.entry import (
    _BOLD_FIELD,  # the entry parser's own grammar, so a field means the same thing in both places
    _META_LINE,
    ACTION_SECTIONS,
    PRIORITIES,
    Entry,
    FenceTracker,
    Occurrence,
    eol_of,
    parse_occurrences,
    parse_text,
    split_lines,
    strip_eol,
)

DEFAULT_KEEP = 20  # the store's default bound (config ``log.max_occurrences``)
STATUS_ORDER = (
    "pending",
    "in_progress",
    "resolved",
    "promoted",
    "promoted_to_skill",
    "wont_fix",
    "retired",
    "archived",
)
OURS_MARKER = "<<<<<<< ours"
SEPARATOR_MARKER = "======="
THEIRS_MARKER = ">>>>>>> theirs"

_STATUS_RANK = {name: rank for rank, name in enumerate(STATUS_ORDER)}
_PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}
_LIST_FIELDS = frozenset({"promoted", "see also", "tags", "related files", "imported-from"})
_COUNTERS = frozenset({"recurrence-count", "helpful", "harmful"})
_ACTION_TITLES = frozenset(title.casefold() for title in ACTION_SECTIONS)
_FREQUENCY_ORDER = ("first_time", "recurring")


@dataclass(frozen=True)
class MergeResult:
    """The merged text and where it conflicts (empty when the merge is clean)."""

    text: str
    conflicts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # things worth a line on stderr that are not conflicts

    @property
    def clean(self) -> bool:
        return not self.conflicts


TextMerge = Callable[[str, str, str], MergeResult]
"""A line-level three-way merge of plain text: ``(base, ours, theirs) -> MergeResult``."""


# ---- plain text --------------------------------------------------------------------------------


def _terminated(text: str, eol: str) -> str:
    return text if not text or text.endswith("\n") else text + eol


def dominant_eol(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf * 2 > text.count("\n") else "\n"


def plain_text_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """The pure fallback: one-sided changes merge; anything else is one whole-text conflict."""
    if ours == theirs or theirs == base:
        return MergeResult(ours)
    if ours == base:
        return MergeResult(theirs)
    eol = dominant_eol(ours)
    text = "".join(
        [OURS_MARKER + eol, _terminated(ours, eol), SEPARATOR_MARKER + eol, _terminated(theirs, eol), THEIRS_MARKER + eol]
    )
    return MergeResult(text, ("text",))


def git_text_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """``git merge-file -p`` on the three texts (git's own line merge); the pure fallback if git fails."""
    if ours == theirs or theirs == base:
        return MergeResult(ours)
    if ours == base:
        return MergeResult(theirs)
    with tempfile.TemporaryDirectory(prefix="self-improve-merge-") as scratch:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(scratch, name)
            with open(path, "wb") as handle:
                handle.write(text.encode("utf-8", "surrogateescape"))
            paths.append(path)
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
                capture_output=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return plain_text_merge(base, ours, theirs)
    # Exit status: 0 clean, N > 0 conflicts (capped at 127), negative (255) on error.
    if done.returncode < 0 or done.returncode > 127:
        return plain_text_merge(base, ours, theirs)
    text = done.stdout.decode("utf-8", "surrogateescape")
    return MergeResult(text, ("text",) * min(done.returncode, 1))


# ---- a keyed three-way sequence merge: the one algorithm behind every level -----------------------

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def merge_keyed(
    base: Sequence[tuple[K, V]],
    ours: Sequence[tuple[K, V]],
    theirs: Sequence[tuple[K, V]],
    both_changed: Callable[[K, V | None, V, V], V],
    *,
    theirs_new_at_end: bool,
) -> list[V]:
    """Three-way merge of sequences of keyed items (keys unique within each sequence).

    Present on both sides: a side equal to base yields to the other; else ``both_changed``.
    Present on one side: kept, unless base had it unchanged (then the other side deleted it).
    Order: ours' order; theirs' new items at the end, or (``theirs_new_at_end=False``) after the
    item before them in theirs and after ours' own insertions at that place.
    """
    b, o, t = dict(base), dict(ours), dict(theirs)

    def merged(key: K) -> tuple[bool, V | None]:
        if key in o and key in t:
            if key in b and o[key] == b[key]:
                return True, t[key]
            if key in b and t[key] == b[key]:
                return True, o[key]
            return True, both_changed(key, b.get(key), o[key], t[key])
        side = o if key in o else t
        if key in b and side[key] == b[key]:
            return False, None  # deleted on the other side, unchanged here
        return True, side[key]

    values: dict[K, V] = {}
    order: list[K] = []
    for key, _ in ours:
        keep, value = merged(key)
        if keep:
            values[key] = value  # type: ignore[assignment]
            order.append(key)
    last_anchor = -1
    for key, _ in theirs:
        if key in o:
            if key in values and not theirs_new_at_end:  # index() is linear: only where anchors matter
                last_anchor = order.index(key)
            continue
        keep, value = merged(key)
        if not keep:
            continue
        values[key] = value  # type: ignore[assignment]
        if theirs_new_at_end:
            order.append(key)
            continue
        last_anchor += 1
        # Both sides inserted after the same item: ours' insertions first, then theirs'.
        while last_anchor < len(order) and order[last_anchor] not in b and order[last_anchor] not in t:
            last_anchor += 1
        order.insert(last_anchor, key)
    return [values[key] for key in order]


def _with_ordinals(keys: Iterable[Hashable]) -> list[tuple[Hashable, int]]:
    """Make keys unique by numbering repeats: the n-th ``x`` on each side is the same item."""
    seen: Counter[Hashable] = Counter()
    out = []
    for key in keys:
        out.append((key, seen[key]))
        seen[key] += 1
    return out


# ---- small value merges ---------------------------------------------------------------------------


def conflict_lines(ours: Sequence[str], theirs: Sequence[str], eol: str) -> tuple[str, ...]:
    """Both versions between git-style markers; every line ends with a line ending."""
    return (
        OURS_MARKER + eol,
        *(_terminated(line, eol) for line in ours),
        SEPARATOR_MARKER + eol,
        *(_terminated(line, eol) for line in theirs),
        THEIRS_MARKER + eol,
    )


def merge_comma_list(base: str, ours: str, theirs: str) -> str:
    """Set-like three-way merge of ``a, b, c`` values (ours' order, then theirs' additions)."""

    def items(value: str) -> list[str]:
        return [item.strip() for item in value.split(",") if item.strip()]

    b, o, t = items(base), items(ours), items(theirs)
    kept = [item for item in o if item in t or item not in b]
    kept += [item for item in t if item not in o and item not in b and item not in kept]
    return ", ".join(kept)


def merge_occurrence_lists(
    base: Sequence[Occurrence], ours: Sequence[Occurrence], theirs: Sequence[Occurrence], keep: int
) -> tuple[Occurrence, ...]:
    """Multiset three-way merge, then the store's bound (see the module docstring)."""
    wanted = Counter(ours)
    wanted.update(theirs)
    wanted.subtract(base)
    emitted: Counter[Occurrence] = Counter()
    merged: list[Occurrence] = []
    for item in (*ours, *theirs):
        if emitted[item] < wanted[item]:
            merged.append(item)
            emitted[item] += 1
    merged.sort(key=lambda item: item.date)  # stable: equal dates keep ours-then-theirs order
    return bound_occurrences(merged, keep)


def bound_occurrences(items: Sequence[Occurrence], keep: int) -> tuple[Occurrence, ...]:
    """Trim exactly as the store does when it adds one occurrence too many."""
    if len(items) <= max(1, keep):
        return tuple(items)
    return occ.add(items[:-1], items[-1], keep)


def three_way_count(base: int, ours: int, theirs: int) -> int:
    return max(0, ours + theirs - base)


def _later(first: str, second: str) -> str:
    return max(first, second) if first and second else first or second


def _earlier(first: str, second: str) -> str:
    return min(first, second) if first and second else first or second


def _ranked(ours: str, theirs: str, rank: dict[str, int]) -> str | None:
    """The higher-ranked of two values (ours on a tie); None when neither is known."""
    o_rank, t_rank = rank.get(ours.strip().casefold(), -1), rank.get(theirs.strip().casefold(), -1)
    if o_rank < 0 and t_rank < 0:
        return None
    return theirs if t_rank > o_rank else ours


# ---- entries --------------------------------------------------------------------------------------


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
    match = re.match(r"^###[ \t]+(.+?)[ \t]*#*[ \t]*$", strip_eol(chunk[0]))
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
    return [(key, (line,)) for key, line in zip(_with_ordinals(_line_key(line) for line in lines), lines)]


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
            if name == "recurrence-count":
                return entry.recurrence_count
            return entry.helpful if name == "helpful" else entry.harmful

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
    """One bold-field or metadata line changed on both sides (see the module docstring)."""
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
    elif name == "first-seen":
        chosen = _earlier(o_value.strip(), t_value.strip())
    elif name in ("last-seen",):
        chosen = _later(o_value.strip(), t_value.strip())
    elif name == "logged":
        chosen = _earlier(o_value.strip(), t_value.strip())
    elif name == "status":
        chosen = _ranked(o_value, t_value, _STATUS_RANK)
    elif name == "priority":
        chosen = _ranked(o_value, t_value, _PRIORITY_RANK)
    elif name == "frequency":
        chosen = _ranked(o_value, t_value, {v: r for r, v in enumerate(_FREQUENCY_ORDER)})
    elif name in _LIST_FIELDS:
        chosen = merge_comma_list(b_value, o_value, t_value)
    elif name == "last-excerpt":
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
    for line, bare in zip(theirs[len(base) :], bare_t[len(base) :]):
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
    elif key in _ACTION_TITLES and (appended := _merge_action_lines(b_body, o_body, t_body)) is not None:
        body = list(appended)
    else:
        conflicts.add(f"{trio.ours.id}: {strip_eol(title).lstrip('#').strip()}")
        body = list(conflict_lines(o_body, t_body, eol))
    return _joined([title, *body, *o_tail], eol)


def _joined(lines: Sequence[str], eol: str) -> tuple[str, ...]:
    """Every line but the last ends with a line ending (a piece may come from a file's last line)."""
    return tuple(_terminated(line, eol) if n + 1 < len(lines) else line for n, line in enumerate(lines))


T = TypeVar("T")


def _pick(base: T | None, ours: T, theirs: T) -> T:
    """A part that is not worth a conflict: the changed side, ours if both changed."""
    return theirs if ours == base else ours


def merge_entry(base: Entry | None, ours: Entry, theirs: Entry, *, keep: int = DEFAULT_KEEP) -> MergeResult:
    """Three-way merge of one entry (see the module docstring); ``.text`` is the entry's text."""
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
        return list(zip(_with_ordinals(_section_key(chunk) for chunk in chunks), chunks))

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


# ---- learnings files ------------------------------------------------------------------------------


def _keyed_entries(entries: Sequence[Entry]) -> list[tuple[Hashable, Entry]]:
    return list(zip(_with_ordinals(entry.id.upper() for entry in entries), entries))


def _is_collision(ours: Entry, theirs: Entry) -> bool:
    """Two unrelated learnings that drew the same random ID on two branches."""
    return bool(ours.logged and theirs.logged and ours.logged != theirs.logged)


def merge_learnings(
    base: str, ours: str, theirs: str, *, keep: int = DEFAULT_KEEP, text_merge: TextMerge = plain_text_merge
) -> MergeResult:
    """Three-way merge of a learnings file (see the module docstring)."""
    if ours == base:
        return MergeResult(theirs)
    if theirs == base:
        return MergeResult(ours)
    parsed_b, parsed_o, parsed_t = parse_text(base), parse_text(ours), parse_text(theirs)
    keyed_b = _keyed_entries(parsed_b.entries)
    keyed_o = _keyed_entries(parsed_o.entries)
    keyed_t = _keyed_entries(parsed_t.entries)
    in_base, in_ours = dict(keyed_b), dict(keyed_o)
    notes: list[str] = []
    for index, (key, entry) in enumerate(keyed_t):
        if key not in in_base and key in in_ours and _is_collision(in_ours[key], entry):
            keyed_t[index] = ((key, "theirs"), entry)  # a different key: appended as a new entry
            notes.append(f"{entry.id}: the same ID was given to two different entries; both kept")

    conflicts: list[str] = []

    def both(_key: Hashable, b: Entry | None, o: Entry, t: Entry) -> Entry:
        result = merge_entry(b, o, t, keep=keep)
        conflicts.extend(result.conflicts)
        return Entry(tuple(split_lines(result.text)))

    entries = merge_keyed(keyed_b, keyed_o, keyed_t, both, theirs_new_at_end=True)
    preamble = _merge_preamble(parsed_b.preamble, parsed_o.preamble, parsed_t.preamble, text_merge)
    conflicts[:0] = preamble.conflicts
    eol = dominant_eol(ours)
    pieces = [preamble.text, *(entry.text for entry in entries)]
    text = ""
    for piece in pieces:
        if not piece:
            continue
        if text and not text.endswith("\n"):
            text += eol + eol  # as the store separates an entry appended to such a file
        text += piece
    if ours.endswith("\n") and text and not text.endswith("\n"):
        text += eol
    return MergeResult(text, tuple(conflicts), tuple(notes))


def _merge_preamble(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str], text_merge: TextMerge) -> MergeResult:
    b, o, t = "".join(base), "".join(ours), "".join(theirs)
    if o == b or o == t:
        return MergeResult(t)
    if t == b:
        return MergeResult(o)
    result = text_merge(b, o, t)
    return MergeResult(result.text, ("preamble",) if result.conflicts else ())


# ---- managed blocks -------------------------------------------------------------------------------

_BEGIN_PREFIX = f"<!-- {RULES_MARKER}:begin"
_END_LINE = f"<!-- {RULES_MARKER}:end -->"
_RULE = re.compile(r"[ \t]*- (?P<text>.*?)[ \t]*<!-- (?P<id>[A-Z]+-\d{8}-[A-Za-z0-9]+) -->[ \t]*")


class _Unmergeable(Exception):
    """Markers we cannot pair: the file gets the plain line merge instead."""


@dataclass(frozen=True)
class _Split:
    """A file cut around its rules block: ``before + block + after`` is the text."""

    before: str
    block: tuple[str, ...] | None  # the begin line to the end line, with their endings
    after: str


def has_managed_block(text: str) -> bool:
    return _BEGIN_PREFIX in text


def _split_block(text: str) -> _Split:
    lines = split_lines(text)
    fences = FenceTracker()
    begin: int | None = None
    found: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        bare = strip_eol(line)
        if fences.inside_after(bare):
            continue
        stripped = bare.strip().lstrip("\ufeff")
        if stripped.startswith(_BEGIN_PREFIX) and stripped.endswith("-->"):
            if begin is not None:
                raise _Unmergeable("nested begin marker")
            begin = index
        elif stripped == _END_LINE:
            if begin is None:
                raise _Unmergeable("end marker without begin")
            found.append((begin, index))
            begin = None
    if begin is not None or len(found) > 1:
        raise _Unmergeable("unpaired or repeated markers")
    try:  # the reviewer's parser must agree with ours, or we do not touch the block
        rules = [rule.entry_id for rule in list_rules(text)]
    except ManagedBlockError as exc:
        raise _Unmergeable(str(exc)) from None
    if not found:
        if rules:
            raise _Unmergeable("markers we could not find")
        return _Split(text, None, "")
    first, last = found[0]
    block = tuple(lines[first : last + 1])
    mine = [m["id"] for line in block if (m := _RULE.fullmatch(strip_eol(line)))]
    if mine != rules:
        raise _Unmergeable("the block parses differently")
    return _Split("".join(lines[:first]), block, "".join(lines[last + 1 :]))


def _block_items(block: Sequence[str]) -> list[tuple[Hashable, tuple[Hashable, str]]]:
    """Lines of a block keyed: ``begin``, ``end``, ``rule``-by-ID, anything else by content."""

    def key(n: int, line: str) -> Hashable:
        if n == 0:
            return "begin"
        if n == len(block) - 1:
            return "end"
        match = _RULE.fullmatch(strip_eol(line))
        return ("rule", match["id"]) if match else ("line", strip_eol(line))

    keys = _with_ordinals(key(n, line) for n, line in enumerate(block))
    return [(k, (k, line)) for k, line in zip(keys, block)]


def _is_rule(key: Hashable) -> bool:
    inner = key[0]  # type: ignore[index]
    return isinstance(inner, tuple) and inner[0] == "rule"


def _merge_blocks(
    base: tuple[str, ...] | None, ours: tuple[str, ...] | None, theirs: tuple[str, ...] | None
) -> list[str]:
    """The merged block's lines (begin to end); no rule bullet left -> []."""
    b = _block_items(base) if base else []
    o = _block_items(ours) if ours else []
    t = _block_items(theirs) if theirs else []
    # A side without the block retired every rule, but says nothing about heading or markers.
    if ours is None:
        o = [item for item in b if not _is_rule(item[0])]
    if theirs is None:
        t = [item for item in b if not _is_rule(item[0])]
    # Changed on both sides (a reworded rule, a new note in the begin marker): ours.
    merged = merge_keyed(b, o, t, lambda _key, _b, o_item, _t: o_item, theirs_new_at_end=False)
    if not any(_is_rule(key) for key, _ in merged):
        return []
    first = {key[0]: line for key, line in merged if key[0] in ("begin", "end")}  # type: ignore[index]
    fallback = ours or theirs or base or ("", "")
    middle = [line for key, line in merged if key[0] not in ("begin", "end")]  # type: ignore[index]
    return [first.get("begin", fallback[0]), *middle, first.get("end", fallback[-1])]


def _placeholder(texts: Iterable[str]) -> str:
    texts = list(texts)
    n = 0
    while any(f"self-improve-merge-placeholder-{n}" in text for text in texts):
        n += 1
    return f"<!-- self-improve-merge-placeholder-{n} -->"


def _outside(split: _Split, placeholder: str) -> str:
    if split.block is None:
        return split.before
    return split.before + placeholder + eol_of(split.block[-1]) + split.after


def merge_managed(base: str, ours: str, theirs: str, *, text_merge: TextMerge = plain_text_merge) -> MergeResult:
    """Three-way merge of a file holding a learned-rules block (see the module docstring)."""
    if ours == base:
        return MergeResult(theirs)
    if theirs == base:
        return MergeResult(ours)
    try:
        splits = [_split_block(text) for text in (base, ours, theirs)]
    except _Unmergeable:
        return text_merge(base, ours, theirs)
    if all(split.block is None for split in splits):
        return text_merge(base, ours, theirs)
    placeholder = _placeholder((base, ours, theirs))
    outside = text_merge(*(_outside(split, placeholder) for split in splits))
    block = _merge_blocks(*(split.block for split in splits))
    text = outside.text
    if not block:
        if placeholder in text:
            text = remove_block(text.replace(placeholder, f"{_BEGIN_PREFIX} -->{dominant_eol(text)}{_END_LINE}"), marker_name=RULES_MARKER)
        return MergeResult(text, outside.conflicts)
    block_text = "".join(block)
    block_text = block_text[: len(block_text) - len(eol_of(block[-1]))]  # the placeholder line keeps its own ending
    if placeholder in text:
        text = _with_merged_hash(text.replace(placeholder, block_text), (base, ours, theirs))
    else:  # the line merge dropped the block's place; the rules still belong in the file
        body = "".join(_terminated(line, "\n") for line in block[1:-1])
        note = strip_eol(block[0]).strip()[len(_BEGIN_PREFIX) :].removesuffix("-->").strip()
        text = upsert_block(text, body, marker_name=RULES_MARKER, note=note or RULES_NOTE)  # hashes the body
    return MergeResult(text, outside.conflicts)


def _with_merged_hash(text: str, inputs: Iterable[str]) -> str:
    """The merged block's begin marker with the hash of its merged bullets.

    Only when every input's block was hashed over its own content (or had no hash): a block some
    side edited by hand keeps the stale hash it came with, so ``lint`` still shows the hand edit
    and the merge never passes it off as ours (the rule ``upsert_rule`` follows).
    """
    for source in inputs:
        if any(block.stored_hash not in (None, block.actual_hash) for block in scan_rules(source).blocks):
            return text
    try:
        return rehash(text, RULES_MARKER)
    except ManagedBlockError:  # two copies of the block inside a whole-file conflict, say: left as merged
        return text


# ---- which merge a path needs ---------------------------------------------------------------------


def merge_kind(path: str, base: str, ours: str, theirs: str) -> str:
    """``learnings``, ``managed`` or ``text``: which merge a path needs (by path, then content)."""
    parts = path.replace("\\", "/").split("/")
    if ".learnings" in parts[:-1] and parts[-1].lower().endswith(".md"):
        return "learnings"
    if any(has_managed_block(text) for text in (base, ours, theirs)):
        return "managed"
    return "text"


def merge_file(
    path: str, base: str, ours: str, theirs: str, *, keep: int = DEFAULT_KEEP, text_merge: TextMerge = plain_text_merge
) -> MergeResult:
    """Pick the merge by path and content: learnings, managed block, or plain text."""
    kind = merge_kind(path, base, ours, theirs)
    if kind == "learnings":
        return merge_learnings(base, ours, theirs, keep=keep, text_merge=text_merge)
    if kind == "managed":
        return merge_managed(base, ours, theirs, text_merge=text_merge)
    return text_merge(base, ours, theirs)


# ---- import: folding an entry from another store into a local one ---------------------------------


def union_occurrences(local: Sequence[Occurrence], incoming: Sequence[Occurrence]) -> list[Occurrence]:
    """Multiset union (an occurrence present in both is the same event): local's, then the new ones, by date."""
    have = Counter(local)
    merged = list(local)
    for item in incoming:
        if have[item] > 0:
            have[item] -= 1
        else:
            merged.append(item)
    merged.sort(key=lambda item: item.date)
    return merged


def absorbed_count(local: Entry, incoming: Entry) -> int:
    """Recurrences after an import: each side's count plus the other's events it has not seen.

    Exact when both histories are complete; when the store's bound dropped old occurrences, the
    events it folded away cannot be matched, so the larger estimate wins (an import may
    undercount, never double count).
    """
    mine, theirs = Counter(local.occurrences), Counter(incoming.occurrences)
    new_to_me = sum((theirs - mine).values())
    new_to_them = sum((mine - theirs).values())
    return max(local.recurrence_count + new_to_me, incoming.recurrence_count + new_to_them)


def absorb_entry(local: Entry, incoming: Entry, *, same_entry: bool, keep: int = DEFAULT_KEEP) -> Entry:
    """Fold an imported entry into a local one, the way ``log`` folds an occurrence in.

    ``same_entry``: the two share an ID (one lineage, e.g. exported from here earlier), so
    status, lists and empty sections are merged too; otherwise the import is one more set of
    occurrences of a matching local entry (same Pattern-Key or near-identical summary).
    Occurrences are a union and counts never double count (:func:`absorbed_count`), which is
    what makes importing the same export twice a no-op. No conflict markers: local text wins.
    """
    updated = local
    merged = bound_occurrences(union_occurrences(local.occurrences, incoming.occurrences), keep)
    if merged != local.occurrences:
        updated = updated.with_metadata("Occurrences", ", ".join(item.render() for item in merged))
    count = absorbed_count(local, incoming)
    if count != local.recurrence_count:
        updated = updated.with_metadata("Recurrence-Count", str(count))
    first = _earlier(local.first_seen, incoming.first_seen)
    if first != local.first_seen:
        updated = updated.with_metadata("First-Seen", first)
    last = _later(local.last_seen, incoming.last_seen)
    if last != local.last_seen:
        updated = updated.with_metadata("Last-Seen", last)
        if incoming.meta("Last-Excerpt"):
            updated = updated.with_metadata("Last-Excerpt", incoming.meta("Last-Excerpt"))
    for name in ("Helpful", "Harmful"):
        mine, theirs = _count_of(local, name), _count_of(incoming, name)
        total = max(mine, theirs) if same_entry else mine + theirs
        if total != mine:
            updated = updated.with_metadata(name, str(total))
    priority = _ranked(local.priority, incoming.priority, _PRIORITY_RANK)
    if priority and priority != local.priority:
        updated = updated.with_field("Priority", priority)
    if incoming.pattern_key and not updated.pattern_key:
        updated = updated.with_metadata("Pattern-Key", incoming.pattern_key)
    if updated.meta("Frequency") and count > 1 and updated.meta("Frequency") != "recurring":
        updated = updated.with_metadata("Frequency", "recurring")
    updated = _absorb_action(updated, incoming)
    if same_entry:
        updated = _absorb_same_entry(updated, incoming)
    return updated


def _count_of(entry: Entry, name: str) -> int:
    return entry.helpful if name == "Helpful" else entry.harmful


_ACTION_TITLE = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}


def _absorb_action(local: Entry, incoming: Entry) -> Entry:
    """Fix lines the local entry lacks are appended, as ``log --action`` appends a new fix."""
    current = local.suggested_action.splitlines()
    known = {line.strip() for line in current}
    new = [line.rstrip() for line in incoming.suggested_action.splitlines() if line.strip() and line.strip() not in known]
    if not new:
        return local
    section = local.section(*ACTION_SECTIONS) or incoming.section(*ACTION_SECTIONS)
    title = section.title if section is not None else _ACTION_TITLE.get(local.kind, "Suggested Action")
    return local.with_section(title, [*current, *new] if any(line.strip() for line in current) else new)


def _absorb_same_entry(local: Entry, incoming: Entry) -> Entry:
    updated = local
    status = _ranked(local.status, incoming.status, _STATUS_RANK)
    if status and status != local.status:
        updated = updated.with_status(status)
    for name in ("Promoted",):
        merged = merge_comma_list("", local.field(name), incoming.field(name))
        if merged and merged != local.field(name).strip():
            updated = updated.with_field(name, merged)
    for name in ("See Also", "Tags", "Related Files"):
        merged = merge_comma_list("", local.meta(name), incoming.meta(name))
        if merged and merged != local.meta(name).strip():
            updated = updated.with_metadata(name, merged)
    for section in incoming.sections:
        title = section.title
        if title.casefold() in ("metadata", *_ACTION_TITLES):
            continue
        theirs = incoming.section_text(title)
        if theirs.strip() and not updated.section_text(title).strip():
            updated = updated.with_section(title, theirs.splitlines())
    return updated
