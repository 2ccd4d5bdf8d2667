"""The credit fields in every merge: the three-way merge of two branches, import's union and
``merge NEW OLD``. Measured credit and recurrences are event counts (summed), Observed-Fix is the
newer side's, Promoted-On the earliest, Last-Measured-Helpful the latest; lint checks them."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from self_improve.store.combine import combine
from self_improve.store.entry import Entry, parse_text
from self_improve.store.lint import lint_entry
from self_improve.store.merge import absorb_entry, merge_learnings
from tests.helpers import BIG, PREAMBLE, append, bump, edit, entry, new_entry

ID = "LRN-20260301-b0"
COUNTS = ("Helpful", "Harmful", "Measured-Helpful", "Measured-Harmful", "Recurred-After-Promotion", "Recurred-After-Resolution")


def with_meta(**values: str) -> Callable[[Entry], Entry]:
    def change(e: Entry) -> Entry:
        for key, value in values.items():
            e = e.with_metadata(key.replace("_", "-"), value)
        return e

    return change


def base_text(**values: str) -> str:
    text = append(PREAMBLE, new_entry(ID, "a lesson", key="k.one"))
    return edit(text, ID, with_meta(**values)) if values else text


def counts(e: Entry) -> dict[str, int]:
    return {name: int(e.meta(name) or 0) for name in COUNTS}


def test_measured_counts_and_recurrences_are_summed_since_the_base() -> None:
    base = base_text(Measured_Helpful="1", Measured_Harmful="0", Recurred_After_Promotion="1", Recurred_After_Resolution="0")
    ours = edit(base, ID, with_meta(Measured_Helpful="3", Measured_Harmful="1", Recurred_After_Promotion="2"))
    theirs = edit(base, ID, with_meta(Measured_Helpful="2", Recurred_After_Promotion="4", Recurred_After_Resolution="1"))
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    merged = entry(result.text, ID)
    assert (merged.measured_helpful, merged.measured_harmful, merged.recurred_after_promotion, merged.recurred_after_resolution) == (4, 1, 5, 1)


def test_days_and_the_observed_fix() -> None:
    base = base_text(Promoted_On="2026-03-02", Last_Measured_Helpful="2026-03-02", Observed_Fix="Last time: `a` passed.")
    ours = edit(base, ID, with_meta(Promoted_On="2026-03-04", Last_Measured_Helpful="2026-03-09", Observed_Fix="Last time: `b` passed."))
    theirs = edit(bump(base, ID, "2026-03-10", "bbbb"), ID,
                  with_meta(Promoted_On="2026-03-03", Last_Measured_Helpful="2026-03-05", Observed_Fix="Last time: `c` passed."))
    result = merge_learnings(base, ours, theirs)
    assert result.clean
    merged = entry(result.text, ID)
    assert (merged.promoted_on, merged.meta("Last-Measured-Helpful"), merged.observed_fix) == (
        "2026-03-03", "2026-03-09", "Last time: `c` passed.",  # theirs was seen later (2026-03-10)
    )
    # A tie on Last-Seen: ours.
    tied = edit(base, ID, with_meta(Observed_Fix="Last time: `c` passed."))
    assert entry(merge_learnings(base, ours, tied).text, ID).observed_fix == "Last time: `b` passed."


def test_one_entry_reaching_both_sides_takes_the_larger_count() -> None:
    archived = new_entry(ID, "a lesson", task="t0")
    ours = append(PREAMBLE, edit(archived, ID, with_meta(Measured_Helpful="2", Recurred_After_Promotion="1")))
    theirs = append(PREAMBLE, edit(archived, ID, with_meta(Measured_Helpful="1", Recurred_After_Promotion="3")))
    merged = entry(merge_learnings(PREAMBLE, ours, theirs).text, ID)
    assert (merged.measured_helpful, merged.recurred_after_promotion) == (2, 3)


values = st.integers(0, 20)


@given(b=st.tuples(*[values] * 6), ours_added=st.tuples(*[values] * 6), theirs_added=st.tuples(*[values] * 6))
def test_counts_merge_commutatively_to_the_three_way_sum(b: tuple[int, ...], ours_added: tuple[int, ...], theirs_added: tuple[int, ...]) -> None:
    def texts(numbers: tuple[int, ...], start: str) -> str:
        return edit(start, ID, with_meta(**{name.replace("-", "_"): str(n) for name, n in zip(COUNTS, numbers, strict=True)}))

    base = texts(b, base_text())
    ours = texts(tuple(x + y for x, y in zip(b, ours_added, strict=True)), base)
    theirs = texts(tuple(x + y for x, y in zip(b, theirs_added, strict=True)), base)
    one, other = merge_learnings(base, ours, theirs), merge_learnings(base, theirs, ours)
    assert one.clean and other.clean
    expected = {name: b[n] + ours_added[n] + theirs_added[n] for n, name in enumerate(COUNTS)}
    assert counts(entry(one.text, ID)) == counts(entry(other.text, ID)) == expected
    # The merged file round-trips through the parser byte for byte.
    assert parse_text(one.text).render() == one.text


# ---- import and merge NEW OLD -----------------------------------------------------------------------


def parsed(text: str) -> Entry:
    return parse_text(text).entries[0]


CREDITED = with_meta(Helpful="1", Measured_Helpful="2", Measured_Harmful="1", Recurred_After_Promotion="2",
                     Last_Measured_Helpful="2026-03-04", Observed_Fix="Last time: `pip install pyyaml` passed.")


def test_absorb_same_entry_takes_the_larger_and_is_idempotent() -> None:
    local = parsed(edit(new_entry(ID, "x"), ID, with_meta(Measured_Helpful="1", Promoted_On="2026-03-05")))
    incoming = parsed(edit(new_entry(ID, "x", day="2026-03-06", task="bbbb"), ID,
                           lambda e: CREDITED(e).with_metadata("Promoted-On", "2026-03-02")))
    once = absorb_entry(local, incoming, same_entry=True, keep=BIG)
    assert (once.measured_helpful, once.measured_harmful, once.recurred_after_promotion) == (2, 1, 2)
    assert (once.meta("Last-Measured-Helpful"), once.observed_fix, once.promoted_on) == (
        "2026-03-04", "Last time: `pip install pyyaml` passed.", "2026-03-02",
    )
    assert absorb_entry(once, incoming, same_entry=True, keep=BIG).text == once.text


def test_absorb_another_entry_sums_credit_but_not_its_recurrences() -> None:
    local = parsed(edit(new_entry(ID, "x"), ID, with_meta(Measured_Helpful="1")))
    incoming = parsed(edit(new_entry("LRN-20260306-zz", "x", day="2026-03-06", task="bbbb"), "LRN-20260306-zz", CREDITED))
    summed = absorb_entry(local, incoming, same_entry=False, keep=BIG)
    assert (summed.measured_helpful, summed.measured_harmful, summed.recurred_after_promotion) == (3, 1, 0)


def test_combine_sums_counts_and_keeps_the_newer_fix() -> None:
    old = parsed(edit(new_entry(ID, "x"), ID, with_meta(Measured_Helpful="1", Recurred_After_Resolution="1",
                                                        Observed_Fix="Last time: `old` passed.")))
    new = parsed(edit(new_entry("LRN-20260306-zz", "x", day="2026-03-06", task="bbbb"), "LRN-20260306-zz", CREDITED))
    kept, absorbed = combine(new, old, BIG)
    assert counts(kept) == {"Helpful": 1, "Harmful": 0, "Measured-Helpful": 3, "Measured-Harmful": 1,
                            "Recurred-After-Promotion": 2, "Recurred-After-Resolution": 1}
    assert (kept.meta("Last-Measured-Helpful"), kept.observed_fix) == ("2026-03-04", "Last time: `pip install pyyaml` passed.")
    assert kept.promoted_on == ""  # OLD is not promoted: NEW's day is not its own
    assert absorbed.meta("Superseded-By") == ID
    # OLD seen later than NEW: OLD's fix stays; OLD promoted: the earlier day.
    newer_old = parsed(edit(bump(new_entry(ID, "x"), ID, "2026-03-09", "cccc"), ID, lambda e: e.with_status("promoted")
                            .with_metadata("Observed-Fix", "Last time: `old` passed.").with_metadata("Promoted-On", "2026-03-08")))
    promoted_new = parsed(edit(new_entry("LRN-20260306-zz", "x", day="2026-03-06", task="bbbb"), "LRN-20260306-zz",
                               lambda e: CREDITED(e).with_metadata("Promoted-On", "2026-03-06")))
    kept, _ = combine(promoted_new, newer_old, BIG)
    assert (kept.observed_fix, kept.promoted_on) == ("Last time: `old` passed.", "2026-03-06")


def test_lint_checks_the_new_numbers_and_days() -> None:
    bad = parsed(edit(new_entry(ID, "x", task="abcd"), ID, with_meta(Measured_Helpful="two", Recurred_After_Promotion="-1", Promoted_On="March",
                                                        Last_Measured_Helpful="2026-03-04")))
    reasons = [problem.reason for problem in lint_entry(bad, "LEARNINGS.md")]
    assert reasons == [
        "Measured-Helpful must be a whole number, not 'two'",
        "Recurred-After-Promotion must be a whole number, not '-1'",
        "Promoted-On must be a date YYYY-MM-DD, not 'March'",
    ]
