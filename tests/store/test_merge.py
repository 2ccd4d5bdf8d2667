"""The three-way merge of learnings files, as pure functions on texts (the block merge: tests/review/test_block_merge.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.commands.merge_driver import merge_file
from self_improve.review.managed_block import list_rules, upsert_rule
from self_improve.store import occurrences as occ
from self_improve.store.entry import Entry, Occurrence, parse_text
from self_improve.store.merge import absorb_entry, merge_learnings
from self_improve.store.merge_values import STATUS_ORDER, absorbed_count, merge_comma_list, merge_occurrence_lists
from self_improve.store.three_way import git_text_merge
from tests.helpers import A, B, BIG, C, PREAMBLE, USER_TEXT, append, bump, edit, entry, ids, new_entry, remove


def with_details(details: str) -> Callable[[Entry], Entry]:
    return lambda e: e.with_section("Details", details.splitlines())


@pytest.fixture()
def base() -> str:
    text = PREAMBLE
    for n, key in enumerate(("k.one", "k.two", "k.three")):
        text = append(text, new_entry(f"LRN-20260301-b{n}", f"learning number {n}", key=key))
    return text


# ---- entries --------------------------------------------------------------------------------------


def test_one_sided_changes_are_taken_byte_for_byte(base: str) -> None:
    ours = bump(base, "LRN-20260301-b0", "2026-03-02", "aaaa")
    theirs = bump(base, "LRN-20260301-b2", "2026-03-03", "bbbb")
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    assert entry(result.text, "LRN-20260301-b0").text == entry(ours, "LRN-20260301-b0").text
    assert entry(result.text, "LRN-20260301-b1").text == entry(base, "LRN-20260301-b1").text
    assert entry(result.text, "LRN-20260301-b2").text == entry(theirs, "LRN-20260301-b2").text
    assert merge_learnings(base, base, theirs).text == theirs
    assert merge_learnings(base, ours, base).text == ours


def test_both_sides_bumping_one_entry_counts_every_occurrence(base: str) -> None:
    ours = bump(bump(base, "LRN-20260301-b0", "2026-03-02", "aaaa"), "LRN-20260301-b0", "2026-03-04", "aaab")
    theirs = bump(base, "LRN-20260301-b0", "2026-03-03", "bbbb")
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    merged = entry(result.text, "LRN-20260301-b0")
    assert merged.recurrence_count == 4
    assert [o.render() for o in merged.occurrences] == [
        "2026-03-01/t0",
        "2026-03-02/aaaa",
        "2026-03-03/bbbb",
        "2026-03-04/aaab",
    ]
    assert (merged.first_seen, merged.last_seen) == ("2026-03-01", "2026-03-04")


def test_the_same_occurrence_on_both_branches_is_two_events(base: str) -> None:
    # Same day, same (unknown) task on both branches: two recurrences, not one.
    ours = bump(base, "LRN-20260301-b1", "2026-03-02", "-")
    theirs = bump(base, "LRN-20260301-b1", "2026-03-02", "-")
    assert ours == theirs
    merged = entry(merge_learnings(base, ours, theirs).text, "LRN-20260301-b1")
    assert merged.recurrence_count == 3
    assert Counter(merged.occurrences) == Counter(
        [Occurrence("2026-03-01", "t0"), Occurrence("2026-03-02", "-"), Occurrence("2026-03-02", "-")]
    )


def test_occurrences_are_bounded_like_the_store_and_the_count_stays_exact(base: str) -> None:
    keep = 5
    ours, theirs = base, base
    for n in range(4):
        ours = bump(ours, "LRN-20260301-b0", f"2026-03-1{n}", f"a{n}", keep=keep)
        theirs = bump(theirs, "LRN-20260301-b0", f"2026-03-2{n}", f"b{n}", keep=keep)
    merged = entry(merge_learnings(base, ours, theirs, keep=keep).text, "LRN-20260301-b0")
    assert merged.recurrence_count == 9  # every occurrence counted, even those the bound drops
    # 9 distinct tasks, sorted by date; the store's rule then drops the oldest ones.
    everything = sorted(
        [Occurrence("2026-03-01", "t0"), *(Occurrence(f"2026-03-{d}{n}", f"{t}{n}") for d, t in (("1", "a"), ("2", "b")) for n in range(4))],
        key=lambda o: o.date,
    )
    assert merged.occurrences == occ.add(everything[:-1], everything[-1], keep)
    assert [o.render() for o in merged.occurrences] == [
        "2026-03-13/a3",
        "2026-03-20/b0",
        "2026-03-21/b1",
        "2026-03-22/b2",
        "2026-03-23/b3",
    ]


def test_trimmed_occurrences_stay_trimmed() -> None:
    base = [Occurrence(f"2026-01-0{n}", f"t{n}") for n in range(1, 6)]
    ours = [*base[1:], Occurrence("2026-02-01", "a")]  # the store dropped the oldest
    theirs = [*base, Occurrence("2026-02-02", "b")]
    merged = merge_occurrence_lists(base, ours, theirs, keep=10)
    assert base[0] not in merged
    assert merged == (*base[1:], Occurrence("2026-02-01", "a"), Occurrence("2026-02-02", "b"))


@pytest.mark.parametrize(
    ("ours_status", "theirs_status", "expected"),
    [
        ("resolved", "in_progress", "resolved"),
        ("in_progress", "promoted", "promoted"),
        ("promoted", "retired", "retired"),
        ("wont_fix", "promoted_to_skill", "wont_fix"),
        ("archived", "retired", "archived"),
    ],
)
def test_status_changed_on_both_sides_takes_the_more_advanced(base: str, ours_status: str, theirs_status: str, expected: str) -> None:
    ours = edit(base, "LRN-20260301-b0", lambda e: e.with_status(ours_status))
    theirs = edit(base, "LRN-20260301-b0", lambda e: e.with_status(theirs_status))
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    assert entry(result.text, "LRN-20260301-b0").status == expected
    assert STATUS_ORDER.index(expected) == max(STATUS_ORDER.index(ours_status), STATUS_ORDER.index(theirs_status))


def test_a_status_change_on_one_side_wins_even_backwards(base: str) -> None:
    resolved = edit(base, "LRN-20260301-b0", lambda e: e.with_status("resolved"))
    reopened = edit(resolved, "LRN-20260301-b0", lambda e: e.with_status("pending"))
    theirs = bump(resolved, "LRN-20260301-b1", "2026-03-05", "bbbb")
    assert entry(merge_learnings(resolved, reopened, theirs).text, "LRN-20260301-b0").status == "pending"


def test_fields_merge_by_their_rules(base: str) -> None:
    def ours_change(e: Entry) -> Entry:
        return e.with_field("Priority", "high").with_field("Promoted", "CLAUDE.md").with_metadata("Tags", "a, b").with_metadata("Helpful", "2")

    def theirs_change(e: Entry) -> Entry:
        return e.with_field("Priority", "low").with_field("Promoted", "AGENTS.md").with_metadata("Tags", "b, c").with_metadata("Helpful", "3")

    ours = edit(base, "LRN-20260301-b0", ours_change)
    theirs = edit(base, "LRN-20260301-b0", theirs_change)
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    merged = entry(result.text, "LRN-20260301-b0")
    assert merged.priority == "high"
    assert merged.promoted == "CLAUDE.md, AGENTS.md"
    assert merged.meta("Tags") == "a, b, c"
    assert merged.helpful == 5


def test_an_unknown_field_changed_on_both_sides_is_a_conflict(base: str) -> None:
    ours = edit(base, "LRN-20260301-b0", lambda e: e.with_metadata("Source", "error"))
    theirs = edit(base, "LRN-20260301-b0", lambda e: e.with_metadata("Source", "user_feedback"))
    result = merge_learnings(base, ours, theirs)
    assert result.conflicts == ("LRN-20260301-b0: source",)
    assert "<<<<<<< ours\n- Source: error\n=======\n- Source: user_feedback\n>>>>>>> theirs\n" in result.text


def test_free_text_edited_on_both_sides_keeps_both_versions_in_the_entry(base: str) -> None:
    ours = bump(edit(base, "LRN-20260301-b1", with_details("ours says this")), "LRN-20260301-b1", "2026-03-02", "aaaa")
    theirs = bump(edit(base, "LRN-20260301-b1", with_details("theirs says that\nand more")), "LRN-20260301-b1", "2026-03-03", "bbbb")
    result = merge_learnings(base, ours, theirs)
    assert result.conflicts == ("LRN-20260301-b1: Details",)
    merged = entry(result.text, "LRN-20260301-b1")
    assert "### Details\n<<<<<<< ours\nours says this\n=======\ntheirs says that\nand more\n>>>>>>> theirs\n" in merged.text
    assert merged.recurrence_count == 3  # the rest of the entry still merged
    assert ids(result.text) == ids(base)
    for other in ("LRN-20260301-b0", "LRN-20260301-b2"):
        assert entry(result.text, other).text == entry(base, other).text


def test_fixes_appended_on_both_sides_merge_without_conflict(base: str) -> None:
    ours = bump(base, "LRN-20260301-b0", "2026-03-02", "aaaa", action="use pnpm")
    theirs = bump(base, "LRN-20260301-b0", "2026-03-03", "bbbb", action="delete node_modules first")
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    assert entry(result.text, "LRN-20260301-b0").suggested_action == "use pnpm\ndelete node_modules first"


def test_deletions(base: str) -> None:
    ours = remove(base, "LRN-20260301-b0")  # archived here ...
    theirs = bump(base, "LRN-20260301-b2", "2026-03-03", "bbbb")  # ... untouched there
    assert ids(merge_learnings(base, ours, theirs).text) == ["LRN-20260301-b1", "LRN-20260301-b2"]
    theirs = bump(base, "LRN-20260301-b0", "2026-03-03", "bbbb")  # modified there: kept
    result = merge_learnings(base, ours, theirs)
    assert ids(result.text) == ["LRN-20260301-b1", "LRN-20260301-b2", "LRN-20260301-b0"]
    assert entry(result.text, "LRN-20260301-b0").recurrence_count == 2
    both = merge_learnings(base, remove(ours, "LRN-20260301-b1"), remove(base, "LRN-20260301-b0"))
    assert ids(both.text) == ["LRN-20260301-b2"]


def test_new_entries_are_a_union_ours_first(base: str) -> None:
    ours = append(append(base, new_entry("LRN-20260302-a1", "ours first")), new_entry("LRN-20260302-a2", "ours second"))
    theirs = append(base, new_entry("LRN-20260303-c1", "theirs first"))
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    assert ids(result.text) == [*ids(base), "LRN-20260302-a1", "LRN-20260302-a2", "LRN-20260303-c1"]
    assert result.text.startswith(ours)


def test_crlf_and_a_missing_final_newline_survive(base: str) -> None:
    crlf = base.replace("\n", "\r\n").removesuffix("\r\n")  # CRLF, and no final newline
    ours = bump(crlf, "LRN-20260301-b0", "2026-03-02", "aaaa")
    theirs = edit(crlf, "LRN-20260301-b0", with_details("theirs"))
    result = merge_learnings(crlf, ours, theirs)
    assert result.clean
    assert "\n" not in result.text.replace("\r\n", "")
    assert not result.text.endswith("\n")
    merged = entry(result.text, "LRN-20260301-b0")
    assert merged.recurrence_count == 2 and merged.details == "theirs"


def test_conflict_markers_use_the_files_line_ending(base: str) -> None:
    crlf = base.replace("\n", "\r\n")
    ours = edit(crlf, "LRN-20260301-b0", with_details("A"))
    theirs = edit(crlf, "LRN-20260301-b0", with_details("B"))
    result = merge_learnings(crlf, ours, theirs)
    assert "<<<<<<< ours\r\nA\r\n=======\r\nB\r\n>>>>>>> theirs\r\n" in result.text


def test_preamble(base: str) -> None:
    theirs = base.replace("# Learnings", "# Team learnings")
    ours = bump(base, "LRN-20260301-b0", "2026-03-02", "aaaa")
    assert merge_learnings(base, ours, theirs).text.startswith("# Team learnings")
    ours = ours.replace("Corrections, insights", "Our corrections, insights")
    result = merge_learnings(base, ours, theirs, text_merge=git_text_merge)
    assert result.clean and result.text.startswith("# Team learnings\n\nOur corrections")
    clash = merge_learnings(base, ours.replace("# Learnings", "# Mine"), theirs)
    assert clash.conflicts == ("preamble",) and "# Mine" in clash.text and "# Team learnings" in clash.text


def test_an_id_collision_keeps_both_entries(base: str) -> None:
    ours = append(base, new_entry("LRN-20260302-xyz", "one thing", day="2026-03-02"))
    theirs = append(base, new_entry("LRN-20260302-xyz", "another thing", day="2026-03-02").replace("T10:00:00Z", "T11:00:00Z"))
    result = merge_learnings(base, ours, theirs)
    assert result.clean and result.notes
    assert ids(result.text).count("LRN-20260302-xyz") == 2
    assert {e.summary for e in parse_text(result.text).entries} >= {"one thing", "another thing"}


def test_one_entry_reaching_both_sides_is_a_union_not_a_sum() -> None:
    # The same entry archived on both branches: both add it to archive/<year>.md.
    archived = new_entry("LRN-20260301-b0", "learning", task="t0")
    ours = append(PREAMBLE, bump(archived, "LRN-20260301-b0", "2026-03-02", "aaaa"))
    theirs = append(PREAMBLE, bump(archived, "LRN-20260301-b0", "2026-03-03", "bbbb"))
    merged = entry(merge_learnings(PREAMBLE, ours, theirs).text, "LRN-20260301-b0")
    assert merged.recurrence_count == 3
    assert [o.task for o in merged.occurrences] == ["t0", "aaaa", "bbbb"]
    identical = append(PREAMBLE, archived)
    assert merge_learnings(PREAMBLE, identical, identical + "").text == identical


def test_comma_lists() -> None:
    assert merge_comma_list("a, b", "a, b, c", "b, d") == "b, c, d"
    assert merge_comma_list("", "x", "x") == "x"


# ---- which merge a path gets (the driver's dispatcher) ------------------------------------------


def test_merge_file_picks_the_merge_by_path_and_content(base: str) -> None:
    ours = bump(base, "LRN-20260301-b0", "2026-03-02", "aaaa")
    theirs = bump(base, "LRN-20260301-b0", "2026-03-03", "bbbb")
    learnings = merge_file(".learnings/LEARNINGS.md", base, ours, theirs)
    assert learnings.clean and entry(learnings.text, "LRN-20260301-b0").recurrence_count == 3
    archive = merge_file(".learnings/archive/2026.md", base, ours, theirs)
    assert archive.text == learnings.text
    plain = merge_file("notes/LEARNINGS.md", base, ours, theirs)
    assert not plain.clean  # not ours to interpret: git's line merge
    block = upsert_rule(USER_TEXT, A, "Rule A")
    claude = merge_file("CLAUDE.md", block, upsert_rule(block, B, "b"), upsert_rule(block, C, "c"))
    assert claude.clean and len(list_rules(claude.text)) == 3


# ---- import's union ---------------------------------------------------------------------------------


def test_absorbing_is_idempotent_and_never_double_counts() -> None:
    local = entry(bump(new_entry("LRN-20260301-b0", "x"), "LRN-20260301-b0", "2026-03-02", "aaaa"), "LRN-20260301-b0")
    incoming = entry(bump(new_entry("LRN-20260301-b0", "x"), "LRN-20260301-b0", "2026-03-03", "bbbb"), "LRN-20260301-b0")
    once = absorb_entry(local, incoming, same_entry=True)
    assert once.recurrence_count == 3 and absorbed_count(local, incoming) == 3
    assert absorb_entry(once, incoming, same_entry=True).text == once.text
    other = entry(new_entry("LRN-20260305-zz", "x", day="2026-03-05", task="cccc"), "LRN-20260305-zz")
    summed = absorb_entry(local, other, same_entry=False)
    assert summed.recurrence_count == 3 and summed.last_seen == "2026-03-05"


# ---- the property: nothing is ever lost, counts follow the three-way formula ---------------------------

target = st.integers(0, 4)  # small: both branches often touch the same entry
bump_op = st.tuples(st.just("bump"), target, st.integers(1, 28))
operation = st.one_of(
    st.tuples(st.just("log")),
    bump_op,
    bump_op,  # listed twice: bumps are the common case
    st.tuples(st.just("resolve"), target),
    st.tuples(st.just("promote"), target),
    st.tuples(st.just("archive"), target),
)


DAY_OF_BRANCH = {"b": "01", "a": "02", "c": "03"}


def apply_operations(text: str, operations: list[tuple], branch: str) -> str:
    """Apply log/bump/resolve/promote/archive; each branch has its own tasks and IDs, as in real life."""
    for n, op in enumerate(operations):
        present = ids(text)
        if op[0] == "log" or not present:
            entry_id = f"LRN-202603{DAY_OF_BRANCH[branch]}-{branch}{n}"
            text = append(text, new_entry(entry_id, f"{branch} {n}", task=f"{branch}{n}"))
            continue
        target = present[op[1] % len(present)]
        if op[0] == "bump":
            text = bump(text, target, f"2026-04-{op[2]:02d}", f"{branch}{n}")
        elif op[0] == "resolve":
            text = edit(text, target, lambda e: e.with_status("resolved").with_section("Resolution", ["- **Resolved**: yes"]))
        elif op[0] == "promote":
            text = edit(text, target, lambda e: e.with_status("promoted").with_field("Promoted", "CLAUDE.md"))
        else:
            text = remove(text, target)
    return text


def expected_status(base: str, ours: str, theirs: str) -> str:
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    return max(ours, theirs, key=STATUS_ORDER.index)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base_logs=st.integers(1, 4),
    base_ops=st.lists(operation, max_size=4),
    ours_ops=st.lists(operation, min_size=1, max_size=8),
    theirs_ops=st.lists(operation, min_size=1, max_size=8),
)
def test_random_histories_never_lose_an_entry(
    base_logs: int, base_ops: list[tuple], ours_ops: list[tuple], theirs_ops: list[tuple]
) -> None:
    base = apply_operations(PREAMBLE, [("log",)] * base_logs + base_ops, "b")
    ours = apply_operations(base, ours_ops, "a")
    theirs = apply_operations(base, theirs_ops, "c")
    result = merge_learnings(base, ours, theirs, keep=BIG)
    assert result.clean
    b, o, t = ({e.id: e for e in parse_text(x).entries} for x in (base, ours, theirs))
    merged = {e.id: e for e in parse_text(result.text).entries}
    assert len(merged) == len(parse_text(result.text).entries)  # no ID twice

    expected_ids = set()
    for entry_id in set(o) | set(t):
        one_sided = (entry_id in o) != (entry_id in t)
        survivor = o.get(entry_id) or t.get(entry_id)
        deleted_unchanged = one_sided and entry_id in b and survivor == b[entry_id]
        if not deleted_unchanged:
            expected_ids.add(entry_id)
    assert set(merged) == expected_ids

    for entry_id, got in merged.items():
        if entry_id in o and entry_id in t and entry_id in b:
            old, mine, yours = b[entry_id], o[entry_id], t[entry_id]
            if mine == old or yours == old:
                assert got == (yours if mine == old else mine)
                continue
            assert got.recurrence_count == mine.recurrence_count + yours.recurrence_count - old.recurrence_count
            want = Counter(mine.occurrences) + Counter(yours.occurrences)
            want.subtract(old.occurrences)
            assert Counter(got.occurrences) == +want
            assert got.status == expected_status(old.status, mine.status, yours.status)
        else:
            assert got == (o.get(entry_id) or t[entry_id])
    # Ours' order first, then theirs' additions.
    ours_part = [entry_id for entry_id in ids(ours) if entry_id in merged]
    assert ids(result.text)[: len(ours_part)] == ours_part
