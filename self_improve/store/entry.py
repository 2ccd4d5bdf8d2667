"""The Markdown entry grammar of the reference self-improving-agent skill, parsed losslessly.

A learnings file is a preamble followed by entries. Each entry starts at a header line outside a
code fence (``## [ID] name``, or a near-miss of it: ``store/headers.py``) and runs to the next. An ``Entry`` keeps its raw lines (with their
own line endings) as the single source of truth: rendering is concatenation, so an unmodified file
renders back to the same bytes, and every edit touches only the lines it must.

Recognised inside an entry (everything else is kept as it is):
- bold fields ``**Key**: value`` (``Logged``, ``Priority``, ``Status``, ``Area``, ``Promoted``,
  ``Skill-Path``, also ``**See Also**: X``), listed or not, with an ASCII or a full-width colon,
- sections ``### Title``,
- metadata lines ``- Key: value`` in ``### Metadata``, and in the header block (before the
  first section), where some authors put them.

Every field is read in either form (``**Pattern-Key**: x`` is ``- Pattern-Key: x``), and its value
as its author meant it (``store/tolerant.py``: decorated statuses, annotated counts, timestamps);
an edit rewrites the line the field is on, in the form it has there.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import cached_property  # functools.cached_property, without importing functools

from self_improve.events import Frozen
from self_improve.store.fences import FIRST_CHARS as FENCE_FIRST_CHARS
from self_improve.store.fences import FenceTracker
from self_improve.store import headers
from self_improve.store.grammar import (
    ACTION_SECTIONS, ACTIVE_STATUSES, DETAILS_SECTIONS, FILE_TO_KIND, ID_PATTERN, ID_REGEX, KINDS, LEARNING_CATEGORIES,
    PREFIX_TO_KIND, PRIORITIES, STATUSES, SUMMARY_SECTIONS, eol_of, split_lines, strip_eol,
)
from self_improve.store.grammar import BOLD_FIELD as _BOLD_FIELD
from self_improve.store.grammar import FIELD_ALIASES as _ALIASES
from self_improve.store.grammar import META_LINE as _META_LINE
from self_improve.store.new_entry import NewEntry, render_new
from self_improve.store.occurrences import Occurrence, parse_occurrences
from self_improve.store.entry_edits import EntryEdits, Section
from self_improve.store.entry_model import EntryModel

# The vocabulary (``grammar``), new entries (``new_entry``) and occurrences are re-exported: the
# package reads the whole entry model from here.
__all__ = [
    "ACTION_SECTIONS", "ACTIVE_STATUSES", "DETAILS_SECTIONS", "FILE_TO_KIND", "ID_PATTERN", "ID_REGEX", "KINDS",
    "LEARNING_CATEGORIES", "PREFIX_TO_KIND", "PRIORITIES", "STATUSES", "SUMMARY_SECTIONS", "Entry", "LearningsFile",
    "NewEntry", "Occurrence", "Section", "entry_offsets", "eol_of", "parse_occurrences", "parse_text", "render_new",
    "split_lines", "strip_eol",
]

_SECTION = re.compile(r"^###[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SEPARATOR = re.compile(r"^[ \t]*---+[ \t]*$")


# The records here are hand-written slotted classes (``events.Frozen``), not dataclasses: the hooks
# parse an entry on every recorded failure, and ``dataclasses`` imports ``inspect``.


class Entry(EntryModel, EntryEdits):
    """One entry: its raw lines are the truth; everything else is derived from them.

    Immutable; equal (and hashed) by its lines only: ``file`` and ``line`` say where it was read.
    Derived values are computed once (``cached_property``, hence a ``__dict__`` and no slots).
    """

    lines: tuple[str, ...]
    file: str
    line: int  # 1-based line of the header in its file

    def __init__(self, lines: tuple[str, ...], file: str = "", line: int = 0) -> None:
        object.__setattr__(self, "lines", lines)
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Entry is immutable: cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Entry is immutable: cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Entry)
        return self.lines == other.lines

    def __hash__(self) -> int:
        return hash((self.lines,))

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(lines={self.lines!r}, file={self.file!r}, line={self.line!r})"

    # ---- structure -------------------------------------------------------------------------
    @cached_property
    def _bare(self) -> tuple[str, ...]:
        # Same as strip_eol on each line, done on the joined text because it is much faster.
        pieces = self.text.split("\n")
        if pieces and pieces[-1] == "":
            pieces.pop()
        return tuple(piece[:-1] if piece.endswith("\r") else piece for piece in pieces)

    @cached_property
    def _in_fence(self) -> tuple[bool, ...]:
        tracker = FenceTracker()
        out = []
        for line in self._bare:
            # Only a line starting with a fence character or indentation can open or close one.
            if tracker.is_open or line[:1] in FENCE_FIRST_CHARS:
                out.append(tracker.inside_after(line))
            else:
                out.append(False)
        return tuple(out)

    @property
    def bare_lines(self) -> tuple[str, ...]:
        """The lines without their endings."""
        return self._bare

    @property
    def fenced(self) -> tuple[bool, ...]:
        """Per line, whether it belongs to a code fence."""
        return self._in_fence

    @cached_property
    def _header(self) -> tuple[str, str, str]:
        found = headers.parse_header(self._bare[0]) if self._bare else None
        return found if found is not None else ("", "", "")

    @property
    def header(self) -> tuple[str, str]:
        return self._header[1], self._header[2]

    @property
    def id(self) -> str:
        """The ID as the header writes it; "" for a dated or cut-off header (``store/headers.py``)."""
        return self._header[1]

    @property
    def category(self) -> str:
        return self._header[2]

    @property
    def name(self) -> str:
        """What the header says after the ID (or the date): a category or a title."""
        return self._header[2]

    @property
    def form(self) -> str:
        """How the header is written: ``headers.REFERENCE`` or one of the near-misses."""
        return self._header[0]

    @property
    def is_heading(self) -> bool:
        """A dated header with no title and nothing under it: a heading over the entries that
        follow it (``## 2026-05-27`` then ``### [LRN-…]``), not an entry; listings skip it."""
        return self.form == headers.DATED and not self.name.strip() and self.body_end <= 1

    @property
    def is_listed(self) -> bool:
        """An entry a listing shows: not a heading, not a cut-off header (``lint`` reports that)."""
        return self.form != headers.CUT_OFF and not self.is_heading

    @property
    def kind(self) -> str:
        """From the ID's prefix; for an entry without one, from the file it is in."""
        found = PREFIX_TO_KIND.get(self.id.split("-", 1)[0].upper(), "")
        if found or not self.file:
            return found
        return FILE_TO_KIND.get(self.file.replace("\\", "/").rsplit("/", 1)[-1], "")

    @cached_property
    def body_end(self) -> int:
        """Index one past the last content line: trailing blanks and the ``---`` separator excluded."""
        bare, fence = self._bare, self._in_fence
        end = len(bare)
        while end > 1:
            line = bare[end - 1]
            if line.strip() and not (line.lstrip().startswith("---") and _SEPARATOR.match(line)):
                break
            if fence[end - 1]:
                break
            end -= 1
        return end

    @cached_property
    def _structure(self) -> tuple[tuple[Section, ...], dict[str, tuple[int, str]], dict[str, tuple[int, str]]]:
        """Sections, bold fields and metadata lines, found in one pass over the entry."""
        bare, fence, body_end = self._bare, self._in_fence, self.body_end
        starts: list[tuple[int, str]] = []
        fields: dict[str, tuple[int, str]] = {}
        listed: dict[str, tuple[int, str]] = {}  # ``- Key: value`` before the first section
        for i in range(1, body_end):
            if fence[i]:
                continue
            line = bare[i]
            if line.startswith("###"):
                match = _SECTION.match(line)
                if match:
                    starts.append((i, match.group(1)))
            elif "**" in line:
                match = _BOLD_FIELD.match(line)
                if match:
                    fields.setdefault(match.group(1).strip().casefold(), (i, match.group(2)))
            elif not starts and line[:1] in "-*":
                match = _META_LINE.match(line)
                if match:
                    listed.setdefault(match.group(1).strip().casefold(), (i, match.group(2)))
        sections = []
        for n, (start, title) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else body_end
            while end > start + 1 and not bare[end - 1].strip():
                end -= 1
            sections.append(Section(title, start, end))
        metadata: dict[str, tuple[int, str]] = {}
        for section in sections:
            if section.title.casefold() != "metadata":
                continue
            for i in range(section.start + 1, section.end):
                line = bare[i]
                if fence[i] or "**" in line or line[:1] not in "-*":
                    continue
                match = _META_LINE.match(line)
                if match:
                    metadata.setdefault(match.group(1).strip().casefold(), (i, match.group(2)))
            break
        for key, found in listed.items():
            metadata.setdefault(key, found)
        return tuple(sections), fields, metadata

    @property
    def sections(self) -> tuple[Section, ...]:
        return self._structure[0]

    @property
    def fields(self) -> dict[str, tuple[int, str]]:
        """Bold fields ``**Key**: value`` (first occurrence of each key wins): key -> (index, value)."""
        return self._structure[1]

    @property
    def metadata(self) -> dict[str, tuple[int, str]]:
        """``- Key: value`` lines of ``### Metadata``, then of the header block (first occurrence
        wins): key -> (index, value)."""
        return self._structure[2]

    def section(self, *titles: str) -> Section | None:
        wanted = {t.casefold() for t in titles}
        for section in self.sections:
            if section.title.casefold() in wanted:
                return section
        return None

    def section_text(self, *titles: str) -> str:
        section = self.section(*titles)
        if section is None:
            return ""
        body = self._bare[section.start + 1 : section.end]
        return "\n".join(body).strip("\n")

    def field(self, name: str, default: str = "") -> str:
        found = self.fields.get(name.casefold())
        return found[1] if found else default

    def meta(self, name: str, default: str = "") -> str:
        found = self.metadata.get(name.casefold())
        return found[1] if found else default

    def meta_or_field(self, name: str) -> str:
        found = self.meta(name) or self.field(name)
        if found:
            return found
        for alias in _ALIASES.get(name.casefold(), ()):
            found = self.meta(alias) or self.field(alias)
            if found:
                return found
        return ""

    def value(self, name: str) -> str:
        """A field in whichever form it is written: bold first, then listed (or its alias)."""
        found = self.field(name) or self.meta(name)
        if found:
            return found
        for alias in _ALIASES.get(name.casefold(), ()):
            found = self.field(alias) or self.meta(alias)
            if found:
                return found
        return ""

    @cached_property
    def text(self) -> str:
        return "".join(self.lines)

# ---- files ------------------------------------------------------------------------------------


class LearningsFile(Frozen):
    """A parsed learnings file: ``preamble + entries`` renders back to the exact input text."""

    __slots__ = ("preamble", "entries")
    preamble: tuple[str, ...]
    entries: tuple[Entry, ...]

    def __init__(self, preamble: tuple[str, ...], entries: tuple[Entry, ...]) -> None:
        self._set(preamble, entries)

    def render(self) -> str:
        return "".join(self.preamble) + "".join(entry.text for entry in self.entries)


# Only fence lines and header lines can change where entries start. A search for a newline
# followed by one of them runs at C speed (a literal first character, ``headers``); the
# fence-aware check then looks at those few lines only.
_BOM = "\ufeff"


def entry_offsets(text: str) -> list[int]:
    """Character offsets where entries start (header lines outside code fences).

    A UTF-8 byte order mark before the first line is the preamble's (kept byte for byte): a
    header right after it still starts the first entry."""
    tracker = FenceTracker()
    starts: list[int] = []
    first = 1 if text.startswith(_BOM) else 0
    positions = [first] if headers.CANDIDATE_AT_START.match(text, first) else []
    positions.extend(match.end() for match in headers.CANDIDATE_AFTER_NEWLINE.finditer(text))
    for start in positions:
        end = text.find("\n", start)
        bare = text[start : end if end != -1 else len(text)]
        if bare.endswith("\r"):
            bare = bare[:-1]
        if tracker.inside_after(bare):
            continue
        if headers.parse_header(bare) is not None:
            starts.append(start)
    return starts


def parse_text(text: str, file: str = "") -> LearningsFile:
    """Total: any text parses; ``parse_text(t).render() == t`` for every string ``t``."""
    starts = entry_offsets(text)
    if not starts:
        return LearningsFile(tuple(split_lines(text)), ())
    entries = []
    line_no = text.count("\n", 0, starts[0]) + 1
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        chunk = text[start:end]
        entries.append(Entry(tuple(split_lines(chunk)), file=file, line=line_no))
        line_no += chunk.count("\n")
    return LearningsFile(tuple(split_lines(text[: starts[0]])), tuple(entries))
