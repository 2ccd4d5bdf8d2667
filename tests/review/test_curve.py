"""The learning curve's numbers (``review/curve.py``): ISO-week and day periods, ``since``
inclusive, empty periods as zeros, each series exact on a hand-built store, the undated rest
counted beside it, and (Hypothesis) the periods adding up to the range's total."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from self_improve.review.curve import (
    Period,
    bucket,
    compute,
    default_since,
    mistake_days,
    notes,
    period_start,
    periods,
    top_recurring,
)
from self_improve.store.entry import Entry, parse_text
from tests.helpers import TODAY, day, entry_text


def parsed(text: str) -> Entry:
    return parse_text(text).entries[0]


# TODAY is 2026-03-01, a Sunday: the range 2026-02-16 (a Monday) to it is ISO weeks 8 and 9.
A = parsed(entry_text("ERR-20260201-aaa", "yaml is missing", status="promoted", promoted="CLAUDE.md",
                      occurrences=[(12, "1a"), (8, "2b"), (8, "2b"), (1, "3c")],
                      meta=[("Promoted-On", day(6)), ("Measured-Helpful", "4")]))
# Five occurrences, two kept: the first was folded away, so both shown are repeats.
B = parsed(entry_text("LRN-20260202-bbb", "Use pnpm", occurrences=[(3, "4d"), (0, "5e")], recurrence=5))
# No Occurrences line: First-Seen dates its first occurrence; the other two have no day.
C = parsed(entry_text("ERR-20260203-ccc", "make fails", recurrence=3, last_seen=9))
FEATURE = parsed(entry_text("FEAT-20260204-ddd", "dark mode", occurrences=[(2, "6f")]))
ARCHIVED = parsed(entry_text("LRN-20260101-eee", "old", status="archived", occurrences=[(20, "7a"), (13, "7a")]))
DAILY = {"measured_helpful": {"2026-02-24": 2, "2026-02-10": 1}, "rules_retired": {"2026-03-01": 1}}


def test_iso_weeks_start_on_monday_and_cross_the_year() -> None:
    # 2025-12-28 is a Sunday (2025-W52); 2025-12-29 the Monday of 2026-W01.
    assert periods(date(2025, 12, 28), date(2026, 1, 5), "week") == (
        Period(date(2025, 12, 28), date(2025, 12, 28), "2025-W52"),
        Period(date(2025, 12, 29), date(2026, 1, 4), "2026-W01"),
        Period(date(2026, 1, 5), date(2026, 1, 5), "2026-W02"),
    )
    assert [period_start(date(2026, 3, d), "week") for d in (1, 2, 8)] == [date(2026, 2, 23), date(2026, 3, 2), date(2026, 3, 2)]
    assert periods(date(2026, 2, 27), date(2026, 3, 1), "day") == tuple(
        Period(d, d, d.isoformat()) for d in (date(2026, 2, 27), date(2026, 2, 28), date(2026, 3, 1))
    )
    assert periods(date(2026, 3, 2), date(2026, 3, 1), "week") == ()
    with pytest.raises(ValueError, match="by must be one of week, day, not 'month'"):
        periods(TODAY, TODAY, "month")


def test_default_range() -> None:
    assert default_since(TODAY, "week") == date(2025, 12, 8)  # the Monday 11 weeks before this week's
    assert len(periods(default_since(TODAY, "week"), TODAY, "week")) == 12
    assert default_since(TODAY, "day") == date(2026, 2, 2)
    assert len(periods(default_since(TODAY, "day"), TODAY, "day")) == 28


def test_since_is_inclusive_and_empty_periods_are_zero() -> None:
    spans = periods(date(2026, 2, 18), TODAY, "week")  # a Wednesday: W08 counts from it
    assert spans[0] == Period(date(2026, 2, 18), date(2026, 2, 22), "2026-W08")
    days = [date(2026, 2, 17), date(2026, 2, 18), date(2026, 3, 1), date(2026, 3, 2)]
    assert bucket(days, spans) == (1, 1)  # the 17th (before since) and the 2nd (after today) are out
    assert bucket([], periods(date(2026, 2, 2), TODAY, "week")) == (0, 0, 0, 0)


def test_mistake_days() -> None:
    assert mistake_days(A) == (
        [date(2026, 2, 17), date(2026, 2, 21), date(2026, 2, 21), date(2026, 2, 28)],
        [date(2026, 2, 21), date(2026, 2, 21), date(2026, 2, 28)], 0, 0,
    )
    assert mistake_days(B) == ([date(2026, 2, 26), date(2026, 3, 1)], [date(2026, 2, 26), date(2026, 3, 1)], 3, 2)
    assert mistake_days(C) == ([date(2026, 2, 20)], [], 2, 2)


def test_every_series_by_week_on_a_hand_built_store() -> None:
    curve = compute([A, B, C, FEATURE], [ARCHIVED], DAILY, date(2026, 2, 16), TODAY, "week", retired_total=2)
    assert [p.label for p in curve.periods] == ["2026-W08", "2026-W09"]
    assert dict(curve.series) == {
        # W08: A's 17th and two 21st, C's First-Seen 20th; W09: A's 28th, B's 26th and 1st.
        # ARCHIVED's 9th and 16th: the 16th is W08 (since is inclusive). FEATURE is no mistake.
        "recorded": (5, 3),
        "repeats": (3, 3),  # A's 21st twice and 28th; B's two; ARCHIVED's 16th
        "fixed": (0, 2),  # the 10th is before since
        "promoted": (0, 1),  # A's Promoted-On, the 23rd
        "retired": (0, 1),
    }
    # B: 3 folded (2 of them repeats), C: 2 without a day (both repeats); the entries carry
    # 4 measured helpful, the tally dated 3; 2 rules are retired, 1 retirement is dated.
    assert dict(curve.undated) == {"recorded": 5, "repeats": 4, "fixed": 1, "promoted": 0, "retired": 1}
    assert dict(curve.tally_since) == {"measured_helpful": "2026-02-10", "rules_retired": "2026-03-01"}


def test_every_series_by_day() -> None:
    curve = compute([A, B, C], [ARCHIVED], DAILY, date(2026, 2, 20), date(2026, 2, 24), "day")
    assert [p.label for p in curve.periods] == ["2026-02-20", "2026-02-21", "2026-02-22", "2026-02-23", "2026-02-24"]
    assert dict(curve.series) == {
        "recorded": (1, 2, 0, 0, 0),
        "repeats": (0, 2, 0, 0, 0),
        "fixed": (0, 0, 0, 0, 2),
        "promoted": (0, 0, 0, 1, 0),
        "retired": (0, 0, 0, 0, 0),
    }


def test_a_promoted_rule_without_promoted_on_is_undated() -> None:
    legacy = parsed(entry_text("LRN-20260205-fff", "tabs", status="promoted", occurrences=[(1, "8b")]))
    curve = compute([legacy], [], {}, date(2026, 2, 16), TODAY, "week")
    assert curve.series["promoted"] == (0, 0)
    assert curve.undated["promoted"] == 1


def test_notes_say_where_each_series_comes_from_and_what_is_missing() -> None:
    curve = compute([A, B, C], [], DAILY, date(2026, 2, 16), TODAY, "week", retired_total=2)
    assert notes(curve) == [
        "mistakes recorded: dated occurrences of error and learning entries, archived ones included",
        "repeats: those that were not their entry's first occurrence",
        "fixed in time: a fix the hooks gave before the command or right after it failed, then the same "
        "command passed (measured helpful); dated on this machine since 2026-02-10",
        "rules promoted: on each rule's Promoted-On day (a rewritten rule on its rewrite day)",
        "rules retired: retire actions, dated on this machine since 2026-03-01",
        "not shown, no day known: mistakes recorded 5, repeats 4, fixed in time 1, rules retired 1",
    ]
    empty = compute([], [], {}, date(2026, 2, 16), TODAY, "week")
    assert notes(empty)[2].endswith("(measured helpful); none dated on this machine yet")
    assert notes(empty)[4] == "rules retired: retire actions, none dated on this machine yet"
    assert len(notes(empty)) == 5  # nothing undated: no such line


def test_top_recurring() -> None:
    once = parsed(entry_text("ERR-20260206-ggg", "once", occurrences=[(1, "9c")]))
    found = top_recurring([A, B, C, once, FEATURE], date(2026, 2, 16), TODAY)
    # A: 4 in range; B: 2 in range (5 in all); C: 1 (3 in all); `once` does not recur.
    assert [(item.entry.id, item.in_range, item.total) for item in found] == [
        ("ERR-20260201-aaa", 4, 4), ("LRN-20260202-bbb", 2, 5), ("ERR-20260203-ccc", 1, 3),
    ]
    assert [item.entry.id for item in top_recurring([A, B, C], date(2026, 2, 21), TODAY, limit=2)] == [
        "ERR-20260201-aaa", "LRN-20260202-bbb",
    ]


# ---- properties ------------------------------------------------------------------------------------

START = date(2025, 12, 1)
days_st = st.integers(min_value=0, max_value=150).map(lambda n: START + timedelta(days=n))


@given(days=st.lists(days_st, max_size=60), since=days_st, length=st.integers(min_value=0, max_value=90),
       by=st.sampled_from(["week", "day"]))
def test_bucket_sums_to_the_range_total(days: list[date], since: date, length: int, by: str) -> None:
    today = since + timedelta(days=length)
    spans = periods(since, today, by)
    counts = bucket(days, spans)
    assert sum(counts) == sum(1 for d in days if since <= d <= today)
    assert len(counts) == len(spans)
    # Contiguous, ordered, covering exactly [since, today].
    assert spans[0].start == since and spans[-1].end == today
    assert all(a.end + timedelta(days=1) == b.start for a, b in zip(spans, spans[1:], strict=False))
    if by == "week":
        assert all(p.start.weekday() == 0 for p in spans[1:]) and all(p.end.weekday() == 6 for p in spans[:-1])


@given(ages=st.lists(st.lists(st.integers(min_value=0, max_value=120), min_size=1, max_size=6), max_size=8),
       since_age=st.integers(min_value=0, max_value=120), by=st.sampled_from(["week", "day"]))
def test_recorded_and_repeats_sum_to_the_dated_occurrences_in_range(ages: list[list[int]], since_age: int, by: str) -> None:
    entries = [
        parsed(entry_text(f"ERR-20260101-{n:03d}", "x", occurrences=[(a, "t") for a in sorted(group, reverse=True)]))
        for n, group in enumerate(ages)
    ]
    since = TODAY - timedelta(days=since_age)
    curve = compute(entries, [], {}, since, TODAY, by)
    in_range = [sum(1 for a in group if since <= TODAY - timedelta(days=a)) for group in ages]
    assert curve.total("recorded") == sum(in_range)
    # Each entry's oldest occurrence is its only non-repeat.
    firsts = sum(1 for group in ages if since <= TODAY - timedelta(days=max(group)))
    assert curve.total("repeats") == sum(in_range) - firsts
    assert dict(curve.undated) == {"recorded": 0, "repeats": 0, "fixed": 0, "promoted": 0, "retired": 0}
