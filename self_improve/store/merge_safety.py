"""The merge driver's safety rule: a side that looks like lost data makes a conflict, never a merge.

:mod:`self_improve.store.merge` trusts both sides: an entry missing on one side and unchanged on the
other is a deletion, and it is applied. That is right for a deliberate deletion and wrong for a
side that emptied, reset, truncated or garbled the file, where it silently drops every entry of
the other side that the other side did not touch. git's own line merge would have reported a
conflict there. So before merging, the driver (``commands/merge_driver.py``) asks this module
whether either side is *hazardous*; if one is, the result is a whole-file conflict::

    <<<<<<< ours
    <ours, every byte>
    =======
    <theirs, every byte>
    >>>>>>> theirs

and the driver exits 1, so git marks the path unmerged and ``git status`` shows it. (git 2.39,
our minimum, does not pass its own labels to a driver, so the labels are ``ours``/``theirs``.)

A learnings file side S (the other side O, the base B) is hazardous when:

1. **S has no entries** while B or O has some (emptied, reset to the header, random bytes).
2. **S is garbled**: it holds more conflict-marker lines (outside code fences) than B, or more
   bytes that are not UTF-8 (or NUL) than B, or its last entry is a strict prefix of B's version
   of that entry with more than whitespace cut away (a truncated file).
3. **S removed an entry that O changed** (git's modify/delete conflict, at entry level). The plain
   merge would keep O's version; a conflict lets a person decide, whatever S's reason was.
4. **S removed more than a small share of B's entries without accounting for them**: more than
   :data:`SMALL_REMOVAL` entries *and* more than 1/:data:`SMALL_SHARE_DIVISOR` of B's entries.
   An entry is *accounted for* when its ID is in another learnings file of S's own store
   (``archive/<year>.md`` after ``review`` archived it; a kind file after ``restore``): the
   driver's :data:`KeptElsewhere` callback supplies those IDs, or ``None`` when S's store cannot
   be read (then every removal counts as unaccounted: the safe side).

Why these thresholds: archiving and restoring are the only ways the store itself removes an
entry, and both leave the ID in another file of the same side, so every removal the store makes
is accounted for and merges cleanly at any size. What remains is a person deleting entries by
hand, which is one or two at a time, and damage (a reset, a tool rewriting the file, a bad
conflict resolution), which removes most of the file. Two entries, or a fifth of the file, is
generous for the first and far below the second. Any removal the other side disagrees with
(rule 3) conflicts regardless of size.

Soundness: if no rule fires, the driver returns the learnings merge's result, which keeps every
entry present on either side except those one side removed while the other left them unchanged
(the :mod:`self_improve.store.merge` docstring). By rules 3 and 4 each such removal is either
accounted for (the entry still exists in that side's store, and the archive files merge as a
union, so it survives the merge) or one of at most a small share of deliberate-looking removals.
If a rule fires, the result contains both input texts byte for byte, so nothing is lost either
way; what is lost in a clean merge is only what one side deleted on purpose-looking grounds.

The same rule for a managed block (``CLAUDE.md``, ``AGENTS.md``) is
:func:`self_improve.review.block_merge.managed_hazards`; the driver
(``commands/merge_driver.py``, ``guarded_merge``) asks the one that fits the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Literal

from self_improve.store.entry import Entry, parse_text, split_lines, strip_eol
from self_improve.store.fences import FenceTracker
from self_improve.store.merge import keyed_entries
from self_improve.store.three_way import MergeResult, both_texts, dominant_eol

Side = Literal["ours", "theirs"]
KeptElsewhere = Callable[[Side], "frozenset[str] | None"]
"""IDs (upper case) of the entries in the side's store other than the merged file; None: unknown."""

SMALL_REMOVAL = 2
SMALL_SHARE_DIVISOR = 5  # a fifth: 20 %
WHOLE_FILE = "the whole file"

_MARKER_LINE = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: .*)?$|^={7}$")
_UNDECODABLE = re.compile("[\x00\udc80-\udcff]")  # NUL, and bytes surrogateescape kept as is
_SHOWN_IDS = 3


def nothing_known(_side: Side) -> frozenset[str] | None:
    return None


def whole_file_conflict(ours: str, theirs: str, reasons: Sequence[str]) -> MergeResult:
    """Both texts in full between git-style markers: nothing of either side can be lost."""
    text = both_texts(ours, theirs, dominant_eol(ours or theirs))
    notes = tuple(f"{reason}; both versions kept between conflict markers" for reason in reasons)
    return MergeResult(text, (WHOLE_FILE,), notes)


# ---- learnings files ---------------------------------------------------------------------------


def learnings_hazards(base: str, ours: str, theirs: str, kept_elsewhere: KeptElsewhere = nothing_known) -> list[str]:
    """Why a merge of these learnings texts could drop data (empty: it cannot)."""
    texts = {"ours": ours, "theirs": theirs}
    entries = {name: parse_text(text).entries for name, text in texts.items()}
    base_entries = parse_text(base).entries
    reasons: list[str] = []
    for side, other in (("ours", "theirs"), ("theirs", "ours")):
        reasons += _side_hazards(side, other, base, base_entries, texts[side], entries[side], entries[other], kept_elsewhere)  # type: ignore[arg-type]
    return reasons


def _side_hazards(
    side: Side,
    other: str,
    base: str,
    base_entries: Sequence[Entry],
    text: str,
    mine: Sequence[Entry],
    theirs: Sequence[Entry],
    kept_elsewhere: KeptElsewhere,
) -> list[str]:
    if not mine and (base_entries or theirs):
        return [f"{side} has no entries (the base has {len(base_entries)}, {other} has {len(theirs)})"]
    reasons = _garbled(side, base, text, base_entries, mine)
    b, m, t = dict(keyed_entries(base_entries)), dict(keyed_entries(mine)), dict(keyed_entries(theirs))
    removed = [key for key in b if key not in m]
    disputed = [key for key in removed if key in t and t[key] != b[key]]
    if disputed:
        reasons.append(f"{side} removed {_named(disputed, b)}, which {other} changed")
    if _too_many(len(removed), len(b)):
        known = kept_elsewhere(side)
        unaccounted = removed if known is None else [key for key in removed if _id_of(key) not in known]
        if _too_many(len(unaccounted), len(b)):
            where = "its store could not be read" if known is None else "no other file of its store holds them"
            reasons.append(f"{side} removed {len(unaccounted)} of the base's {len(b)} entries ({_named(unaccounted, b)}) and {where}")
    return reasons


def _too_many(removed: int, base_count: int) -> bool:
    return removed > SMALL_REMOVAL and removed * SMALL_SHARE_DIVISOR > base_count


def _id_of(key: Hashable) -> str:
    return str(key[0])  # type: ignore[index]  # (ID upper-cased, ordinal) from keyed_entries


def _named(keys: Sequence[Hashable], entries: Mapping[Hashable, Entry]) -> str:
    shown = ", ".join(entries[key].id for key in keys[:_SHOWN_IDS])
    return shown + (f" and {len(keys) - _SHOWN_IDS} more" if len(keys) > _SHOWN_IDS else "")


def _garbled(side: Side, base: str, text: str, base_entries: Sequence[Entry], mine: Sequence[Entry]) -> list[str]:
    reasons = []
    if marker_lines(text) > marker_lines(base):
        reasons.append(f"{side} holds conflict markers")
    if len(_UNDECODABLE.findall(text)) > len(_UNDECODABLE.findall(base)):
        reasons.append(f"{side} holds bytes that are not text (not UTF-8, or NUL)")
    if mine and _truncated(mine[-1], base_entries):
        reasons.append(f"{side} ends inside entry {mine[-1].id} (a truncated file)")
    return reasons


def marker_lines(text: str) -> int:
    """Lines that look like git conflict markers, outside code fences (an excerpt may quote git)."""
    fences = FenceTracker()
    count = 0
    for line in split_lines(text):
        bare = strip_eol(line)
        if not fences.inside_after(bare) and _MARKER_LINE.match(bare):
            count += 1
    return count


def _truncated(last: Entry, base_entries: Sequence[Entry]) -> bool:
    """The side's last entry is the base's version of it cut short (more than whitespace missing)."""
    for entry in base_entries:
        if entry.id.upper() == last.id.upper():
            before, after = entry.text, last.text
            if len(after) < len(before) and before.startswith(after) and before[len(after) :].strip():
                return True
    return False
