"""Malformed entries and unresolved merges, as ``file:line: reason``. Reads only; never fixes
anything."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

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
from self_improve.store.merge_values import SUMMED_COUNTS

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Bytes that were not UTF-8 come back from surrogateescape decoding as lone surrogates.
_UNDECODABLE = re.compile("[\udc80-\udcff]")
_TASK = re.compile(r"^[0-9a-f]{4,64}$|^-$")
# Metadata holding a whole number (the event counts ``merge`` sums) and a day.
NUMERIC_FIELDS = SUMMED_COUNTS
DATE_FIELDS = ("First-Seen", "Last-Seen", "Promoted-On", "Last-Measured-Helpful")
# git's conflict markers (conflict-marker-size 7): "<<<<<<< ours", "||||||| base" (diff3),
# "=======", ">>>>>>> theirs". The separator is also a Markdown setext underline, so it counts
# only between an opening marker and its closing one.
_OPENING, _BASE, _SEPARATOR, _CLOSING = "<<<<<<<", "|||||||", "=======", ">>>>>>>"


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    reason: str

    def render(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


def lint_file(parsed: LearningsFile, file: str, expected_prefix: str | None = None) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for entry in parsed.entries:
        problems.extend(lint_entry(entry, file, expected_prefix))
        key = entry.id.upper()
        if key in seen:
            problems.append(Problem(file, entry.line, f"duplicate ID {entry.id} (first at line {seen[key]})"))
        else:
            seen[key] = entry.line
    return problems


def lint_entry(entry: Entry, file: str, expected_prefix: str | None = None) -> list[Problem]:
    out: list[Problem] = []

    def problem(offset: int, reason: str) -> None:
        out.append(Problem(file, entry.line + offset, reason))

    if not ID_PATTERN.match(entry.id):
        problem(0, f"malformed ID {entry.id!r}: expected TYPE-YYYYMMDD-XXX with TYPE one of LRN, ERR, FEAT")
    elif expected_prefix and not entry.id.upper().startswith(expected_prefix + "-"):
        problem(0, f"{entry.id} does not belong in this file (expected {expected_prefix}-…)")
    if _UNDECODABLE.search(entry.text):
        problem(0, "not valid UTF-8")
    status_field = entry.fields.get("status")
    if status_field and entry.status not in STATUSES:
        problem(status_field[0], f"unknown status {status_field[1]!r}")
    priority_field = entry.fields.get("priority")
    if priority_field and entry.priority not in PRIORITIES:
        problem(priority_field[0], f"unknown priority {priority_field[1]!r}")
    if not entry.summary:
        problem(0, "no summary (### Summary, or ### Requested Capability for a feature request)")
    for key in NUMERIC_FIELDS:
        found = entry.metadata.get(key.casefold())
        if found and not found[1].strip().isdigit():
            problem(found[0], f"{key} must be a whole number, not {found[1]!r}")
    for key in DATE_FIELDS:
        found = entry.metadata.get(key.casefold())
        if found and not _DATE.match(found[1].strip()[:10]):
            problem(found[0], f"{key} must be a date YYYY-MM-DD, not {found[1]!r}")
    found = entry.metadata.get("occurrences")
    if found:
        for item in (i.strip() for i in found[1].split(",") if i.strip()):
            date, _, task = item.partition("/")
            if not _DATE.match(date.strip()) or not _TASK.match(task.strip() or "-"):
                problem(found[0], f"malformed occurrence {item!r}: expected YYYY-MM-DD/TASK")
                break
    if _unclosed_fence(entry):
        problem(0, "a code fence opened in this entry is never closed")
    return out


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
