"""Fingerprints in review: the unit of promotion is a mistake, never an error class.

    def is_class_level(entry, classes) -> bool      # a hook-made entry keyed by a bare class
    def subjects_seen(entry) -> tuple[str, ...]     # the mistakes its stored excerpts point to
    def class_level_entries(entries, classes) -> list[ClassLevelEntry]
    def class_aggregates(entries, today, window_days) -> list[ClassAggregate]

Before fingerprints, the hooks counted every failure of a class in one entry: "Seen 6x" for six
different missing modules. Such an entry's count says nothing about one mistake, so review never
proposes it as a rule. It lists it instead, with the subjects its excerpts show, so a person can
split or archive it; an entry whose excerpts show two different mistakes is marked ``mixed``.

Class-level figures are for people only ("3 different missing modules in 30 days"): review shows
them, and never turns them into a rule.

Pure functions over entries (no file is read); ``classes`` is the detector's set of Pattern-Keys.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date

from self_improve.detect import subjects
from self_improve.store.detections import quoted_command
from self_improve.store.entry import ACTIVE_STATUSES, Entry
from self_improve.store.occurrences import within

HOOK_SOURCE = "error"  # the Source the hooks write; an agent's own log says what it likes
MAX_SUBJECTS_SHOWN = 5


@dataclass(frozen=True)
class ClassLevelEntry:
    entry: Entry
    subjects: tuple[str, ...]  # distinct, in the order the excerpts show them

    @property
    def mixed(self) -> bool:
        return len(self.subjects) > 1


@dataclass(frozen=True)
class ClassAggregate:
    pattern_key: str  # the class
    mistakes: int  # fingerprinted entries of the class seen in the window
    occurrences: int  # their occurrences in the window
    subjects: tuple[str, ...]  # the first MAX_SUBJECTS_SHOWN, most frequent first


def is_class_level(entry: Entry, classes: Collection[str]) -> bool:
    """A hook-made entry whose Pattern-Key is a detector class with no subject: its count is the
    class's, not one mistake's (entries logged before fingerprints)."""
    key, subject = subjects.split(entry.pattern_key)
    return (
        entry.kind == "error"
        and not subject
        and key in classes
        and entry.meta("Source").strip().casefold() == HOOK_SOURCE
    )


def _excerpts(entry: Entry) -> list[str]:
    """The stored excerpts, oldest first: the Error section (the first) and Last-Excerpt."""
    lines = [line.strip() for line in entry.section_text("Error").splitlines()]
    first = " ".join(line for line in lines if line and not line.startswith(("```", "~~~")))
    return [text for text in (first, entry.meta("Last-Excerpt").strip()) if text]


def subjects_seen(entry: Entry) -> tuple[str, ...]:
    """The distinct subjects the entry's excerpts point to (by the same rules as the hooks)."""
    key = subjects.split(entry.pattern_key)[0]
    command = quoted_command(entry.section_text("Context"))
    found = [subjects.from_excerpt(key, excerpt, command) for excerpt in _excerpts(entry)]
    return tuple(dict.fromkeys(subject for subject in found if subject))


def class_level_entries(entries: Sequence[Entry], classes: Collection[str]) -> list[ClassLevelEntry]:
    """Active class-level entries, mixed ones first."""
    found = [
        ClassLevelEntry(entry, subjects_seen(entry))
        for entry in entries
        if entry.status in ACTIVE_STATUSES and is_class_level(entry, classes)
    ]
    found.sort(key=lambda item: (not item.mixed, item.entry.id))
    return found


def class_aggregates(entries: Sequence[Entry], today: date, window_days: int) -> list[ClassAggregate]:
    """Classes with at least two different mistakes seen in the last ``window_days`` days."""
    by_class: dict[str, list[tuple[int, str]]] = {}
    for entry in entries:
        key, subject = subjects.split(entry.pattern_key)
        if not subject:
            continue
        recent = within(entry.occurrences, today, window_days)
        if recent:
            by_class.setdefault(key, []).append((len(recent), subject))
    out = []
    for key, found in by_class.items():
        distinct = {subject.casefold() for _, subject in found}
        if len(distinct) < 2:
            continue
        ranked = sorted(found, key=lambda item: (-item[0], item[1]))
        out.append(ClassAggregate(key, len(distinct), sum(n for n, _ in found),
                                  tuple(subject for _, subject in ranked[:MAX_SUBJECTS_SHOWN])))
    out.sort(key=lambda aggregate: (-aggregate.mistakes, aggregate.pattern_key))
    return out


# ---- how review shows them ---------------------------------------------------------------------------


def class_level_json(item: ClassLevelEntry) -> dict[str, object]:
    return {
        "id": item.entry.id,
        "pattern_key": item.entry.pattern_key,
        "occurrences": item.entry.recurrence_count,
        "subjects": list(item.subjects),
        "mixed": item.mixed,
        "reason": class_level_reason(item),
    }


def class_level_reason(item: ClassLevelEntry) -> str:
    if item.mixed:
        return (f"counts {len(item.subjects)} different mistakes ({', '.join(item.subjects)}) under one class: "
                "split it or archive it; it is not proposed as a rule")
    return "counted by class before fingerprints: not proposed as a rule; new failures go to fingerprinted entries"


def aggregate_json(aggregate: ClassAggregate, window_days: int) -> dict[str, object]:
    return {
        "pattern_key": aggregate.pattern_key,
        "mistakes": aggregate.mistakes,
        "occurrences": aggregate.occurrences,
        "window_days": window_days,
        "subjects": list(aggregate.subjects),
    }


def aggregate_line(aggregate: ClassAggregate, window_days: int) -> str:
    more = ", …" if aggregate.mistakes > len(aggregate.subjects) else ""
    return (f"  {aggregate.pattern_key}: {aggregate.mistakes} different mistakes, {aggregate.occurrences} occurrences "
            f"in {window_days} days ({', '.join(aggregate.subjects)}{more})")
