"""Entry header lines: the reference form and the near-misses real files use.

The reference skill starts an entry at ``## [ID] name``. Real authors (and their agents) also
write, and the reader accepts as entry starts (outside code fences):

- ``## LRN-20260410-001 title`` and ``## LRN-20260410-001: title`` (the ID without brackets);
- ``### [LRN-20260410-001] title`` and ``### LRN-20260410-001 title`` (one level down; only with
  an ID, so an ordinary ``### Section`` never starts an entry);
- ``## 2026-05-27 title`` (a dated header, a journal-style entry with no ID: its ``id`` is "",
  so no writer, which always goes by ID, can ever rewrite it; ``lint --fix`` gives it one);
- ``## [LRN-2026`` (a cut-off header, the bracket never closed, as a truncated write leaves it).
  It starts an entry of its own, with no ID, so the lines after it are never folded into the
  entry before it (a write there would land among them); ``lint`` reports it.

Anything else (``## Categories``, ``### Details``) belongs to the entry (or preamble) above it.
``lint`` reports every form but the reference one as "not the reference form", with the fix.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.store.grammar import LOOSE_ID_REGEX

REFERENCE = "reference"
BARE_ID = "bare-id"  # ## ID title
LEVEL_THREE = "level-3"  # ### [ID] title, ### ID title
DATED = "dated"  # ## 2026-05-27 title
CUT_OFF = "cut-off"  # ## [LRN-2026
NEAR_MISSES = (BARE_ID, LEVEL_THREE, DATED)

_REFERENCE = re.compile(r"^##[ \t]+\[([^\]\r\n]*)\][ \t]*(.*?)[ \t]*$")
_CUT_OFF = re.compile(r"^##[ \t]+\[[^\]\r\n]*$")
_BARE_ID = re.compile(rf"^##[ \t]+({LOOSE_ID_REGEX})(?![A-Za-z0-9])[ \t]*(.*?)[ \t]*$")
_LEVEL_THREE = re.compile(rf"^###[ \t]+(?:\[[ \t]*({LOOSE_ID_REGEX})[ \t]*\]|({LOOSE_ID_REGEX})(?![A-Za-z0-9]))[ \t]*(.*?)[ \t]*$")
# A day, then optionally a time (``14:30``, ``T14:30:00Z``) that is part of the date, not the title.
_DATED = re.compile(r"^##[ \t]+([0-9]{4}-[0-9]{2}-[0-9]{2})(?![0-9])(?:[ T][0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?Z?)?[ \t]*(.*?)[ \t]*$")
# What separates an ID or a date from the title: "## LRN-… — title", "## 2026-05-27: title".
_TITLE_LEAD = re.compile(r"^[ \t:|·•\-–—]+")

# A line that may start an entry, found at C speed by a literal newline first (``entry_offsets``
# then checks the few it finds); fence lines are candidates too, since they hide headers.
CANDIDATE_AFTER_NEWLINE = re.compile(
    "\n(?=##[ \t]+(?:\\[|[0-9]{4}-|(?:LRN|ERR|FEAT)-)|###[ \t]+\\[?[ \t]*(?:LRN|ERR|FEAT)-| {0,3}(?:```|~~~))"
)
CANDIDATE_AT_START = re.compile("##[ \t]+(?:\\[|[0-9]{4}-|(?:LRN|ERR|FEAT)-)|###[ \t]+\\[?[ \t]*(?:LRN|ERR|FEAT)-| {0,3}(?:```|~~~)")


def parse_header(line: str) -> tuple[str, str, str] | None:
    """``(form, id, name)`` if ``line`` (without its line ending) starts an entry, else None.

    ``name`` is what follows the ID as written (the reference form's category slot); the dated
    form's ID is "" and its name is the text after the date."""
    if not line.startswith("##"):
        return None
    if line[2:3] == "#":
        match = _LEVEL_THREE.match(line)
        return (LEVEL_THREE, match.group(1) or match.group(2), match.group(3)) if match else None
    match = _REFERENCE.match(line)
    if match:
        return (REFERENCE, match.group(1).strip(), match.group(2))
    match = _BARE_ID.match(line)
    if match:
        return (BARE_ID, match.group(1), match.group(2))
    match = _DATED.match(line)
    if match:
        return (DATED, "", match.group(2))
    if _CUT_OFF.match(line):
        return (CUT_OFF, "", "")  # what follows "[" is part of an ID, not a title
    return None


def header_date(line: str) -> str:
    """The day a dated header names ("" for any other line)."""
    match = _DATED.match(line)
    return match.group(1) if match else ""


def clean_title(name: str) -> str:
    """A header's name without the separator authors put after an ID or a date."""
    return _TITLE_LEAD.sub("", name).strip()


def reference_header(entry_id: str, name: str) -> str:
    """The reference form of a header (``lint --fix``): ``## [ID] name``."""
    title = clean_title(name)
    return f"## [{entry_id}] {title}" if title else f"## [{entry_id}]"
