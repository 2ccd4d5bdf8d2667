"""Efficacy per promoted rule, from outside signals: did its mistake stop after promotion?

For each promoted rule (``Status: promoted``), from the store alone:

- **before**: its fingerprint's occurrences from its first recorded one up to the day before
  ``Promoted-On``, over the project's sessions in that span;
- **after**: its occurrences on or after ``Promoted-On`` (that day counts: its review may have come
  after them), over the project's sessions since then: the **sessions seen since**;
- its credit: ``Helpful``/``Harmful`` as marked (``mark``) and as measured by the hooks.

A *session of the project* is a task (``DATE/TASK`` in any entry's Occurrences, archived ones
included) recorded in the span; the unknown task ``-`` never counts. That is a lower bound: a
session in which nothing at all was recorded leaves no trace in the store. The hooks' per-session
files (``.learnings/.state/sessions/``) would see more, but they are pruned after
``state.session_ttl_days`` (7 by default), stamped by the wall clock rather than the store's
(``SELF_IMPROVE_NOW``) and written only on a prompt, so they cannot measure months after a
promotion. Occurrences are bounded per entry (``log.max_occurrences``): for an old, busy entry
the earliest ones are folded into ``Recurrence-Count`` and not seen here.

A rule promoted before ``Promoted-On`` existed has no day to split at: its before, after and
sessions since are unknown (None), never guessed. Pure functions: no file is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from self_improve.store.entry import Entry
from self_improve.store.occurrences import Occurrence


@dataclass(frozen=True)
class Period:
    occurrences: int  # of the rule's fingerprint
    sessions: int  # the project's sessions in the period

    @property
    def per_session(self) -> float | None:
        return round(self.occurrences / self.sessions, 2) if self.sessions else None

    def as_json(self) -> dict[str, Any]:
        return {"occurrences": self.occurrences, "sessions": self.sessions, "per_session": self.per_session}


@dataclass(frozen=True)
class RuleEfficacy:
    entry: Entry
    promoted_on: str  # YYYY-MM-DD, "" when unknown
    before: Period | None  # None: no Promoted-On to split at
    after: Period | None

    @property
    def sessions_since(self) -> int | None:
        return None if self.after is None else self.after.sessions

    def as_json(self) -> dict[str, Any]:
        entry = self.entry
        return {
            "id": entry.id,
            "pattern_key": entry.pattern_key,
            "summary": entry.summary,
            "target": entry.promoted,
            "promoted_on": self.promoted_on or None,
            "before": None if self.before is None else self.before.as_json(),
            "after": None if self.after is None else self.after.as_json(),
            "sessions_since": self.sessions_since,
            "recurred_after_promotion": entry.recurred_after_promotion,
            "helpful": {"marked": entry.helpful, "measured": entry.measured_helpful},
            "harmful": {"marked": entry.harmful, "measured": entry.measured_harmful},
        }


def _period_text(period: dict[str, Any]) -> str:
    sessions, rate = period["sessions"], period["per_session"]
    shown = f"{rate:.2f}" if rate is not None else "n/a"
    return f"{period['occurrences']} in {sessions} session{'s' if sessions != 1 else ''} ({shown} per session)"


def efficacy_lines(items: Sequence[dict[str, Any]]) -> list[str]:
    """The text of ``stats``, from the JSON form (:meth:`RuleEfficacy.as_json`): three lines a rule."""
    lines: list[str] = []
    for item in items:
        key = f"  [{item['pattern_key']}]" if item["pattern_key"] else ""
        promoted = f"promoted {item['promoted_on']}" if item["promoted_on"] else "promoted (day unknown)"
        where = f" to {item['target']}" if item["target"] else ""
        if item["before"] is None or item["after"] is None:
            split = "before/after: unknown (no Promoted-On); sessions since: unknown"
        else:
            split = f"before: {_period_text(item['before'])}; after: {_period_text(item['after'])}; sessions since: {item['sessions_since']}"
        helpful, harmful = item["helpful"], item["harmful"]
        lines += [
            f"  {item['id']}{key}  {promoted}{where}",
            f"      {split}",
            f"      helpful: marked {helpful['marked']}, measured {helpful['measured']}; "
            f"harmful: marked {harmful['marked']}, measured {harmful['measured']}",
        ]
    return lines


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _dated(history: Iterable[Occurrence]) -> list[tuple[date, str]]:
    out = []
    for item in history:
        when = _day(item.date)
        if when is not None:
            out.append((when, item.task))
    return out


def _sessions(project: Sequence[tuple[date, str]], start: date | None, end: date | None) -> int:
    """Distinct known tasks recorded on days in [start, end) (an open side: no bound)."""
    return len({
        task for when, task in project
        if task and task != "-" and (start is None or when >= start) and (end is None or when < end)
    })


def rule_efficacy(entry: Entry, project: Sequence[tuple[date, str]]) -> RuleEfficacy:
    """One promoted rule's figures; ``project`` is every dated occurrence of the store (:func:`project_history`)."""
    promoted = _day(entry.promoted_on)
    if promoted is None:
        return RuleEfficacy(entry, "", None, None)
    own = _dated(entry.occurrences)
    before = [when for when, _ in own if when < promoted]
    after = [when for when, _ in own if when >= promoted]
    first = min(before) if before else promoted
    return RuleEfficacy(
        entry,
        promoted.isoformat(),
        Period(len(before), _sessions(project, first, promoted)),
        Period(len(after), _sessions(project, promoted, None)),
    )


def project_history(entries: Iterable[Entry]) -> list[tuple[date, str]]:
    """Every dated occurrence of these entries, as (day, task): what sessions are counted from."""
    return [item for entry in entries for item in _dated(entry.occurrences)]


def efficacy(entries: Sequence[Entry], history: Iterable[Entry] = ()) -> list[RuleEfficacy]:
    """Every promoted rule among ``entries``, by ID. Sessions are counted over ``entries`` and
    ``history`` (the archived entries: their sessions were sessions of the project too)."""
    project = project_history([*entries, *history])
    promoted = sorted((entry for entry in entries if entry.status == "promoted"), key=lambda entry: entry.id)
    return [rule_efficacy(entry, project) for entry in promoted]
