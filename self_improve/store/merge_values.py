"""How one value of an entry merges: counts, occurrences, dates, ranked and comma-list fields.

Shared by the three-way merge of two branches (:mod:`self_improve.store.merge_entry`), which sums
what each side added since the base, and by ``import`` (:func:`self_improve.store.merge.absorb_entry`),
which has no base and takes a union: the same event seen on both sides counts once.

:data:`STATUS_ORDER` (why this order): an entry moves from open (``pending``), to being worked on
(``in_progress``), to fixed (``resolved``); a fix that proved itself becomes a rule
(``promoted``) and may later become a skill (``promoted_to_skill``). ``wont_fix``, ``retired``
and ``archived`` are deliberate decisions to stop tracking, taken after looking at an entry (a
rule is retired only after it was promoted), so they beat every open or promoted state: a merge
must never silently reopen an entry, or bring back a rule, that someone closed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from self_improve.store import occurrences as occ
from self_improve.store.entry import PRIORITIES, Entry, Occurrence

DEFAULT_KEEP = 20  # the store's default bound (config ``log.max_occurrences``)
STATUS_ORDER = (
    "pending",
    "in_progress",
    "resolved",
    "promoted",
    "promoted_to_skill",
    "wont_fix",
    "retired",
    "archived",
)
STATUS_RANK = {name: rank for rank, name in enumerate(STATUS_ORDER)}
PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}

# Event counts: each branch's additions since the base are summed (``ours + theirs - base``), the
# same event reaching both sides without a base counts once (the larger), and ``merge NEW OLD``
# adds them. Credit (self-reported and measured, apart) and the recurrences past a promotion or a
# resolution are counts of events like Recurrence-Count.
CREDIT_COUNTS = ("Helpful", "Harmful", "Measured-Helpful", "Measured-Harmful")
RECURRENCE_COUNTS = ("Recurred-After-Promotion", "Recurred-After-Resolution")
SUMMED_COUNTS = ("Recurrence-Count", *CREDIT_COUNTS, *RECURRENCE_COUNTS)
# Days: the earliest ``First-Seen``/``Logged``/``Promoted-On`` (when it started), the latest
# ``Last-Seen``/``Last-Measured-Helpful`` (when it last happened).
EARLIEST_DAYS = ("First-Seen", "Logged", "Promoted-On")
LATEST_DAYS = ("Last-Seen", "Last-Measured-Helpful")
# One value written with the newest occurrence: the side whose Last-Seen is later (ours on a tie).
NEWEST_SIDE_VALUES = ("Last-Excerpt", "Observed-Fix")


def count_of(entry: Entry, name: str) -> int:
    """The value of one of :data:`SUMMED_COUNTS` (0 when absent or not a number)."""
    if name.casefold() == "recurrence-count":
        return entry.recurrence_count
    try:
        return max(0, int(entry.meta(name).strip()))
    except ValueError:
        return 0


def merge_comma_list(base: str, ours: str, theirs: str) -> str:
    """Set-like three-way merge of ``a, b, c`` values (ours' order, then theirs' additions)."""

    def items(value: str) -> list[str]:
        return [item.strip() for item in value.split(",") if item.strip()]

    b, o, t = items(base), items(ours), items(theirs)
    kept = [item for item in o if item in t or item not in b]
    kept += [item for item in t if item not in o and item not in b and item not in kept]
    return ", ".join(kept)


def merge_occurrence_lists(
    base: Sequence[Occurrence], ours: Sequence[Occurrence], theirs: Sequence[Occurrence], keep: int
) -> tuple[Occurrence, ...]:
    """Multiset three-way merge, then the store's bound (see :mod:`self_improve.store.merge`)."""
    wanted = Counter(ours)
    wanted.update(theirs)
    wanted.subtract(base)
    emitted: Counter[Occurrence] = Counter()
    merged: list[Occurrence] = []
    for item in (*ours, *theirs):
        if emitted[item] < wanted[item]:
            merged.append(item)
            emitted[item] += 1
    merged.sort(key=lambda item: item.date)  # stable: equal dates keep ours-then-theirs order
    return bound_occurrences(merged, keep)


def bound_occurrences(items: Sequence[Occurrence], keep: int) -> tuple[Occurrence, ...]:
    """Trim exactly as the store does when it adds one occurrence too many."""
    if len(items) <= max(1, keep):
        return tuple(items)
    return occ.add(items[:-1], items[-1], keep)


def three_way_count(base: int, ours: int, theirs: int) -> int:
    return max(0, ours + theirs - base)


def later(first: str, second: str) -> str:
    return max(first, second) if first and second else first or second


def earlier(first: str, second: str) -> str:
    return min(first, second) if first and second else first or second


def ranked(ours: str, theirs: str, rank: dict[str, int]) -> str | None:
    """The higher-ranked of two values (ours on a tie); None when neither is known."""
    o_rank, t_rank = rank.get(ours.strip().casefold(), -1), rank.get(theirs.strip().casefold(), -1)
    if o_rank < 0 and t_rank < 0:
        return None
    return theirs if t_rank > o_rank else ours


def union_occurrences(local: Sequence[Occurrence], incoming: Sequence[Occurrence]) -> list[Occurrence]:
    """Multiset union (an occurrence present in both is the same event): local's, then the new ones, by date."""
    have = Counter(local)
    merged = list(local)
    for item in incoming:
        if have[item] > 0:
            have[item] -= 1
        else:
            merged.append(item)
    merged.sort(key=lambda item: item.date)
    return merged


def absorbed_count(local: Entry, incoming: Entry) -> int:
    """Recurrences after an import: each side's count plus the other's events it has not seen.

    Exact when both histories are complete; when the store's bound dropped old occurrences, the
    events it folded away cannot be matched, so the larger estimate wins (an import may
    undercount, never double count).
    """
    mine, theirs = Counter(local.occurrences), Counter(incoming.occurrences)
    new_to_me = sum((theirs - mine).values())
    new_to_them = sum((mine - theirs).values())
    return max(local.recurrence_count + new_to_me, incoming.recurrence_count + new_to_them)
