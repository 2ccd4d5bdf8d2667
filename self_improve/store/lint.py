"""What is really wrong in a learnings file, as ``file:line: reason: hint``. Reads only; the one
fix it knows (near-miss headers to the reference form) is ``store/header_fix.py``.

Reported, each with a hint: duplicate IDs; leftover template entries (``## [LRN-YYYYMMDD-XXX]``);
IDs that are no IDs (``FR-…``, a date, anything else malformed), or an ID in the wrong file;
text that is not UTF-8 (once per file); headers that are not the reference form (``## ID``,
``### [ID]``, a dated ``## 2026-05-27`` header) and cut-off ones (``## [LRN-2026``); a code
fence never closed. Fields are judged as the reader reads them (``store/tolerant.py``,
``store/summary.py``), so a value the reader understands is never reported: only a status or a
priority that names none, an entry with no summary anywhere, a count with no number, a day
field with no date, a malformed occurrence list (our own format).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from self_improve.store import headers, tolerant
from self_improve.store.entry import (
    ID_PATTERN,
    PRIORITIES,
    STATUSES,
    Entry,
    LearningsFile,
    parse_text,
    strip_eol,
)
from self_improve.store.fences import FenceTracker
from self_improve.store.grammar import is_template_id
from self_improve.store.merge_values import SUMMED_COUNTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Report = Callable[[int, str, str, str], None]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Bytes that were not UTF-8 come back from surrogateescape decoding as lone surrogates.
_UNDECODABLE = re.compile("[\udc80-\udcff]")
_TASK = re.compile(r"^[0-9a-f]{4,64}$|^-$")
_DATE_ID = re.compile(r"^\d{4}-?\d{2}-?\d{2}$")
# Metadata holding a whole number (the event counts ``merge`` sums) and a day.
NUMERIC_FIELDS = SUMMED_COUNTS
DATE_FIELDS = ("First-Seen", "Last-Seen", "Promoted-On", "Last-Measured-Helpful")
# git's conflict markers (conflict-marker-size 7): "<<<<<<< ours", "||||||| base" (diff3),
# "=======", ">>>>>>> theirs". The separator is also a Markdown setext underline, so it counts
# only between an opening marker and its closing one.
_OPENING, _BASE, _SEPARATOR, _CLOSING = "<<<<<<<", "|||||||", "=======", ">>>>>>>"
_FIX = "`self-improve lint --fix` rewrites it"


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    reason: str
    hint: str = ""  # what to do about it
    code: str = ""  # a stable name for the kind of problem (``near-miss-header``), for tools

    def render(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}" + (f": {self.hint}" if self.hint else "")

    def as_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "reason": self.reason, "hint": self.hint, "code": self.code}


def lint_file(parsed: LearningsFile, file: str, expected_prefix: str | None = None) -> list[Problem]:
    problems: list[Problem] = []
    undecodable = encoding_problem(parsed.render(), file)
    if undecodable is not None:
        problems.append(undecodable)
    seen: dict[str, int] = {}
    for entry in parsed.entries:
        problems.extend(lint_entry(entry, file, expected_prefix))
        key = entry.id.upper()
        if not key:
            continue
        if key in seen:
            problems.append(Problem(file, entry.line, f"duplicate ID {entry.id} (first at line {seen[key]})",
                                    "give one of the two entries a new ID", "duplicate-id"))
        else:
            seen[key] = entry.line
    return problems


def encoding_problem(text: str, file: str) -> Problem | None:
    """Text that is not UTF-8, once per file: a GBK/GB18030 file as a whole (line 1), or the
    first line holding a byte of another encoding."""
    found = _UNDECODABLE.search(text)
    if found is None:
        return None
    raw = text.encode("utf-8", "surrogateescape")
    try:
        raw.decode("gb18030")
    except UnicodeDecodeError:
        line = text.count("\n", 0, found.start()) + 1
        return Problem(file, line, "not valid UTF-8: a byte of another encoding (Latin-1?) in this line",
                       "retype the character in UTF-8 (it is shown as U+FFFD meanwhile)", "undecodable")
    return Problem(file, 1, "not valid UTF-8: the file is GBK/GB18030 text",
                   "convert it once with `iconv -f GB18030 -t UTF-8` (it is read as GB18030 meanwhile)", "not-utf8")


def lint_entry(entry: Entry, file: str, expected_prefix: str | None = None) -> list[Problem]:
    out: list[Problem] = []

    def problem(offset: int, reason: str, hint: str, code: str) -> None:
        out.append(Problem(file, entry.line + offset, reason, hint, code))

    if not _header_problems(entry, expected_prefix, problem):
        return out  # a template or a cut-off header: the header says all there is to say
    status_value = entry.value("Status")
    if status_value.strip() and entry.status not in STATUSES:
        problem(_line_of(entry, "status"), f"unknown status {status_value.strip()!r}", f"use one of {', '.join(STATUSES)}",
                "unknown-status")
    priority_value = entry.value("Priority")
    if priority_value.strip() and entry.priority not in PRIORITIES:
        problem(_line_of(entry, "priority"), f"unknown priority {priority_value.strip()!r}",
                f"use one of {', '.join(PRIORITIES)}", "unknown-priority")
    if not entry.summary:
        problem(0, "no summary", "add a ### Summary section: one line saying what happened", "no-summary")
    for key in NUMERIC_FIELDS:
        found = entry.metadata.get(key.casefold())
        if found and tolerant.count_of(found[1]) is None:
            problem(found[0], f"{key} must be a whole number, not {found[1]!r}", "", "not-a-number")
    for key in DATE_FIELDS:
        found = entry.metadata.get(key.casefold())
        if found and not tolerant.day_of(found[1]):
            problem(found[0], f"{key} must be a date YYYY-MM-DD, not {found[1]!r}", "", "not-a-date")
    found = entry.metadata.get("occurrences")
    if found:
        for item in (i.strip() for i in found[1].split(",") if i.strip()):
            date, _, task = item.partition("/")
            if not _DATE.match(date.strip()) or not _TASK.match(task.strip() or "-"):
                problem(found[0], f"malformed occurrence {item!r}", "expected YYYY-MM-DD/TASK", "malformed-occurrence")
                break
    if _unclosed_fence(entry):
        problem(0, "a code fence opened in this entry is never closed",
                "close it: everything after it, later headers too, reads as code", "unclosed-fence")
    return out


def _header_problems(entry: Entry, expected_prefix: str | None, problem: _Report) -> bool:
    """Report what is wrong with the header; False when the rest of the entry is not worth judging."""
    header = entry.bare_lines[0] if entry.bare_lines else ""
    if entry.form == headers.CUT_OFF:
        problem(0, f"cut-off header {header.strip()!r}: the ID is never closed with ']'",
                "complete it as ## [TYPE-YYYYMMDD-NNN] title, or delete the line", "cut-off-header")
        return False
    if entry.form == headers.DATED:
        if not entry.is_heading:
            fixed = f"## [{expected_prefix}-{entry.header_day.replace('-', '')}-001] …" if expected_prefix else "## [ID] title"
            problem(0, f"dated header {header.strip()!r} is not the reference form ## [ID] title (no ID)",
                    f"give it an ID: {fixed} ({_FIX})" if expected_prefix else "give it an ID", "dated-header")
        return not entry.is_heading
    if is_template_id(entry.id):
        problem(0, f"leftover template entry {entry.id} (the skill's example, not a lesson)", "delete it", "template-entry")
        return False
    if entry.form in (headers.BARE_ID, headers.LEVEL_THREE):
        problem(0, f"header {header.strip()!r} is not the reference form ## [ID] title",
                f"write {headers.reference_header(entry.id, entry.name)!r} ({_FIX})", "near-miss-header")
    entry_id = entry.id
    if entry_id.upper().startswith("FR-"):
        problem(0, f"{entry_id}: FR- is not an ID prefix", f"feature requests are FEAT-: FEAT-{entry_id[3:]}", "fr-id")
    elif _DATE_ID.match(entry_id):
        day = entry_id.replace("-", "")
        problem(0, f"[{entry_id}] is a date, not an ID", f"use TYPE-YYYYMMDD-NNN, e.g. LRN-{day}-001", "date-id")
    elif not ID_PATTERN.match(entry_id):
        problem(0, f"malformed ID {entry_id!r}", "expected TYPE-YYYYMMDD-XXX with TYPE one of LRN, ERR, FEAT", "malformed-id")
    elif expected_prefix and not entry_id.upper().startswith(expected_prefix + "-"):
        problem(0, f"{entry_id} does not belong in this file (expected {expected_prefix}-…)", "move it to its kind's file",
                "wrong-file")
    return True


def _line_of(entry: Entry, key: str) -> int:
    found = entry.fields.get(key) or entry.metadata.get(key)
    return found[0] if found else 0


def _unclosed_fence(entry: Entry) -> bool:
    tracker = FenceTracker()
    for line in entry.lines:
        tracker.inside_after(strip_eol(line))
    return tracker.is_open


def lint_texts(files: Iterable[tuple[str, str, str | None]]) -> list[Problem]:
    problems: list[Problem] = []
    for name, text, prefix in files:
        problems.extend(lint_file(parse_text(text, file=name), name, prefix))
    return problems


def _marker_at(line: str, marker: str) -> bool:
    return line.startswith(marker) and (len(line) == len(marker) or line[len(marker)] in " \t")


def conflict_markers(text: str, file: str) -> list[Problem]:
    """git conflict markers left in a learnings file (a merge committed unresolved), outside
    fenced code: each marker line, as ``file:line: reason``."""
    problems: list[Problem] = []
    fences = FenceTracker()
    in_conflict = False
    for number, line in enumerate(text.split("\n"), 1):
        bare = strip_eol(line)
        if fences.inside_after(bare):
            continue
        if _marker_at(bare, _OPENING):
            marker, in_conflict = _OPENING, True
        elif _marker_at(bare, _CLOSING):
            marker, in_conflict = _CLOSING, False
        elif in_conflict and (_marker_at(bare, _BASE) or bare.rstrip(" \t") == _SEPARATOR):
            marker = bare[:7]
        else:
            continue
        problems.append(Problem(file, number, f"git conflict marker {marker} (a merge left unresolved): keep the right text, remove the markers"))
    return problems
