"""Three-way merge of learnings files, so two git branches never lose a learning.

Everything here is a pure ``str -> str`` function over whole file texts (base, ours, theirs);
the merge driver (``commands/merge_driver.py``) does the file I/O and picks this merge for
``.learnings/*.md`` and ``archive/*.md``. Plain text (the preamble) goes to the line merge passed
in as ``text_merge`` (:mod:`self_improve.store.three_way`). These merges trust both sides; the
driver first asks :mod:`self_improve.store.merge_safety` whether a side looks like lost data
(emptied, reset, garbled, gutted), and makes that a whole-file conflict instead. An entry changed
on both sides merges in :mod:`self_improve.store.merge_entry`, one value at a time by
:mod:`self_improve.store.merge_values`. :func:`absorb_entry` is ``import``'s fold of an entry
from another store into a local one: the same value rules, as a union without a base.

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
  - Event counts (:data:`~self_improve.store.merge_values.SUMMED_COUNTS`): ``Recurrence-Count``,
    ``Helpful``, ``Harmful``, ``Measured-Helpful``, ``Measured-Harmful``,
    ``Recurred-After-Promotion``, ``Recurred-After-Resolution``: ``ours + theirs - base`` (never
    below 0).
  - ``First-Seen``, ``Logged``, ``Promoted-On``: the earlier; ``Last-Seen``,
    ``Last-Measured-Helpful``: the later.
  - ``Status``: the more advanced, in :data:`~self_improve.store.merge_values.STATUS_ORDER`; ``Priority``: the higher.
  - ``Promoted``, ``See Also``, ``Tags``, ``Related Files``, ``Imported-From``: comma lists,
    merged as sets (an item removed on one side stays removed, additions of both are kept).
  - ``Frequency``: ``recurring`` beats ``first_time``. ``Last-Excerpt``, ``Observed-Fix``: the
    side whose ``Last-Seen`` is later (ours on a tie).
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
  other side has (the larger of the two,
  :func:`~self_improve.store.merge_values.absorbed_count`), every other event count = the
  larger. Different ``Logged`` times mean an ID collision between two unrelated learnings: both
  are kept, ours first (``self-improve lint`` reports the duplicate ID).
* **Bytes**: CRLF is kept (marker lines use the entry's own line ending); a file without a
  final newline stays without one unless ours had one.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from self_improve.store.entry import ACTION_SECTIONS, Entry, parse_text, split_lines
from self_improve.store.merge_entry import ACTION_TITLES, merge_entry
from self_improve.store.merge_values import CREDIT_COUNTS, DEFAULT_KEEP, PRIORITY_RANK, RECURRENCE_COUNTS, STATUS_RANK
from self_improve.store.merge_values import absorbed_count, bound_occurrences, count_of
from self_improve.store.merge_values import earlier, later, merge_comma_list, ranked, union_occurrences
from self_improve.store.three_way import MergeResult, TextMerge, dominant_eol, merge_keyed, one_side_changed, plain_text_merge, with_ordinals


# ---- learnings files ------------------------------------------------------------------------------


def keyed_entries(entries: Sequence[Entry]) -> list[tuple[Hashable, Entry]]:
    """Entries keyed by ``(ID upper-cased, n)``: the n-th entry with an ID is the same on every side."""
    return list(zip(with_ordinals(entry.id.upper() for entry in entries), entries, strict=True))


def _is_collision(ours: Entry, theirs: Entry) -> bool:
    """Two unrelated learnings that drew the same random ID on two branches."""
    return bool(ours.logged and theirs.logged and ours.logged != theirs.logged)


def merge_learnings(
    base: str, ours: str, theirs: str, *, keep: int = DEFAULT_KEEP, text_merge: TextMerge = plain_text_merge
) -> MergeResult:
    """Three-way merge of a learnings file (see the module docstring)."""
    if (taken := one_side_changed(base, ours, theirs)) is not None:
        return taken
    parsed_b, parsed_o, parsed_t = parse_text(base), parse_text(ours), parse_text(theirs)
    keyed_b = keyed_entries(parsed_b.entries)
    keyed_o = keyed_entries(parsed_o.entries)
    keyed_t = keyed_entries(parsed_t.entries)
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


# ---- import: folding an entry from another store into a local one ---------------------------------


def absorb_entry(local: Entry, incoming: Entry, *, same_entry: bool, keep: int = DEFAULT_KEEP) -> Entry:
    """Fold an imported entry into a local one, the way ``log`` folds an occurrence in.

    ``same_entry``: the two share an ID (one lineage, e.g. exported from here earlier), so
    status, lists and empty sections are merged too; otherwise the import is one more set of
    occurrences of a matching local entry (same Pattern-Key or near-identical summary).
    Occurrences are a union and counts never double count (``absorbed_count``), which is
    what makes importing the same export twice a no-op. No conflict markers: local text wins.
    """
    updated = local
    merged = bound_occurrences(union_occurrences(local.occurrences, incoming.occurrences), keep)
    if merged != local.occurrences:
        updated = updated.with_metadata("Occurrences", ", ".join(item.render() for item in merged))
    count = absorbed_count(local, incoming)
    if count != local.recurrence_count:
        updated = updated.with_metadata("Recurrence-Count", str(count))
    first = earlier(local.first_seen, incoming.first_seen)
    if first != local.first_seen:
        updated = updated.with_metadata("First-Seen", first)
    last = later(local.last_seen, incoming.last_seen)
    if last != local.last_seen:
        updated = updated.with_metadata("Last-Seen", last)
        if incoming.meta("Last-Excerpt"):
            updated = updated.with_metadata("Last-Excerpt", incoming.meta("Last-Excerpt"))
    # Credit travels with the fix, whichever store measured it; recurrences past a promotion or a
    # resolution are about this store's status, so only the same entry brings them.
    for name in (*CREDIT_COUNTS, *(RECURRENCE_COUNTS if same_entry else ())):
        mine, theirs = count_of(local, name), count_of(incoming, name)
        total = max(mine, theirs) if same_entry else mine + theirs
        if total != mine:
            updated = updated.with_metadata(name, str(total))
    measured = later(local.meta("Last-Measured-Helpful").strip(), incoming.meta("Last-Measured-Helpful").strip())
    if measured != local.meta("Last-Measured-Helpful").strip():
        updated = updated.with_metadata("Last-Measured-Helpful", measured)
    if incoming.observed_fix and (not local.observed_fix or incoming.last_seen > local.last_seen):
        updated = updated.with_metadata("Observed-Fix", incoming.observed_fix)
    priority = ranked(local.priority, incoming.priority, PRIORITY_RANK)
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
    status = ranked(local.status, incoming.status, STATUS_RANK)
    if status and status != local.status:
        updated = updated.with_status(status)
    for name in ("Promoted",):
        merged = merge_comma_list("", local.field(name), incoming.field(name))
        if merged and merged != local.field(name).strip():
            updated = updated.with_field(name, merged)
    promoted_on = earlier(local.promoted_on, incoming.promoted_on)
    if promoted_on != local.promoted_on:
        updated = updated.with_metadata("Promoted-On", promoted_on)
    for name in ("See Also", "Tags", "Related Files"):
        merged = merge_comma_list("", local.meta(name), incoming.meta(name))
        if merged and merged != local.meta(name).strip():
            updated = updated.with_metadata(name, merged)
    for section in incoming.sections:
        title = section.title
        if title.casefold() in ("metadata", *ACTION_TITLES):
            continue
        theirs = incoming.section_text(title)
        if theirs.strip() and not updated.section_text(title).strip():
            updated = updated.with_section(title, theirs.splitlines())
    return updated
