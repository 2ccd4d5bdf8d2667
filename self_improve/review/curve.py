"""The learning curve: what the loop did per week (or day), from what the store has dated.

Five series, each counted per period of a date range (``since`` to ``today``, both inclusive;
weeks are ISO weeks, Monday to Sunday; an empty period is a zero):

- **recorded**: mistakes recorded: the dated occurrences (``- Occurrences:``) of every error and
  learning entry, archived ones included (feature requests are no mistakes). An entry that has no
  Occurrences line counts once, on its First-Seen day;
- **repeats**: those occurrences that were not the entry's first: every one but the oldest, and
  every one when the entry's oldest occurrences were folded into ``Recurrence-Count``
  (``log.max_occurrences``), since then its oldest shown one was a repeat too;
- **fixed**: repeats that got the right fix in time: the hooks' *measured helpful* outcomes (a fix
  they gave before the command, or right after it failed, followed by the same intent passing),
  from the dated tally ``measured_helpful`` (``store/counters.py``, ``daily.json``);
- **promoted**: rules promoted, on each entry's ``Promoted-On`` (retired and archived entries
  keep theirs; a rule rewritten since counts on its rewrite day);
- **retired**: rules retired, from the dated tally ``rules_retired``.

Never a guessed number: what has no day (occurrences folded past the bound, measured credit or
retirements from before the dated tally, a rule promoted before Promoted-On existed) is counted
as *undated* beside the series, and :func:`notes` says so in the chart's legend. Pure functions:
no file is read here (:func:`load` in ``curve_text.py`` reads the store).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from self_improve.store.entry import Entry
from self_improve.store.occurrences import Occurrence

SERIES = ("recorded", "repeats", "fixed", "promoted", "retired")
LABELS = {
    "recorded": "mistakes recorded",
    "repeats": "repeats",
    "fixed": "fixed in time",
    "promoted": "rules promoted",
    "retired": "rules retired",
}
BY = ("week", "day")
DEFAULT_PERIODS = {"week": 12, "day": 28}  # the range without --since: 12 weeks, 4 weeks of days
MISTAKE_KINDS = ("error", "learning")
FIXED_TALLY = "measured_helpful"
RETIRED_TALLY = "rules_retired"


@dataclass(frozen=True)
class Period:
    start: date  # the first day counted (``since`` for a first, partial period)
    end: date  # the last day counted, inclusive
    label: str  # "2026-W48" or "2026-11-30"


@dataclass(frozen=True)
class Curve:
    by: str
    since: date
    today: date
    periods: tuple[Period, ...]
    series: Mapping[str, tuple[int, ...]]  # name -> one count per period
    undated: Mapping[str, int]  # name -> how many of that kind have no day to count on
    tally_since: Mapping[str, str] = field(default_factory=dict)  # tally name -> its first day ("" if none)

    def total(self, name: str) -> int:
        return sum(self.series[name])

    def as_json(self) -> dict[str, object]:
        return {
            "by": self.by,
            "since": self.since.isoformat(),
            "today": self.today.isoformat(),
            "periods": [{"label": p.label, "start": p.start.isoformat(), "end": p.end.isoformat()} for p in self.periods],
            "series": {name: list(self.series[name]) for name in SERIES},
            "undated": {name: self.undated.get(name, 0) for name in SERIES},
            "notes": notes(self),
        }


# ---- periods ---------------------------------------------------------------------------------


def period_start(day: date, by: str) -> date:
    """The first day of ``day``'s period: its ISO week's Monday, or the day itself."""
    return day - timedelta(days=day.weekday()) if by == "week" else day


def default_since(today: date, by: str) -> date:
    """Without ``--since``: the start of the period :data:`DEFAULT_PERIODS` periods back, today's included."""
    if by == "week":
        return period_start(today, by) - timedelta(weeks=DEFAULT_PERIODS[by] - 1)
    return today - timedelta(days=DEFAULT_PERIODS[by] - 1)


def _label(start: date, by: str) -> str:
    if by == "week":
        year, week, _ = start.isocalendar()
        return f"{year}-W{week:02d}"
    return start.isoformat()


def periods(since: date, today: date, by: str) -> tuple[Period, ...]:
    """Every period from ``since``'s to ``today``'s, clipped to [since, today]."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
    out = []
    start = period_start(since, by)
    step = timedelta(weeks=1) if by == "week" else timedelta(days=1)
    while start <= today:
        last = start + step - timedelta(days=1)
        out.append(Period(max(start, since), min(last, today), _label(start, by)))
        start += step
    return tuple(out)


def bucket(days: Iterable[date], spans: Sequence[Period]) -> tuple[int, ...]:
    """How many of ``days`` fall in each period (days outside them are not counted)."""
    counts = [0] * len(spans)
    if not spans:
        return ()
    first, last = spans[0].start, spans[-1].end
    starts = [p.start for p in spans]
    for day in days:
        if first <= day <= last:
            # The periods are contiguous and ordered: the last one starting on or before the day.
            index = _last_at_or_before(starts, day)
            counts[index] += 1
    return tuple(counts)


def _last_at_or_before(starts: Sequence[date], day: date) -> int:
    import bisect

    return bisect.bisect_right(starts, day) - 1


# ---- the dated events ------------------------------------------------------------------------------


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _dated(history: Iterable[Occurrence]) -> list[date]:
    return sorted(day for day in (_day(item.date) for item in history) if day is not None)


def mistake_days(entry: Entry) -> tuple[list[date], list[date], int, int]:
    """(days of its recorded occurrences, days of those that were repeats, how many of its
    ``Recurrence-Count`` have no day, how many of those were repeats)."""
    days = _dated(entry.occurrences)
    if not entry.occurrences:  # no history: First-Seen dates its first occurrence, and only that
        first = _day(entry.first_seen)
        count = max(1, entry.recurrence_count)
        if first is None:
            return [], [], count, count - 1
        return [first], [], count - 1, count - 1
    count = max(entry.recurrence_count, len(entry.occurrences))
    undated = count - len(days)  # folded past the bound (the oldest), or a date that does not parse
    # History is oldest first: its first item is the entry's first occurrence when nothing was
    # folded away, and then only its day is no repeat. Otherwise the first has no day.
    first = _day(entry.occurrences[0].date) if count == len(entry.occurrences) else None
    if first is None:
        return days, days, undated, max(0, undated - 1)
    repeats = list(days)
    repeats.remove(first)
    return days, repeats, undated, undated


def tally_days(tally: Mapping[str, int]) -> list[date]:
    """A dated tally (``{day: count}``) as one day per event."""
    out = []
    for text, count in sorted(tally.items()):
        day = _day(text)
        if day is not None and count > 0:
            out.extend([day] * count)
    return out


def compute(
    entries: Sequence[Entry],
    archived: Sequence[Entry],
    daily: Mapping[str, Mapping[str, int]],
    since: date,
    today: date,
    by: str,
    retired_total: int = 0,
) -> Curve:
    """The curve over [since, today]. ``entries`` and ``archived``: the store's; ``daily``: the
    dated tallies (``counters.read_daily``); ``retired_total``: the rules the store says are
    retired (their status, or their archive record's), to say how many have no dated retirement."""
    spans = periods(since, today, by)
    everything = [*entries, *archived]
    recorded: list[date] = []
    repeats: list[date] = []
    undated_recorded = 0
    undated_repeats = 0
    for entry in everything:
        if entry.kind not in MISTAKE_KINDS:
            continue
        days, again, no_day, no_day_repeats = mistake_days(entry)
        recorded += days
        repeats += again
        undated_recorded += no_day
        undated_repeats += no_day_repeats
    promoted: list[date] = []
    undated_promoted = 0
    for entry in everything:
        day = _day(entry.promoted_on)
        if day is not None:
            promoted.append(day)
        elif entry.status == "promoted":
            undated_promoted += 1
    fixed = tally_days(daily.get(FIXED_TALLY, {}))
    measured = sum(entry.measured_helpful for entry in everything)
    retired = tally_days(daily.get(RETIRED_TALLY, {}))
    series = {
        "recorded": bucket(recorded, spans),
        "repeats": bucket(repeats, spans),
        "fixed": bucket(fixed, spans),
        "promoted": bucket(promoted, spans),
        "retired": bucket(retired, spans),
    }
    undated = {
        "recorded": undated_recorded,
        "repeats": undated_repeats,
        # Measured credit the entries carry beyond what the tally dated (written before it existed,
        # or on another machine: the entries are shared, the tally is this machine's).
        "fixed": max(0, measured - len(fixed)),
        "promoted": undated_promoted,
        "retired": max(0, retired_total - len(retired)),
    }
    tally_since = {name: min(daily.get(name, {}), default="") for name in (FIXED_TALLY, RETIRED_TALLY)}
    return Curve(by, since, today, spans, series, undated, tally_since)


def notes(curve: Curve) -> list[str]:
    """The legend's honest notes: where each series comes from, and what it cannot show."""

    def since(name: str) -> str:
        first = curve.tally_since.get(name, "")
        return f"dated on this machine since {first}" if first else "none dated on this machine yet"

    out = [
        "mistakes recorded: dated occurrences of error and learning entries, archived ones included",
        "repeats: those that were not their entry's first occurrence",
        "fixed in time: a fix the hooks gave before the command or right after it failed, then the "
        f"same command passed (measured helpful); {since(FIXED_TALLY)}",
        "rules promoted: on each rule's Promoted-On day (a rewritten rule on its rewrite day)",
        f"rules retired: retire actions, {since(RETIRED_TALLY)}",
    ]
    undated = [f"{LABELS[name]} {curve.undated[name]}" for name in SERIES if curve.undated.get(name)]
    if undated:
        out.append("not shown, no day known: " + ", ".join(undated))
    return out


@dataclass(frozen=True)
class Recurring:
    entry: Entry
    in_range: int  # dated occurrences in [since, today]
    total: int  # its Recurrence-Count


def top_recurring(entries: Iterable[Entry], since: date, today: date, limit: int = 10) -> list[Recurring]:
    """The mistakes that recur most in the range: entries seen more than once in all, ranked by
    their occurrences in [since, today], then in all, then by ID; those not seen in the range left out."""
    found = []
    for entry in entries:
        if entry.kind not in MISTAKE_KINDS:
            continue
        days, _, _, _ = mistake_days(entry)
        in_range = sum(1 for day in days if since <= day <= today)
        total = max(entry.recurrence_count, len(days))
        if in_range and total > 1:
            found.append(Recurring(entry, in_range, total))
    found.sort(key=lambda item: (-item.in_range, -item.total, item.entry.id))
    return found[:limit]
