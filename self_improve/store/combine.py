"""``self-improve merge NEW OLD``: one lesson logged as two entries becomes one, losing nothing.

OLD keeps the lesson and takes everything NEW counted: its occurrences (both lists, by date,
within ``log.max_occurrences``), ``Recurrence-Count`` (the sum: two ``log`` calls are two
occurrences), the earlier ``First-Seen`` and later ``Last-Seen``, its fix lines (appended, as
``log --action`` adds one), its Pattern-Key when OLD has none, the higher priority, the
event counts (summed: ``Helpful``/``Harmful``, ``Measured-Helpful``/``Measured-Harmful``,
``Recurred-After-Promotion``/``Recurred-After-Resolution``), the later ``Last-Measured-Helpful``,
the newer ``Observed-Fix`` (NEW's when its ``Last-Seen`` is later, else OLD's), the earlier
``Promoted-On`` when OLD is promoted (an unpromoted OLD never gets a promotion day), its related
files and tags; ``- Supersedes:`` names NEW. NEW is kept as it is, text and all, with ``- Superseded-By: OLD``: it is no longer
proposed for promotion, and a later ``log`` that matches it lands in OLD
(``duplicates.successor``). The ledger of this machine (``store/provenance.py``) learns that
NEW's occurrences recorded here are now OLD's, so review's evidence rule still sees them.

Both entries are in one file (the same kind): one lock, one atomic rewrite of that file. Every
refusal comes before the write and writes nothing: the same ID twice, an unknown ID, two kinds,
two different Pattern-Keys, NEW already merged, OLD merged into a third entry, or OLD closed.
"""

from __future__ import annotations

from self_improve.errors import SelfImproveError, UsageError
from self_improve.store.entry import ACTION_SECTIONS, ACTIVE_STATUSES, Entry, LearningsFile, parse_text
from self_improve.store.merge_values import CREDIT_COUNTS, PRIORITY_RANK, RECURRENCE_COUNTS, bound_occurrences, count_of
from self_improve.store.merge_values import earlier, later, ranked
from self_improve.store.occurrences import distinct_tasks
from self_improve.store.store import Store

_ACTION_TITLE = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}


class MergeOutcome:
    """What ``merge_entries`` did: the two entries as written."""

    __slots__ = ("absorbed", "kept")

    def __init__(self, kept: Entry, absorbed: Entry) -> None:
        self.kept = kept
        self.absorbed = absorbed

    @property
    def recurrence_count(self) -> int:
        return self.kept.recurrence_count

    @property
    def tasks(self) -> int:
        return distinct_tasks(self.kept.occurrences)


def combine(new: Entry, old: Entry, keep: int) -> tuple[Entry, Entry]:
    """(OLD with everything NEW counted, NEW marked superseded by OLD): pure, see the module docstring."""
    kept = old
    merged = sorted([*old.occurrences, *new.occurrences], key=lambda item: item.date)  # stable: OLD's first
    if new.occurrences:
        kept = kept.with_metadata("Occurrences", ", ".join(item.render() for item in bound_occurrences(merged, keep)))
    kept = kept.with_metadata("Recurrence-Count", str(old.recurrence_count + new.recurrence_count))
    first = earlier(old.first_seen, new.first_seen)
    if first and first != old.meta("First-Seen").strip():
        kept = kept.with_metadata("First-Seen", first)
    last = later(old.last_seen, new.last_seen)
    if last and last != old.meta("Last-Seen").strip():
        kept = kept.with_metadata("Last-Seen", last)
    for name in (*CREDIT_COUNTS, *RECURRENCE_COUNTS):
        if count_of(new, name):
            kept = kept.with_metadata(name, str(count_of(old, name) + count_of(new, name)))
    measured = later(old.meta("Last-Measured-Helpful").strip(), new.meta("Last-Measured-Helpful").strip())
    if measured != old.meta("Last-Measured-Helpful").strip():
        kept = kept.with_metadata("Last-Measured-Helpful", measured)
    if new.observed_fix and (not old.observed_fix or new.last_seen > old.last_seen):
        kept = kept.with_metadata("Observed-Fix", new.observed_fix)  # the newer side's; OLD's on a tie
    if old.status == "promoted":  # OLD's rule: it has been in force since the earlier of the two days
        promoted_on = earlier(old.promoted_on, new.promoted_on)
        if promoted_on != old.promoted_on:
            kept = kept.with_metadata("Promoted-On", promoted_on)
    priority = ranked(old.priority, new.priority, PRIORITY_RANK)
    if priority and priority != old.priority:
        kept = kept.with_field("Priority", priority)
    if new.pattern_key and not old.pattern_key:
        kept = kept.with_metadata("Pattern-Key", new.pattern_key)
    if kept.meta("Frequency") and kept.meta("Frequency") != "recurring":
        kept = kept.with_metadata("Frequency", "recurring")
    for name in ("Related Files", "Tags"):
        joined = _union(old.meta(name), new.meta(name))
        if joined != old.meta(name):
            kept = kept.with_metadata(name, joined)
    kept = _with_actions(kept, new)
    kept = kept.with_metadata("Supersedes", _union(old.meta("Supersedes"), new.id))
    return kept, new.with_metadata("Superseded-By", old.id)


def _union(current: str, extra: str) -> str:
    items = [item.strip() for item in current.split(",") if item.strip()]
    known = {item.casefold() for item in items}
    items += [item.strip() for item in extra.split(",") if item.strip() and item.strip().casefold() not in known]
    return ", ".join(items)


def _with_actions(kept: Entry, new: Entry) -> Entry:
    """NEW's fix lines that OLD lacks, appended (newest last, as ``log --action`` adds one)."""
    current = kept.suggested_action.splitlines()
    known = {line.strip() for line in current}
    extra = [line.rstrip() for line in new.suggested_action.splitlines() if line.strip() and line.strip() not in known]
    if not extra:
        return kept
    section = kept.section(*ACTION_SECTIONS) or new.section(*ACTION_SECTIONS)
    title = section.title if section is not None else _ACTION_TITLE.get(kept.kind, "Suggested Action")
    return kept.with_section(title, [*current, *extra] if any(line.strip() for line in current) else extra)


def merge_entries(store: Store, new_id: str, old_id: str) -> MergeOutcome:
    """Merge entry ``new_id`` into ``old_id`` (module docstring); refusals raise and write nothing."""
    name = _file_of_both(store, new_id, old_id)
    with store.lock():  # re-read under the lock: another writer may have been first
        _, after, outcome = _merged(store, name, new_id, old_id)
        store.write_file(name, after)
    _move_provenance(store, outcome.absorbed.id, outcome.kept.id)
    return outcome


def plan_merge(store: Store, new_id: str, old_id: str) -> tuple[str, str, str, MergeOutcome]:
    """What :func:`merge_entries` would write, for ``merge --dry-run``: the file's name in the
    store, its text now and after, and the outcome. Every refusal is made; nothing is written
    (not the provenance ledger either)."""
    name = _file_of_both(store, new_id, old_id)
    before, after, outcome = _merged(store, name, new_id, old_id)
    return name, before, after, outcome


def _file_of_both(store: Store, new_id: str, old_id: str) -> str:
    """The store file holding both entries (its name, ``LEARNINGS.md``); the refusals that need no lock."""
    if new_id.strip().upper() == old_id.strip().upper():
        raise UsageError(f"cannot merge {new_id} into itself: name two entries")
    new_found, old_found = store.find(new_id), store.find(old_id)
    for wanted, found in ((new_id, new_found), (old_id, old_found)):
        if found is None:
            raise SelfImproveError(f"unknown ID {wanted!r} (see `self-improve list`)")
    assert new_found is not None and old_found is not None
    if new_found[0] != old_found[0]:
        raise UsageError(
            f"{new_found[1].id} is {_a(new_found[0])} and {old_found[1].id} {_a(old_found[0])}: only entries of one kind merge"
        )
    path = store.file_for(old_found[0])
    store._check_writable(path)
    return store.name_of(path)


def _merged(store: Store, name: str, new_id: str, old_id: str) -> tuple[str, str, MergeOutcome]:
    """The file's text now and with the merge made (a read: the caller holds the lock to write)."""
    before = store.read_file(name)
    parsed = parse_text(before, file=store.relative(store.dir / name))
    new_index = _index(parsed, new_id)
    old_index = _index(parsed, old_id)
    new, old = parsed.entries[new_index], parsed.entries[old_index]
    _check(new, old)
    kept, absorbed = combine(new, old, int(store.setting("log.max_occurrences")))
    entries = list(parsed.entries)
    entries[old_index], entries[new_index] = kept, absorbed
    return before, LearningsFile(parsed.preamble, tuple(entries)).render(), MergeOutcome(kept, absorbed)


def _a(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _index(parsed: LearningsFile, entry_id: str) -> int:
    wanted = entry_id.strip().upper()
    found = [n for n, entry in enumerate(parsed.entries) if entry.id.upper() == wanted]
    if not found:
        raise SelfImproveError(f"unknown ID {entry_id!r} (it vanished while we waited for the lock)")
    if len(found) > 1:
        raise SelfImproveError(f"{entry_id} names {len(found)} entries (see `self-improve lint`): fix that first")
    return found[0]


def _check(new: Entry, old: Entry) -> None:
    merged_into = new.meta("Superseded-By").strip()
    if merged_into:
        raise SelfImproveError(f"{new.id} is already superseded by {merged_into}: nothing to merge")
    successor = old.meta("Superseded-By").strip()
    if successor:
        raise SelfImproveError(f"{old.id} is superseded by {successor}: merge into that one (`self-improve merge {new.id} {successor}`)")
    if old.status not in ACTIVE_STATUSES:
        raise SelfImproveError(f"{old.id} is {old.status}: merge it into {new.id} instead, or restore it first")
    if new.pattern_key and old.pattern_key and new.pattern_key.casefold() != old.pattern_key.casefold():
        raise SelfImproveError(
            f"{new.id} ({new.pattern_key}) and {old.id} ({old.pattern_key}) have different Pattern-Keys: different "
            f"mistakes never merge (`self-improve supersede {new.id} --by {old.id}` records that one replaces the other)"
        )


def _move_provenance(store: Store, new_id: str, old_id: str) -> None:
    """This machine's records of NEW's occurrences, again under OLD's ID (never raises)."""
    from self_improve.store import provenance

    ledger = provenance.Ledger.load(str(store.root))
    lines = [
        provenance.record_line(old_id, item.date, item.task, item.who, False, item.digests)
        for item in ledger.records(new_id)
        if item.who in provenance.LOCAL_EVIDENCE
    ]
    provenance.record_many(str(store.root), lines)
