"""The archive files' format: ``.learnings/archive/<year>.md`` holds archived entries, each
followed by a record line; this module writes and reads that line.

Archiving moves an entry verbatim but for its status line; everything restore needs sits in one
comment line that follows the entry in the archive file (never inside the user's entry text)::

    ## [ERR-20250115-001] pytest
    **Status**: archived
    …
    ---
    <!-- self-improve:archived {"after":"ERR-20250110-x1y","eol_added":false,"file":"ERRORS.md",…} -->

- ``undo``: the lines our status edit replaced (``old``) and wrote (``new``) at line ``at`` of
  the entry; restore puts ``old`` back, so the original status line returns with its exact
  spelling and line ending, and a Status line we had to add disappears again. ``status`` is the
  previous status, used only if someone edited those lines in the archive meanwhile.
- ``eol_added``: the entry ended the file without a final newline; the archive adds one so the
  next entry starts on its own line, and restore takes it away again when the entry goes back
  to the end of its file.
- ``after``: where the entry goes back. Positions in a file that keeps changing are fragile, so
  we keep the entry's predecessor in the *virtual* order of its file: the entries in the file
  plus every archived entry put back after its own recorded predecessor. That order never changes
  when an entry is archived or restored, so each entry's recorded predecessor stays its true
  predecessor, and "insert right after the nearest predecessor that is in the file" puts every
  entry back where it was, whatever the order of the restores. ``""`` means the file's start.
  ``index`` (its position among the file's entries) is the fallback when the predecessor has
  been deleted by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from self_improve.errors import SelfImproveError
from self_improve.store.entry import Entry, LearningsFile, parse_text, strip_eol
from self_improve.store.fences import FenceTracker

ARCHIVE_DIR = "archive"
RECORD_PREFIX = "<!-- self-improve:archived "
RECORD_SUFFIX = " -->"
ARCHIVED = "archived"

# Read a file of .learnings/ by its name there ("ERRORS.md", "archive/2025.md"); "" if missing.
Reader = Callable[[str], str]


def archive_header(year: str, eol: str = "\n") -> str:
    lines = [
        f"# Archive {year}",
        "",
        "Entries archived by `self-improve review`, verbatim but for their status line.",
        "`self-improve restore ID` moves one back; the comment after each entry records how.",
        "",
        "---",
        "",
    ]
    return eol.join(lines) + eol


# ---- dates -------------------------------------------------------------------------------------


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def last_seen_day(entry: Entry) -> date | None:
    """The latest date the entry is known to have happened: Last-Seen, occurrences, else logged."""
    days = [_day(entry.meta("Last-Seen")), *(_day(item.date) for item in entry.occurrences)]
    known = [day for day in days if day is not None]
    return max(known) if known else _day(entry.first_seen)


def archive_year(entry: Entry, today: date) -> str:
    return str((last_seen_day(entry) or today).year)


def archive_name(year: str) -> str:
    return f"{ARCHIVE_DIR}/{year}.md"


# ---- the record --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArchiveRecord:
    entry_id: str
    file: str  # the learnings file it came from, e.g. "ERRORS.md"
    after: str  # its predecessor in the file's virtual order ("" = the file's start)
    index: int
    status: str
    undo_at: int
    undo_old: tuple[str, ...]
    undo_new: tuple[str, ...]
    eol_added: bool
    archived_on: str

    def render(self, eol: str) -> str:
        data = {
            "id": self.entry_id,
            "file": self.file,
            "after": self.after,
            "index": self.index,
            "status": self.status,
            "undo": {"at": self.undo_at, "old": list(self.undo_old), "new": list(self.undo_new)},
            "eol_added": self.eol_added,
            "on": self.archived_on,
        }
        # ensure_ascii keeps undecodable bytes (lone surrogates) and line endings as escapes, and
        # escaping ">" means the JSON can never contain "-->", which would end the comment.
        encoded = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":")).replace(">", "\\u003e")
        return f"{RECORD_PREFIX}{encoded}{RECORD_SUFFIX}{eol}"


def parse_record(line: str) -> ArchiveRecord | None:
    bare = strip_eol(line)
    if not (bare.startswith(RECORD_PREFIX) and bare.endswith(RECORD_SUFFIX)):
        return None
    try:
        data: Any = json.loads(bare[len(RECORD_PREFIX) : -len(RECORD_SUFFIX)])
        undo = data["undo"]
        return ArchiveRecord(
            entry_id=str(data["id"]),
            file=str(data["file"]),
            after=str(data.get("after", "")),
            index=int(data.get("index", 0)),
            status=str(data.get("status", "")),
            undo_at=int(undo["at"]),
            undo_old=tuple(str(x) for x in undo["old"]),
            undo_new=tuple(str(x) for x in undo["new"]),
            eol_added=bool(data.get("eol_added", False)),
            archived_on=str(data.get("on", "")),
        )
    except (ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class ArchivedEntry:
    """One entry of an archive file: the archived entry (record line excluded) and its record."""

    entry: Entry
    record: ArchiveRecord | None
    archive_file: str  # e.g. "archive/2025.md"


def _split_chunk(entry: Entry, archive_file: str) -> ArchivedEntry:
    """The record is the chunk's last non-blank line (a blank line follows it, for readability)."""
    lines = entry.lines
    last = len(lines) - 1
    while last > 0 and not strip_eol(lines[last]).strip():
        last -= 1
    record = parse_record(lines[last]) if lines else None
    if record is not None and record.entry_id.upper() == entry.id.upper():
        return ArchivedEntry(Entry(lines[:last], file=entry.file, line=entry.line), record, archive_file)
    return ArchivedEntry(entry, None, archive_file)


def parse_archive(text: str, archive_file: str) -> tuple[LearningsFile, list[ArchivedEntry]]:
    parsed = parse_text(text, file=f".learnings/{archive_file}")
    return parsed, [_split_chunk(entry, archive_file) for entry in parsed.entries]


# ---- pure edits ------------------------------------------------------------------------------------


def _lines_diff(old: Sequence[str], new: Sequence[str]) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """The one contiguous change from ``old`` to ``new``: (start, old lines, new lines)."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, tuple(old[start:end_old]), tuple(new[start:end_new])


def has_unclosed_fence(entry: Entry) -> bool:
    tracker = FenceTracker()
    for line in entry.lines:
        tracker.inside_after(strip_eol(line))
    return tracker.is_open


def archived_form(entry: Entry, after: str, index: int, file: str, today: date) -> str:
    """The entry as it is stored in the archive: status ``archived``, then its record line."""
    changed = entry.with_status(ARCHIVED)
    at, old, new = _lines_diff(entry.lines, changed.lines)
    text = changed.text
    eol_added = not text.endswith("\n")
    if eol_added:
        text += entry.eol
    record = ArchiveRecord(
        entry_id=entry.id,
        file=file,
        after=after,
        index=index,
        status=entry.field("Status"),
        undo_at=at,
        undo_old=old,
        undo_new=new,
        eol_added=eol_added,
        archived_on=today.isoformat(),
    )
    return text + record.render(entry.eol) + entry.eol


def original_form(archived: ArchivedEntry) -> str:
    """The entry's text as it was before it was archived (refused without a record)."""
    record = archived.record
    if record is None:
        raise SelfImproveError(
            f"{archived.entry.id} in .learnings/{archived.archive_file} has no self-improve:archived record: move it back by hand"
        )
    lines = list(archived.entry.lines)
    end = record.undo_at + len(record.undo_new)
    if tuple(lines[record.undo_at : end]) == record.undo_new:
        lines[record.undo_at : end] = record.undo_old
        text = "".join(lines)
    else:  # edited in the archive since: put the previous status back the ordinary way
        text = archived.entry.with_status(record.status or "pending").text
    if record.eol_added and text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return text
