"""The promotion and forgetting policy, as pure functions: boundaries first."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from self_improve.review.candidates import archive_candidates, plan_review, promote_candidates, retire_candidates
from self_improve.review.policy import (
    Policy,
    TargetTable,
    default_target,
    evidence,
    is_openclaw_workspace,
    propose_rule,
    rule_problem,
)
from self_improve.review.triage import pending_triage
from self_improve.store.entry import Entry, parse_text
from tests.helpers import TODAY, day, entry_text, record_here, write_project  # noqa: F401 (record_here, write_project: still imported from here by tests outside tests/review)

POLICY = Policy()
TARGETS = TargetTable()


def entry(*args: object, **kwargs: object) -> Entry:
    return parse_text(entry_text(*args, **kwargs)).entries[0]  # type: ignore[arg-type]


def promoted_ids(entries: Sequence[Entry], policy: Policy = POLICY, openclaw: bool = False) -> list[str]:
    return [c.entry.id for c in promote_candidates(entries, TODAY, policy, TARGETS, openclaw)]


def archived_ids(entries: Sequence[Entry], policy: Policy = POLICY) -> list[str]:
    return [c.entry.id for c in archive_candidates(entries, TODAY, policy)[0]]


# ---- the promotion rule at its boundaries ---------------------------------------------------------


def test_three_occurrences_qualify_two_do_not() -> None:
    three = entry("LRN-20260301-aaa", action="Do X", occurrences=[(3, "t1"), (2, "t2"), (1, "t1")])
    two = entry("LRN-20260301-bbb", action="Do X", occurrences=[(2, "t1"), (1, "t2")])
    assert promoted_ids([three, two]) == ["LRN-20260301-aaa"]


def test_two_tasks_qualify_one_does_not() -> None:
    two_tasks = entry("ERR-20260301-aaa", action="Do X", occurrences=[(3, "t1"), (2, "t1"), (1, "t2")])
    one_task = entry("ERR-20260301-bbb", action="Do X", occurrences=[(3, "t1"), (2, "t1"), (1, "t1")])
    assert promoted_ids([two_tasks, one_task]) == ["ERR-20260301-aaa"]


def test_unknown_task_never_counts_as_a_distinct_task() -> None:
    unknown = entry("ERR-20260301-aaa", action="Do X", occurrences=[(3, "-"), (2, "-"), (1, "t1")])
    assert promoted_ids([unknown]) == []
    assert evidence(unknown, TODAY, 30).tasks == 1


def test_day_30_is_inside_the_window_day_31_is_not() -> None:
    on_day_30 = entry("LRN-20260301-aaa", action="Do X", occurrences=[(30, "t1"), (5, "t2"), (1, "t2")])
    on_day_31 = entry("LRN-20260301-bbb", action="Do X", occurrences=[(31, "t1"), (5, "t2"), (1, "t2")])
    assert promoted_ids([on_day_30, on_day_31]) == ["LRN-20260301-aaa"]
    assert evidence(on_day_31, TODAY, 30).occurrences == 2


def test_thresholds_come_from_the_policy() -> None:
    two = entry("LRN-20260301-aaa", action="Do X", occurrences=[(40, "t1"), (1, "t1")])
    assert promoted_ids([two]) == []
    assert promoted_ids([two], Policy(min_occurrences=2, min_tasks=1, window_days=45)) == ["LRN-20260301-aaa"]


@pytest.mark.parametrize("status", ["pending", "in_progress", "resolved"])
def test_promotable_statuses(status: str) -> None:
    item = entry("LRN-20260301-aaa", status=status, action="Do X", occurrences=[(3, "t1"), (2, "t2"), (1, "t3")])
    assert promoted_ids([item]) == ["LRN-20260301-aaa"]


@pytest.mark.parametrize("status", ["wont_fix", "promoted", "promoted_to_skill", "retired", "archived"])
def test_other_statuses_are_never_promoted(status: str) -> None:
    item = entry("LRN-20260301-aaa", status=status, priority="critical", action="Do X", occurrences=[(3, "t1"), (2, "t2"), (1, "t3")])
    assert promoted_ids([item]) == []


def test_reference_format_entry_cannot_prove_two_tasks() -> None:
    # No Occurrences line: Recurrence-Count and Last-Seen are all we have.
    reference = entry("LRN-20260301-aaa", action="Do X", recurrence=5, last_seen=2)
    proof = evidence(reference, TODAY, 30)
    assert (proof.occurrences, proof.tasks, proof.has_history) == (5, 0, False)
    assert promoted_ids([reference]) == []


def test_a_self_set_critical_does_not_bypass_the_evidence_rule() -> None:
    # Finding 6: `log --priority critical` made a candidate of one occurrence. Anyone sets it.
    once = entry("ERR-20260301-aaa", priority="critical", action="Do X", occurrences=[(1, "t1")])
    old = entry("ERR-20260301-bbb", priority="critical", action="Do X", recurrence=1, last_seen=400)
    reference = entry("ERR-20260301-ccc", priority="critical", action="Do X", recurrence=9, last_seen=1)
    assert promoted_ids([once, old, reference]) == []


@pytest.mark.parametrize(
    ("occurrences", "listed"),
    [
        ([(3, "t1"), (2, "t2")], False),  # 2 occurrences: one short
        ([(3, "t1"), (2, "t1"), (1, "t1")], False),  # 3 occurrences, 1 task: one task short
        ([(31, "t1"), (2, "t2"), (1, "t1")], False),  # day 31 does not count
        ([(30, "t1"), (2, "t2"), (1, "t1")], True),  # day 30 does
        ([(3, "t1"), (2, "t2"), (1, "t1")], True),
    ],
    ids=["two-occurrences", "one-task", "day-31", "day-30", "meets"],
)
def test_critical_meets_the_same_boundaries_as_any_entry(occurrences: list[tuple[int, str]], listed: bool) -> None:
    critical = entry("ERR-20260301-aaa", priority="critical", action="Do X", occurrences=occurrences)
    plain = entry("ERR-20260301-bbb", priority="medium", action="Do X", occurrences=occurrences)
    assert promoted_ids([critical]) == (["ERR-20260301-aaa"] if listed else [])
    assert promoted_ids([plain]) == (["ERR-20260301-bbb"] if listed else [])


def test_critical_only_sorts_first_and_is_flagged() -> None:
    critical = entry("ERR-20260301-aaa", priority="critical", action="Do X", occurrences=[(3, "t1"), (2, "t2"), (1, "t1")])
    strong = entry("ERR-20260301-bbb", action="Do Y", occurrences=[(5, "t1"), (4, "t2"), (3, "t3"), (2, "t4"), (1, "t5")])
    found = promote_candidates([strong, critical], TODAY, POLICY, TARGETS, False)
    assert [(c.entry.id, c.critical, c.meets_rule) for c in found] == [
        ("ERR-20260301-aaa", True, True),
        ("ERR-20260301-bbb", False, True),
    ]


def test_superseded_entries_are_not_promoted() -> None:
    item = entry("LRN-20260301-aaa", action="Do X", occurrences=[(3, "t1"), (2, "t2"), (1, "t3")], meta=[("Superseded-By", "LRN-20260301-bbb")])
    assert promoted_ids([item]) == []


def test_strongest_evidence_first() -> None:
    weaker = entry("LRN-20260301-aaa", action="A", occurrences=[(3, "t1"), (2, "t2"), (1, "t3")])
    stronger = entry("LRN-20260301-bbb", action="B", occurrences=[(4, "t1"), (3, "t2"), (2, "t3"), (1, "t4")])
    assert promoted_ids([weaker, stronger]) == ["LRN-20260301-bbb", "LRN-20260301-aaa"]


# ---- decay --------------------------------------------------------------------------------------------


def test_decayed_pending_entry_stops_counting_and_is_listed_for_archiving() -> None:
    wide = Policy(window_days=400)  # wide enough that old occurrences would otherwise qualify
    decayed = entry("LRN-20260301-aaa", action="X", occurrences=[(300, "t1"), (250, "t2"), (181, "t3")])
    fresh = entry("LRN-20260301-bbb", action="X", occurrences=[(300, "t1"), (250, "t2"), (180, "t3")])
    assert promoted_ids([decayed, fresh], wide) == ["LRN-20260301-bbb"]
    assert archived_ids([decayed, fresh], wide) == ["LRN-20260301-aaa"]
    reason = archive_candidates([decayed], TODAY, wide)[0][0]
    assert (reason.why, reason.reason) == ("decayed", "pending, no occurrence for 181 days (over 180): it no longer counts towards promotion")
    assert decayed.occurrences  # the history stays


# ---- archive ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["resolved", "wont_fix", "retired"])
def test_closed_entries_archive_after_90_days(status: str) -> None:
    day_90 = entry("LRN-20260301-aaa", status=status, occurrences=[(90, "t1")])
    day_91 = entry("LRN-20260301-bbb", status=status, occurrences=[(91, "t1")])
    assert archived_ids([day_90, day_91]) == ["LRN-20260301-bbb"]


@pytest.mark.parametrize("status", ["pending", "in_progress", "promoted", "promoted_to_skill"])
def test_open_or_promoted_entries_are_not_archived_by_age(status: str) -> None:
    old = entry("LRN-20260301-aaa", status=status, occurrences=[(150, "t1")])
    assert archived_ids([old]) == []


def test_see_also_from_an_active_entry_protects() -> None:
    old = entry("LRN-20260301-aaa", status="resolved", occurrences=[(200, "t1")])
    citing = entry("LRN-20260301-bbb", occurrences=[(1, "t1")], see_also="LRN-20260301-aaa")
    assert archived_ids([old, citing]) == []
    closed_citing = entry("LRN-20260301-bbb", status="wont_fix", occurrences=[(1, "t1")], see_also="LRN-20260301-aaa")
    assert archived_ids([old, closed_citing]) == ["LRN-20260301-aaa"]


def test_a_stale_cluster_goes_together() -> None:
    a = entry("LRN-20260301-aaa", status="resolved", occurrences=[(200, "t1")], see_also="LRN-20260301-bbb")
    b = entry("LRN-20260301-bbb", status="resolved", occurrences=[(150, "t1")], see_also="LRN-20260301-aaa")
    assert archived_ids([a, b]) == ["LRN-20260301-aaa", "LRN-20260301-bbb"]


def test_archive_year_is_the_year_last_seen() -> None:
    old = entry("LRN-20260301-aaa", status="resolved", occurrences=[(400, "t1"), (100, "t2")])
    assert archive_candidates([old], TODAY, POLICY)[0][0].year == "2025"


# ---- size cap -----------------------------------------------------------------------------------------


def test_size_cap_lists_single_occurrences_oldest_first() -> None:
    entries = [
        entry("LRN-20260301-aaa", occurrences=[(10, "t1")]),
        entry("LRN-20260301-bbb", occurrences=[(50, "t1"), (40, "t2")]),  # oldest, but seen twice
        entry("LRN-20260301-ccc", occurrences=[(20, "t1")]),
        entry("LRN-20260301-ddd", status="promoted", occurrences=[(60, "t1")]),  # a live rule
        entry("LRN-20260301-eee", priority="critical", occurrences=[(70, "t1")]),  # flagged by the user
        entry("LRN-20260301-fff", occurrences=[(5, "t1"), (4, "t2")]),
    ]
    found, active = archive_candidates(entries, TODAY, Policy(max_active_entries=3))
    assert active == 6
    assert [c.entry.id for c in found] == ["LRN-20260301-ccc", "LRN-20260301-aaa", "LRN-20260301-bbb"]
    assert {c.why for c in found} == {"size_cap"}
    assert archive_candidates(entries, TODAY, Policy(max_active_entries=6))[0] == []


def test_size_cap_counts_entries_already_going() -> None:
    entries = [
        entry("LRN-20260301-aaa", status="resolved", occurrences=[(100, "t1")]),  # stale: going anyway
        entry("LRN-20260301-bbb", occurrences=[(10, "t1")]),
        entry("LRN-20260301-ccc", occurrences=[(5, "t1")]),
    ]
    plan = plan_review(entries, TODAY, Policy(max_active_entries=2), TARGETS, False)
    assert [c.entry.id for c in plan.archive] == ["LRN-20260301-aaa"]
    assert plan.over_cap


# ---- retire ------------------------------------------------------------------------------------------


def promoted(entry_id: str, *, helpful: int = 0, harmful: int = 0, measured_helpful: int = 0, measured_harmful: int = 0,
             ago: int = 1, pattern_key: str = "") -> Entry:
    meta = [("Helpful", str(helpful)), ("Harmful", str(harmful)),
            ("Measured-Helpful", str(measured_helpful)), ("Measured-Harmful", str(measured_harmful))]
    return entry(entry_id, status="promoted", promoted="CLAUDE.md", occurrences=[(ago, "t1")], meta=meta, pattern_key=pattern_key)


def retired(entries: Sequence[Entry]) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.entry.id, c.reasons) for c in retire_candidates(entries, TODAY, POLICY)]


def test_retire_when_harmful_exceeds_helpful_marked_and_measured_together() -> None:
    found = retire_candidates([promoted("LRN-20260301-aaa", helpful=1, harmful=2)], TODAY, POLICY)
    assert [(c.entry.id, c.reasons, c.target) for c in found] == [
        ("LRN-20260301-aaa", ("harmful 2 + measured 0 > helpful 1 + measured 0",), "CLAUDE.md")
    ]
    assert retired([promoted("LRN-20260301-bbb", harmful=1, measured_harmful=2, measured_helpful=1)]) == [
        ("LRN-20260301-bbb", ("harmful 1 + measured 2 > helpful 0 + measured 1",))
    ]
    # Measured harm alone tips it: the hooks saw the recalled fix fail.
    assert retired([promoted("LRN-20260301-ccc", helpful=1, measured_harmful=2)]) == [
        ("LRN-20260301-ccc", ("harmful 0 + measured 2 > helpful 1 + measured 0",))
    ]


def test_a_tie_keeps_the_rule_measured_help_offsets_marked_harm() -> None:
    assert retired([
        promoted("LRN-20260301-aaa", helpful=2, harmful=2),
        promoted("LRN-20260301-bbb", harmful=2, measured_helpful=2),  # 2 > 2 is false
        promoted("LRN-20260301-ccc", helpful=1, harmful=2, measured_helpful=1),
        promoted("LRN-20260301-ddd", harmful=1, measured_harmful=1, helpful=1, measured_helpful=1),
        promoted("LRN-20260301-eee", harmful=2, measured_helpful=3),
    ]) == []


def test_retire_when_superseded_and_never_for_age_alone() -> None:
    superseded = entry("LRN-20260301-aaa", status="promoted", occurrences=[(1, "t1")], meta=[("Superseded-By", "LRN-20260301-zzz")])
    # A working rule prevents its own recurrence: not seen for 181 or 2,000 days, with no mark
    # at all (or an old one), it is still no retire candidate.
    day_181 = entry("LRN-20260301-ccc", status="promoted", occurrences=[(181, "t1")])
    day_2000 = entry("LRN-20260301-ddd", status="promoted", occurrences=[(2000, "t1")])
    old_help = entry("LRN-20260301-fff", status="promoted", occurrences=[(200, "t1")], meta=[("Helpful", "1"), ("Last-Helpful", day(181))])
    not_promoted = entry("LRN-20260301-eee", status="resolved", occurrences=[(300, "t1")], meta=[("Harmful", "5")])
    assert retired([superseded, day_181, day_2000, old_help, not_promoted]) == [("LRN-20260301-aaa", ("superseded by LRN-20260301-zzz",))]
    assert retired([day_2000]) == retired([]) == []
    assert Policy(stale_after_days=7).stale_after_days == 7  # still read from a config; retires nothing
    assert retire_candidates([day_181], TODAY, Policy(stale_after_days=7)) == []


def test_stale_pending_entries_are_still_archived() -> None:
    # Unpromoted: decayed after decay_after_days, as before; the same age keeps a promoted rule.
    stale = entry("LRN-20260301-aaa", occurrences=[(181, "t1")])
    rule = entry("LRN-20260301-bbb", status="promoted", occurrences=[(181, "t1")])
    assert archived_ids([stale, rule]) == ["LRN-20260301-aaa"]
    assert retired([rule]) == []


# ---- the rule and its target ----------------------------------------------------------------------


def test_rule_is_the_newest_action_line_without_its_list_marker() -> None:
    item = entry("ERR-20260301-aaa", action="Run `npm ci`.\n- Use `pnpm install`, not npm.")
    assert propose_rule(item, 200).text == "Use `pnpm install`, not npm."


def test_rule_refusals() -> None:
    assert propose_rule(entry("ERR-20260301-aaa"), 200).problem == "needs a rule: ERR-20260301-aaa has no Suggested Fix to turn into a rule: pass --rule TEXT"
    long = propose_rule(entry("LRN-20260301-aaa", action="Use " + "x" * 197), 200)
    assert long.problem == (
        "needs a rule: the Suggested Action of LRN-20260301-aaa is 201 characters, over promotion.max_rule_chars (200): "
        "write a shorter one (or pass --rule TEXT)"
    )
    assert propose_rule(entry("LRN-20260301-aaa", action="Use " + "x" * 196), 200).ok
    assert rule_problem("a <!-- b", 200) == "--rule contains marker text '<!--': remove it"
    assert rule_problem("a\nb", 200) == "--rule must be one line"


def test_default_targets() -> None:
    assert default_target(entry("LRN-20260301-aaa"), TARGETS, False) == ".claude/rules/self-improve.md"
    assert default_target(entry("ERR-20260301-aaa", area="infra"), TARGETS, False) == "AGENTS.md"
    custom = TargetTable(error=".github/copilot-instructions.md")
    assert default_target(entry("ERR-20260301-aaa"), custom, False) == ".github/copilot-instructions.md"


def test_openclaw_targets_soul_for_behaviour_agents_for_the_rest_never_tools() -> None:
    assert default_target(entry("LRN-20260301-aaa", category="correction"), TARGETS, True) == "SOUL.md"
    assert default_target(entry("LRN-20260301-aaa", category="knowledge_gap"), TARGETS, True) == "AGENTS.md"
    assert default_target(entry("ERR-20260301-aaa", category="exec"), TARGETS, True) == "AGENTS.md"
    assert default_target(entry("ERR-20260301-aaa", area="infra"), TARGETS, True) == "AGENTS.md"


def test_openclaw_workspace_detection() -> None:
    assert is_openclaw_workspace(["SOUL.md", "AGENTS.md"])
    assert is_openclaw_workspace(["IDENTITY.md"])
    assert not is_openclaw_workspace(["AGENTS.md", "TOOLS.md", "CLAUDE.md"])


# ---- triage -------------------------------------------------------------------------------------------


def test_pending_triage_counts_pending_errors_with_new_occurrences() -> None:
    seen_before = entry("ERR-20260301-aaa", occurrences=[(3, "t1"), (1, "t2")])
    unchanged = entry("ERR-20260301-bbb", occurrences=[(3, "t1")])
    resolved = entry("ERR-20260301-ccc", status="resolved", occurrences=[(1, "t1")])
    learning = entry("LRN-20260301-ddd", occurrences=[(1, "t1")])
    entries = [seen_before, unchanged, resolved, learning]
    assert pending_triage(entries, None) == 2
    assert pending_triage(entries, {"ERR-20260301-AAA": 1, "ERR-20260301-BBB": 1}) == 1
    assert pending_triage(entries, {"ERR-20260301-AAA": 2, "ERR-20260301-BBB": 1}) == 0


def test_malformed_or_duplicate_ids_are_never_candidates() -> None:
    strong = [(3, "t1"), (2, "t2"), (1, "t3")]
    malformed = entry("LRN-2026-aaa", action="X", occurrences=strong)
    first = entry("LRN-20260301-aaa", action="X", occurrences=strong)
    twin = entry("LRN-20260301-aaa", action="Y", occurrences=strong)
    assert promoted_ids([malformed, first, twin]) == []
    assert promoted_ids([malformed, first]) == ["LRN-20260301-aaa"]
