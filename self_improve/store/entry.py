"""The Markdown entry grammar of the reference self-improving-agent skill, parsed losslessly.

A learnings file is a preamble followed by entries. Each entry starts at a ``## [ID] name`` line
outside a code fence and runs to the next such line. An ``Entry`` keeps its raw lines (with their
own line endings) as the single source of truth: rendering is concatenation, so an unmodified file
renders back to the same bytes, and every edit touches only the lines it must.

Recognised inside an entry (everything else is kept as it is):
- bold fields ``**Key**: value`` (``Logged``, ``Priority``, ``Status``, ``Area``, ``Promoted``,
  ``Skill-Path``, also ``**See Also**: X``),
- sections ``### Title``,
- metadata lines ``- Key: value`` in ``### Metadata``.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import cached_property  # functools.cached_property, without importing functools

from self_improve.events import Frozen
from self_improve.store.fences import FIRST_CHARS as FENCE_FIRST_CHARS
from self_improve.store.fences import FenceTracker
from self_improve.store.grammar import (
    ACTION_SECTIONS, ACTIVE_STATUSES, DETAILS_SECTIONS, FILE_TO_KIND, ID_PATTERN, ID_REGEX, KINDS, LEARNING_CATEGORIES,
    PREFIX_TO_KIND, PRIORITIES, STATUSES, SUMMARY_SECTIONS, eol_of, split_lines, strip_eol,
)
from self_improve.store.new_entry import NewEntry, render_new
from self_improve.store.occurrences import Occurrence, parse_occurrences

# The vocabulary (``grammar``), new entries (``new_entry``) and occurrences are re-exported: the
# package reads the whole entry model from here.
__all__ = [
    "ACTION_SECTIONS", "ACTIVE_STATUSES", "DETAILS_SECTIONS", "FILE_TO_KIND", "ID_PATTERN", "ID_REGEX", "KINDS",
    "LEARNING_CATEGORIES", "PREFIX_TO_KIND", "PRIORITIES", "STATUSES", "SUMMARY_SECTIONS", "Entry", "LearningsFile",
    "NewEntry", "Occurrence", "Section", "entry_offsets", "eol_of", "parse_occurrences", "parse_text", "render_new",
    "split_lines", "strip_eol",
]

_HEADER = re.compile(r"^##[ \t]+\[([^\]\r\n]*)\][ \t]*(.*?)[ \t]*$")
_BOLD_FIELD = re.compile(r"^(?:[-*][ \t]+)?\*\*([^*\r\n]+?)(?::\*\*|\*\*:)[ \t]?(.*?)[ \t]*$")
_META_LINE = re.compile(r"^[-*][ \t]+([A-Za-z][A-Za-z0-9 _/-]*?):[ \t]?(.*?)[ \t]*$")
_SECTION = re.compile(r"^###[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SEPARATOR = re.compile(r"^[ \t]*---+[ \t]*$")


# The records here are hand-written slotted classes (``events.Frozen``), not dataclasses: the hooks
# parse an entry on every recorded failure, and ``dataclasses`` imports ``inspect``.


class Section(Frozen):
    __slots__ = ("title", "start", "end")
    title: str
    start: int  # index of the ``### Title`` line within the entry
    end: int  # index one past the section's last line (trailing blanks and --- excluded)

    def __init__(self, title: str, start: int, end: int) -> None:
        self._set(title, start, end)


class Entry:
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

    @cached_property
    def header(self) -> tuple[str, str]:
        match = _HEADER.match(self._bare[0]) if self._bare else None
        return (match.group(1).strip(), match.group(2)) if match else ("", "")

    @property
    def id(self) -> str:
        return self.header[0]

    @property
    def category(self) -> str:
        return self.header[1]

    @property
    def kind(self) -> str:
        return PREFIX_TO_KIND.get(self.id.split("-", 1)[0].upper(), "")

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
        """``- Key: value`` lines of ``### Metadata`` (first occurrence wins): key -> (index, value)."""
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
        return self.meta(name) or self.field(name)

    # ---- the derived model -------------------------------------------------------------------
    @property
    def status(self) -> str:
        return self.field("Status").strip().casefold() or "pending"

    @property
    def priority(self) -> str:
        return self.field("Priority").strip().casefold()

    @property
    def area(self) -> str:
        return self.field("Area").strip()

    @property
    def logged(self) -> str:
        return self.field("Logged").strip()

    @property
    def summary(self) -> str:
        text = self.section_text(*SUMMARY_SECTIONS)
        return " ".join(line.strip() for line in text.splitlines() if line.strip())

    @property
    def details(self) -> str:
        return self.section_text(*DETAILS_SECTIONS)

    @property
    def suggested_action(self) -> str:
        return self.section_text(*ACTION_SECTIONS)

    @property
    def pattern_key(self) -> str:
        return self.meta("Pattern-Key").strip()

    @property
    def see_also(self) -> tuple[str, ...]:
        value = self.meta_or_field("See Also")
        return tuple(v for v in re.split(r"[\s,;]+", value) if v)

    @property
    def occurrences(self) -> tuple[Occurrence, ...]:
        return parse_occurrences(self.meta("Occurrences"))

    @property
    def recurrence_count(self) -> int:
        value = self.meta("Recurrence-Count")
        if value.strip().isdigit():
            return int(value)
        return max(1, len(self.occurrences))

    @property
    def first_seen(self) -> str:
        return self.meta("First-Seen").strip() or self.logged[:10]

    @property
    def last_seen(self) -> str:
        return self.meta("Last-Seen").strip() or self.first_seen

    @property
    def helpful(self) -> int:
        return _int(self.meta("Helpful"), default=0)

    @property
    def harmful(self) -> int:
        return _int(self.meta("Harmful"), default=0)

    @property
    def measured_helpful(self) -> int:
        """Recalled fixes this entry gave that were followed by the same intent passing (the hooks
        count them from exit codes, never from the agent's word: ``store/evidence.py``)."""
        return _int(self.meta("Measured-Helpful"), default=0)

    @property
    def measured_harmful(self) -> int:
        """Recalled fixes followed by the same fingerprint failing again."""
        return _int(self.meta("Measured-Harmful"), default=0)

    @property
    def observed_fix(self) -> str:
        """What the hooks saw fix this mistake (``- Observed-Fix:``, our words); "" without one."""
        return self.meta("Observed-Fix").strip()

    @property
    def recurred_after_promotion(self) -> int:
        """Occurrences recorded while the entry was promoted: its rule did not prevent them."""
        return _int(self.meta("Recurred-After-Promotion"), default=0)

    @property
    def recurred_after_resolution(self) -> int:
        """Occurrences recorded while the entry was resolved (each one reopened it)."""
        return _int(self.meta("Recurred-After-Resolution"), default=0)

    @property
    def promoted(self) -> str:
        return self.field("Promoted").strip()

    @property
    def promoted_on(self) -> str:
        """The day ``review``/``promote`` promoted it (``- Promoted-On: YYYY-MM-DD``); "" if unknown."""
        return self.meta("Promoted-On").strip()[:10]

    @cached_property
    def text(self) -> str:
        return "".join(self.lines)

    # ---- edits: each returns a new Entry and keeps every other byte -----------------------
    @property
    def eol(self) -> str:
        for line in self.lines:
            ending = eol_of(line)
            if ending:
                return ending
        return "\n"

    def _replace_value(self, index: int, key_pattern: re.Pattern[str], value: str) -> Entry:
        bare = self._bare[index]
        match = key_pattern.match(bare)
        assert match is not None
        new_bare = bare[: match.start(2)] + value + bare[match.end(2) :]
        if match.start(2) == match.end(2) and not bare[: match.start(2)].endswith((" ", "\t")):
            new_bare = bare[: match.start(2)] + " " + value + bare[match.end(2) :]
        lines = list(self.lines)
        lines[index] = new_bare + eol_of(self.lines[index])
        return self._with_lines(lines)

    def _with_lines(self, lines: list[str]) -> Entry:
        return Entry(tuple(lines), file=self.file, line=self.line)

    def _insert(self, index: int, new_lines: list[str]) -> Entry:
        lines = list(self.lines)
        eol = self.eol
        if index > 0 and index == len(lines) and not eol_of(lines[-1]):
            lines[-1] += eol  # the file had no final newline and we insert after its last line
        lines[index:index] = [line + eol for line in new_lines]
        return self._with_lines(lines)

    def with_field(self, name: str, value: str) -> Entry:
        """Set ``**name**: value``; a new field goes after the last bold field of the header block."""
        found = self.fields.get(name.casefold())
        if found is not None:
            return self._replace_value(found[0], _BOLD_FIELD, value)
        first_section = self.sections[0].start if self.sections else self.body_end
        header_fields = [i for i, _ in self.fields.values() if i < first_section]
        if header_fields:
            return self._insert(max(header_fields) + 1, [f"**{name}**: {value}"])
        return self._insert(1, ["", f"**{name}**: {value}"])

    def with_status(self, status: str) -> Entry:
        return self.with_field("Status", status)

    def with_metadata(self, key: str, value: str) -> Entry:
        """Set ``- key: value`` in ``### Metadata``, creating the section if needed."""
        found = self.metadata.get(key.casefold())
        if found is not None:
            return self._replace_value(found[0], _META_LINE, value)
        section = self.section("Metadata")
        if section is not None:
            return self._insert(section.end, [f"- {key}: {value}"])
        return self.with_section("Metadata", [f"- {key}: {value}"])

    def with_section(self, title: str, body: list[str]) -> Entry:
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


def _int(value: str, default: int) -> int:
    try:
        return int(value.strip())
    except ValueError:
        return default


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
# followed by one of them runs at C speed (a literal first character); the fence-aware check
# then looks at those few lines only.
_CANDIDATE_AFTER_NEWLINE = re.compile("\n(?=##[ \t]+\\[| {0,3}(?:```|~~~))")
_CANDIDATE_AT_START = re.compile("##[ \t]+\\[| {0,3}(?:```|~~~)")


def entry_offsets(text: str) -> list[int]:
    """Character offsets where entries start (header lines outside code fences)."""
    tracker = FenceTracker()
    starts: list[int] = []
    positions = [0] if _CANDIDATE_AT_START.match(text) else []
    positions.extend(match.end() for match in _CANDIDATE_AFTER_NEWLINE.finditer(text))
    for start in positions:
        end = text.find("\n", start)
        bare = text[start : end if end != -1 else len(text)]
        if bare.endswith("\r"):
            bare = bare[:-1]
        if tracker.inside_after(bare):
            continue
        if _HEADER.match(bare):
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
