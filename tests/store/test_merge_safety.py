"""The driver's safety rule (``merge_safety``) on texts: a side that looks like lost data conflicts.

The rule for a rules block: tests/review/test_block_merge.py."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from self_improve.commands.merge_driver import guarded_merge
from self_improve.store.entry import parse_text
from self_improve.store.merge import merge_learnings
from self_improve.store.merge_safety import WHOLE_FILE, KeptElsewhere, Side, learnings_hazards, marker_lines, whole_file_conflict
from tests.helpers import BIG, PREAMBLE, append, both_kept, bump, entry, ids, new_entry, remove

PATH = ".learnings/LEARNINGS.md"


def store_text(count: int, prefix: str = "b") -> str:
    text = PREAMBLE
    for n in range(count):
        text = append(text, new_entry(f"LRN-20260301-{prefix}{n}", f"learning number {n}"))
    return text


def remove_many(text: str, entry_ids: list[str]) -> str:
    for entry_id in entry_ids:
        text = remove(text, entry_id)
    return text


def known(ours: frozenset[str] | None = None, theirs: frozenset[str] | None = None) -> KeptElsewhere:
    def witness(side: Side) -> frozenset[str] | None:
        return ours if side == "ours" else theirs

    return witness


BASE10 = store_text(10)
THEIRS_ADDS = append(BASE10, new_entry("LRN-20260305-t1", "theirs adds this", day="2026-03-05"))


# ---- each hazard, with its exact message ---------------------------------------------------------


def test_an_emptied_side_is_a_whole_file_conflict_with_both_sides_in_full() -> None:
    result = guarded_merge(PATH, BASE10, "", THEIRS_ADDS)
    assert result.conflicts == (WHOLE_FILE,)
    assert result.notes == ("ours has no entries (the base has 10, theirs has 11); both versions kept between conflict markers",)
    assert result.text == "<<<<<<< ours\n=======\n" + THEIRS_ADDS + ">>>>>>> theirs\n"
    # The unguarded merge is what the driver used to do: theirs' nine untouched entries gone
    # (appending gave b9 a blank line, so theirs "changed" it and it survived).
    assert ids(merge_learnings(BASE10, "", THEIRS_ADDS).text) == ["LRN-20260301-b9", "LRN-20260305-t1"]


def test_a_side_reset_to_the_header_conflicts() -> None:
    result = guarded_merge(PATH, BASE10, THEIRS_ADDS, PREAMBLE)
    assert result.notes == ("theirs has no entries (the base has 10, ours has 11); both versions kept between conflict markers",)
    assert result.text == both_kept(THEIRS_ADDS, PREAMBLE)


def test_random_bytes_conflict_and_come_back_unchanged() -> None:
    garbage = b"\x89PNG\r\n\x1a\n\x00\xff\xfe junk".decode("utf-8", "surrogateescape")
    result = guarded_merge(PATH, BASE10, THEIRS_ADDS, garbage)
    assert result.notes[0].startswith("theirs has no entries")
    assert result.text.encode("utf-8", "surrogateescape") == (
        b"<<<<<<< ours\n" + THEIRS_ADDS.encode() + b"=======\n\x89PNG\r\n\x1a\n\x00\xff\xfe junk\n>>>>>>> theirs\n"
    )


def test_bytes_that_are_not_text_conflict_even_when_entries_remain() -> None:
    garbled = BASE10.replace("learning number 3", "learning \x00number\udcff 3")
    assert learnings_hazards(BASE10, garbled, THEIRS_ADDS) == ["ours holds bytes that are not text (not UTF-8, or NUL)"]


def test_conflict_markers_conflict_unless_inside_a_fence_or_already_in_the_base() -> None:
    marked = BASE10.replace("learning number 3\n", "<<<<<<< HEAD\nlearning number 3\n=======\nother\n>>>>>>> b\n")
    assert learnings_hazards(BASE10, marked, THEIRS_ADDS) == ["ours holds conflict markers"]
    assert learnings_hazards(marked, bump(marked, "LRN-20260301-b0", "2026-03-02", "x"), THEIRS_ADDS.replace("learning number 3\n", "<<<<<<< HEAD\nlearning number 3\n=======\nother\n>>>>>>> b\n")) == []
    quoted = BASE10.replace("learning number 3\n", "```\n<<<<<<< HEAD\n=======\n>>>>>>> b\n```\n")
    assert marker_lines(quoted) == 0
    assert learnings_hazards(BASE10, quoted, THEIRS_ADDS) == []


def test_a_truncated_side_conflicts_but_a_trimmed_final_newline_does_not() -> None:
    last = entry(BASE10, "LRN-20260301-b9").text
    cut = BASE10[: len(BASE10) - len(last) // 2]
    assert learnings_hazards(BASE10, THEIRS_ADDS, cut) == ["theirs ends inside entry LRN-20260301-b9 (a truncated file)"]
    assert learnings_hazards(BASE10, THEIRS_ADDS, BASE10.removesuffix("\n")) == []


def test_removing_an_entry_the_other_side_changed_conflicts_whatever_the_count() -> None:
    ours = remove(BASE10, "LRN-20260301-b4")
    theirs = bump(BASE10, "LRN-20260301-b4", "2026-03-03", "tttt")
    assert learnings_hazards(BASE10, ours, theirs, known(ours=frozenset({"LRN-20260301-B4"}))) == [
        "ours removed LRN-20260301-b4, which theirs changed"
    ]


def test_the_removal_threshold_is_more_than_two_and_more_than_a_fifth() -> None:
    two = remove_many(BASE10, ["LRN-20260301-b1", "LRN-20260301-b2"])
    assert learnings_hazards(BASE10, two, THEIRS_ADDS) == []  # 2 of 10: a hand deletion
    three = remove_many(two, ["LRN-20260301-b3"])
    assert learnings_hazards(BASE10, three, THEIRS_ADDS) == [
        "ours removed 3 of the base's 10 entries (LRN-20260301-b1, LRN-20260301-b2, LRN-20260301-b3) and its store could not be read"
    ]
    base15 = store_text(15)
    assert learnings_hazards(base15, remove_many(base15, [f"LRN-20260301-b{n}" for n in (1, 2, 3)]), base15 + "\n") == []  # 20 %
    base14 = store_text(14)
    assert len(learnings_hazards(base14, remove_many(base14, [f"LRN-20260301-b{n}" for n in (1, 2, 3)]), base14 + "\n")) == 1


def test_removals_found_in_the_sides_own_store_are_an_archive_move() -> None:
    gone = [f"LRN-20260301-b{n}" for n in range(1, 8)]
    ours = remove_many(BASE10, gone)
    archived = frozenset(entry_id.upper() for entry_id in gone)
    result = guarded_merge(PATH, BASE10, ours, THEIRS_ADDS, kept_elsewhere=known(ours=archived))
    assert result.clean
    assert ids(result.text) == ["LRN-20260301-b0", "LRN-20260301-b8", "LRN-20260301-b9", "LRN-20260305-t1"]
    # The other side's archive does not vouch for ours, and one missing ID is enough to count.
    assert not guarded_merge(PATH, BASE10, ours, THEIRS_ADDS, kept_elsewhere=known(theirs=archived)).clean
    assert learnings_hazards(BASE10, ours, THEIRS_ADDS, known(ours=archived - {"LRN-20260301-B1"})) == []  # 1 left over
    assert learnings_hazards(BASE10, ours, THEIRS_ADDS, known(ours=frozenset({"LRN-20260301-B1"}))) == [
        "ours removed 6 of the base's 10 entries (LRN-20260301-b2, LRN-20260301-b3, LRN-20260301-b4 and 3 more) "
        "and no other file of its store holds them"
    ]


def test_a_one_sided_change_is_never_judged() -> None:
    assert guarded_merge(PATH, BASE10, "", BASE10).text == ""  # git takes ours without asking us
    assert guarded_merge(PATH, BASE10, BASE10, PREAMBLE).text == PREAMBLE


def test_the_whole_file_conflict_keeps_crlf_and_adds_only_a_final_line_ending() -> None:
    result = whole_file_conflict("a\r\nb", "c\r\n", ["why"])
    assert result.text == "<<<<<<< ours\r\na\r\nb\r\n=======\r\nc\r\n>>>>>>> theirs\r\n"
    assert result.notes == ("why; both versions kept between conflict markers",)


def test_other_paths_are_not_judged() -> None:
    assert guarded_merge("notes.md", "a\nb\nc\n", "", "a\nb\nC\n").conflicts == ("text",)


# ---- the property: every ID survives, or was removed deliberately, or both sides are kept ---------

UNIVERSE = tuple(f"LRN-20260301-p{n}" for n in range(8))
state = st.sampled_from(["same", "same", "same", "absent", "changed"])  # removals the other side also changed are rarer
# Mostly undamaged sides (so clean merges with removals are common), sometimes emptied, reset, or junk.
damage = st.one_of(*[st.just("")] * 6, st.sampled_from(["empty", "header"]), st.text(max_size=60))
witness_set = st.one_of(st.none(), st.frozensets(st.sampled_from([entry_id.upper() for entry_id in UNIVERSE])))


def side_text(base_ids: set[str], states: list[str], side: str, damaged: str) -> str:
    if damaged == "empty":
        return ""
    if damaged == "header":
        return PREAMBLE
    if damaged:
        return damaged
    text = PREAMBLE
    for entry_id, how in zip(UNIVERSE, states, strict=True):
        if how == "absent":
            continue
        one = new_entry(entry_id, f"entry {entry_id}")
        if how == "changed":
            one = bump(one, entry_id, "2026-03-09", f"{side}-task")
        text = append(text, one)
    return text


REASON_WORDS = ("no entries", "which", "of the base's", "markers", "not text", "truncated")


def is_too_many(removed: int, base_count: int) -> bool:
    return removed > 2 and removed * 5 > base_count


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base_mask=st.lists(st.booleans(), min_size=8, max_size=8),
    ours_states=st.lists(state, min_size=8, max_size=8),
    theirs_states=st.lists(state, min_size=8, max_size=8),
    ours_damage=damage,
    theirs_damage=damage,
    ours_known=witness_set,
    theirs_known=witness_set,
)
def test_every_id_survives_or_was_removed_on_purpose_or_both_sides_are_kept(
    base_mask: list[bool],
    ours_states: list[str],
    theirs_states: list[str],
    ours_damage: str,
    theirs_damage: str,
    ours_known: frozenset[str] | None,
    theirs_known: frozenset[str] | None,
) -> None:
    base_ids = {entry_id for entry_id, present in zip(UNIVERSE, base_mask, strict=True) if present}
    base = side_text(base_ids, ["same" if present else "absent" for present in base_mask], "base", "")
    ours = side_text(base_ids, ours_states, "ours", ours_damage)
    theirs = side_text(base_ids, theirs_states, "theirs", theirs_damage)
    result = guarded_merge(PATH, base, ours, theirs, keep=BIG, kept_elsewhere=known(ours_known, theirs_known))

    if not result.clean and result.conflicts == (WHOLE_FILE,):
        event("whole-file conflict: " + next(word for word in REASON_WORDS if word in result.notes[0]))
        assert result.text == "<<<<<<< ours\n" + _ended(ours) + "=======\n" + _ended(theirs) + ">>>>>>> theirs\n"
        return
    if ours == base or theirs == base:
        assert result.text == (theirs if ours == base else ours)  # git's own one-sided rule
        return
    parsed = {name: {e.id.upper(): e for e in parse_text(text).entries} for name, text in (("b", base), ("o", ours), ("t", theirs))}
    output = {e.id.upper() for e in parse_text(result.text).entries}
    witnesses = {"o": ours_known, "t": theirs_known}
    for entry_id in set(parsed["o"]) | set(parsed["t"]) | set(parsed["b"]):
        if entry_id in output:
            continue
        event("clean, with an entry removed")
        # Absent from the output: only a deliberate removal, on a side within the rules.
        assert entry_id in parsed["b"], entry_id
        removers = [side for side in ("o", "t") if entry_id not in parsed[side]]
        assert removers, entry_id
        for side in ("o", "t"):
            if side in removers:
                removed = [key for key in parsed["b"] if key not in parsed[side]]
                seen = witnesses[side]
                unaccounted = [key for key in removed if seen is None or key not in seen]
                assert not is_too_many(len(unaccounted), len(parsed["b"])) or entry_id in (seen or ()), entry_id
            else:
                assert parsed[side][entry_id] == parsed["b"][entry_id], entry_id  # unchanged there
        assert parsed["o"] or parsed["t"] or not parsed["b"]


def _ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"
