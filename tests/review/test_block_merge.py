"""The three-way merge of a file holding the rules block, and the driver's safety rule for it,
as pure functions on texts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.commands.merge_driver import guarded_merge
from self_improve.review.block_merge import managed_hazards, merge_managed
from self_improve.review.managed_block import list_rules, remove_rule, scan_rules, upsert_rule
from self_improve.store.three_way import git_text_merge, plain_text_merge
from tests.helpers import USER_TEXT, A, B, C, both_kept


def test_rule_bullets_are_a_union_and_user_text_merges_line_by_line() -> None:
    base = upsert_rule(USER_TEXT, A, "Use pnpm")
    ours = upsert_rule(base, B, "Rule B").replace("Intro line.", "Intro line (ours).")
    theirs = upsert_rule(base, C, "Rule C").replace("Build with make.", "Build with just.")
    result = merge_managed(base, ours, theirs, text_merge=git_text_merge)
    assert result.clean
    assert [r.entry_id for r in list_rules(result.text)] == [A, B, C]
    assert "Intro line (ours)." in result.text and "Build with just." in result.text


def test_a_retired_rule_stays_retired_unless_reworded_on_the_other_side() -> None:
    base = upsert_rule(upsert_rule(USER_TEXT, A, "Rule A"), B, "Rule B")
    ours = remove_rule(base, A)
    theirs = upsert_rule(base, C, "Rule C")
    assert [r.entry_id for r in list_rules(merge_managed(base, ours, theirs).text)] == [B, C]
    reworded = upsert_rule(base, A, "Rule A, better")
    kept = merge_managed(base, ours, reworded).text
    assert [r.text for r in list_rules(kept)] == ["Rule A, better", "Rule B"]


def test_a_rule_reworded_on_both_sides_takes_ours() -> None:
    base = upsert_rule(USER_TEXT, A, "Rule A")
    result = merge_managed(base, upsert_rule(base, A, "ours"), upsert_rule(base, A, "theirs"))
    assert result.clean and [r.text for r in list_rules(result.text)] == ["ours"]


def test_retiring_every_rule_on_both_sides_gives_the_user_text_back() -> None:
    base = upsert_rule(upsert_rule(USER_TEXT, A, "Rule A"), B, "Rule B")
    ours = remove_rule(base, A)
    theirs = remove_rule(base, B)
    assert merge_managed(base, ours, theirs, text_merge=git_text_merge).text == USER_TEXT


def test_a_removed_block_does_not_drop_a_rule_added_on_the_other_side() -> None:
    base = upsert_rule(USER_TEXT, A, "Rule A")
    ours = remove_rule(base, A)  # the whole block goes
    theirs = upsert_rule(base, C, "Rule C")
    result = merge_managed(base, ours, theirs, text_merge=git_text_merge)
    assert [r.entry_id for r in list_rules(result.text)] == [C]
    assert result.text.startswith(USER_TEXT)


def test_both_sides_creating_the_block() -> None:
    ours = upsert_rule(USER_TEXT, A, "Rule A")
    theirs = upsert_rule(USER_TEXT.replace("Intro", "Opening"), B, "Rule B")
    result = merge_managed(USER_TEXT, ours, theirs, text_merge=git_text_merge)
    assert result.clean
    assert [r.entry_id for r in list_rules(result.text)] == [A, B]
    assert result.text.count("self-improve:begin") == 1 and "Opening line." in result.text


def test_conflicting_user_text_keeps_both_versions() -> None:
    base = upsert_rule(USER_TEXT, A, "Rule A")
    ours = base.replace("Intro line.", "Ours.")
    theirs = upsert_rule(base.replace("Intro line.", "Theirs."), B, "Rule B")
    result = merge_managed(base, ours, theirs, text_merge=git_text_merge)
    assert not result.clean
    assert "<<<<<<< ours\nOurs.\n=======\nTheirs.\n>>>>>>> theirs\n" in result.text
    assert [r.entry_id for r in list_rules(result.text)] == [A, B]
    # Without git, the whole file is one conflict: the merged block sits in both halves.
    whole = merge_managed(base, ours, theirs, text_merge=plain_text_merge)
    assert not whole.clean and "Ours." in whole.text and "Theirs." in whole.text
    assert whole.text.count(f"<!-- {B} -->") == 2


def test_the_merged_block_carries_the_hash_of_its_merged_bullets() -> None:
    base = upsert_rule(USER_TEXT, A, "Rule A")
    ours, theirs = upsert_rule(base, B, "Rule B"), upsert_rule(base, C, "Rule C")
    result = merge_managed(base, ours, theirs, text_merge=git_text_merge)
    [block] = scan_rules(result.text).blocks
    assert [r.entry_id for r in block.rules] == [A, B, C]
    assert block.stored_hash == block.actual_hash
    assert block.stored_hash not in {scan_rules(side).blocks[0].stored_hash for side in (ours, theirs)}


def test_a_hand_edited_block_keeps_its_stale_hash_through_a_merge() -> None:
    base = upsert_rule(USER_TEXT, A, "Rule A")
    by_hand = base.replace("- Rule A", "- Rule A, edited by hand")
    theirs = upsert_rule(base, C, "Rule C")
    result = merge_managed(base, by_hand, theirs, text_merge=git_text_merge)
    [block] = scan_rules(result.text).blocks
    assert [r.text for r in block.rules] == ["Rule A, edited by hand", "Rule C"]
    # The begin line merged as any line (only theirs changed it), and is not re-hashed: stale.
    assert block.stored_hash == scan_rules(theirs).blocks[0].stored_hash != block.actual_hash


def test_damaged_markers_fall_back_to_the_line_merge() -> None:
    base = USER_TEXT + "<!-- self-improve:begin -->\n- x <!-- LRN-20260301-aaa -->\n"
    ours = base + "ours\n"
    theirs = "top\n" + base
    result = merge_managed(base, ours, theirs, text_merge=git_text_merge)
    assert result.clean and result.text == "top\n" + base + "ours\n"


# ---- the driver's safety rule for a block --------------------------------------------------------

RULES = upsert_rule(upsert_rule(USER_TEXT, A, "Rule A"), B, "Rule B")
THEIRS_PROMOTES = upsert_rule(RULES, C, "Rule C")


def test_a_removed_block_conflicts_when_the_other_side_changed_it() -> None:
    by_hand = USER_TEXT + "More text.\n"
    assert managed_hazards(RULES, by_hand, THEIRS_PROMOTES) == ["ours removed the rules block, while theirs changed it"]
    result = guarded_merge("CLAUDE.md", RULES, by_hand, THEIRS_PROMOTES)
    assert result.text == both_kept(by_hand, THEIRS_PROMOTES)
    unchanged_block = RULES.replace("Intro line.", "Intro line, edited.")
    assert managed_hazards(RULES, by_hand, unchanged_block) == []  # the block is theirs' too: a retire


def test_damaged_markers_conflict_when_the_other_side_changed_the_block() -> None:
    damaged = RULES.replace("<!-- self-improve:end -->", "<!-- self-improve:ned -->")
    assert managed_hazards(RULES, THEIRS_PROMOTES, damaged) == [
        "theirs damaged the rules block's markers, while ours changed the block"
    ]
    assert managed_hazards(RULES, RULES + "tail\n", damaged) == []  # ours left the block alone


def test_retiring_one_rule_still_merges() -> None:
    result = guarded_merge("CLAUDE.md", RULES, remove_rule(RULES, A), THEIRS_PROMOTES)
    assert result.clean and f"<!-- {B} -->" in result.text and f"<!-- {A} -->" not in result.text


# ---- the property: promotions and retirements merge as a union --------------------------------------

RULE_IDS = tuple(f"LRN-20260301-r{n}" for n in range(5))
block_operation = st.one_of(
    st.tuples(st.just("promote"), st.integers(0, 4), st.integers(0, 2)),
    st.tuples(st.just("retire"), st.integers(0, 4)),
)


def apply_block_operations(text: str, operations: list[tuple]) -> str:
    for op in operations:
        if op[0] == "promote":
            text = upsert_rule(text, RULE_IDS[op[1]], f"rule {op[1]} wording {op[2]}")
        else:
            text = remove_rule(text, RULE_IDS[op[1]])
    return text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base_ops=st.lists(block_operation, max_size=5),
    ours_ops=st.lists(block_operation, max_size=5),
    theirs_ops=st.lists(block_operation, max_size=5),
)
def test_random_promotions_and_retirements_merge_as_a_union(
    base_ops: list[tuple], ours_ops: list[tuple], theirs_ops: list[tuple]
) -> None:
    base = apply_block_operations(USER_TEXT, base_ops)
    ours = apply_block_operations(base, ours_ops)
    theirs = apply_block_operations(base, theirs_ops)
    result = merge_managed(base, ours, theirs)
    assert result.clean
    b, o, t = ({r.entry_id: r.text for r in list_rules(x)} for x in (base, ours, theirs))
    expected: dict[str, str] = {}
    for rule_id in RULE_IDS:
        if rule_id in o and rule_id in t:
            expected[rule_id] = t[rule_id] if o[rule_id] == b.get(rule_id) else o[rule_id]
        elif rule_id in o or rule_id in t:
            text = o.get(rule_id) or t[rule_id]
            if text != b.get(rule_id):  # deleted on the other side and unchanged here: gone
                expected[rule_id] = text
    assert {r.entry_id: r.text for r in list_rules(result.text)} == expected
    assert result.text.startswith(USER_TEXT.rstrip("\n"))  # the user's text is never lost
    if not expected:
        assert result.text == USER_TEXT
