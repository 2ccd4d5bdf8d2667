"""``lint --fix``: near-miss headers rewritten to the reference form, and nothing else.

- ``## LRN-20260410-001 title`` and ``### [LRN-20260410-001] title`` become
  ``## [LRN-20260410-001] title`` (the separator after the ID, ``:`` or ``—``, dropped);
- a dated ``## 2026-05-27 title`` becomes ``## [LRN-20260527-001] title``: the file's kind gives
  the prefix, the date the day, and the suffix is the first of 001, 002 … no header of the file
  uses yet (a dated header with nothing under it is a heading, and is left alone);
- a cut-off header is not fixed: its ID cannot be known.

Only the header lines change, each keeping its line ending: every other byte of the file (a BOM,
CRLF, no final newline, text in another encoding) stays as it was.
"""

from __future__ import annotations

from self_improve.store import headers
from self_improve.store.entry import Entry, LearningsFile, eol_of


class HeaderFix:
    """One header rewritten: where, and the line before and after (without line endings)."""

    __slots__ = ("line", "before", "after")

    def __init__(self, line: int, before: str, after: str) -> None:
        self.line = line
        self.before = before
        self.after = after


def fix_headers(parsed: LearningsFile, prefix: str | None) -> tuple[LearningsFile, list[HeaderFix]]:
    """The file with its near-miss headers in the reference form; ``prefix`` (``LRN``) names the
    file's kind, needed for dated headers (None: they are left as they are)."""
    taken = {entry.id.upper() for entry in parsed.entries if entry.id}
    fixes: list[HeaderFix] = []
    entries: list[Entry] = []
    for entry in parsed.entries:
        new_id = _new_id(entry, prefix, taken)
        if not new_id:
            entries.append(entry)
            continue
        taken.add(new_id.upper())
        before = entry.bare_lines[0]
        after = headers.reference_header(new_id, entry.name)
        fixes.append(HeaderFix(entry.line, before, after))
        lines = list(entry.lines)
        lines[0] = after + eol_of(lines[0])
        entries.append(Entry(tuple(lines), file=entry.file, line=entry.line))
    return LearningsFile(parsed.preamble, tuple(entries)), fixes


def _new_id(entry: Entry, prefix: str | None, taken: set[str]) -> str:
    """The ID the fixed header carries; "" when the header stays as it is."""
    if entry.form in (headers.BARE_ID, headers.LEVEL_THREE):
        return entry.id
    if entry.form != headers.DATED or entry.is_heading or not prefix:
        return ""
    day = entry.header_day.replace("-", "")
    number = 1
    while f"{prefix}-{day}-{number:03d}" in taken:
        number += 1
    return f"{prefix}-{day}-{number:03d}"
