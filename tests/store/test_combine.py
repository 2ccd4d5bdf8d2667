"""`self-improve merge NEW OLD` (``store/combine.py``): one entry keeps every occurrence of both,
the other keeps its text and is superseded; a refusal writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from self_improve.errors import SelfImproveError, UsageError
from self_improve.store.combine import merge_entries
from self_improve.store.entry import NewEntry, render_new
from self_improve.store.store import HEADERS, LogRequest, Store
from tests.helpers import tree_hash


def entry(entry_id: str, summary: str, occurrences: str, first: str, last: str, count: int, *, priority: str = "medium",
          action: str = "", extra: tuple[tuple[str, str], ...] = ()) -> str:
    metadata = (("Source", "conversation"), *extra, ("Recurrence-Count", str(count)), ("First-Seen", first),
                ("Last-Seen", last), ("Occurrences", occurrences))
    return render_new(NewEntry(id=entry_id, category="correction", logged=f"{first}T10:00:00Z", priority=priority,
                               summary=summary, action=action, metadata=metadata))


OLD = entry("LRN-20261101-old", "Use pnpm, not npm", "2026-11-01/aaaa1111, 2026-11-03/bbbb2222", "2026-11-01", "2026-11-03", 2,
            action="Run pnpm install.")
OTHER = entry("LRN-20261105-oth", "Run the tests with make test", "2026-11-05/eeee5555", "2026-11-05", "2026-11-05", 1)
NEW = entry("LRN-20261120-new", "这个仓库用 pnpm 装依赖，别用 npm", "2026-10-30/cccc3333, 2026-11-20/dddd4444", "2026-10-30",
            "2026-11-20", 2, priority="high", action="pnpm add, never npm i.",
            extra=(("Tags", "tooling"), ("Pattern-Key", "tooling.pnpm")))
ERR = entry("ERR-20261102-err", "pnpm: command not found", "2026-11-02/ffff6666", "2026-11-02", "2026-11-02", 1)

OLD_AFTER = """## [LRN-20261101-old] correction

**Logged**: 2026-11-01T10:00:00Z
**Priority**: high
**Status**: pending

### Summary
Use pnpm, not npm

### Details


### Suggested Action
Run pnpm install.
pnpm add, never npm i.

### Metadata
- Source: conversation
- Recurrence-Count: 4
- First-Seen: 2026-10-30
- Last-Seen: 2026-11-20
- Occurrences: 2026-10-30/cccc3333, 2026-11-01/aaaa1111, 2026-11-03/bbbb2222, 2026-11-20/dddd4444
- Pattern-Key: tooling.pnpm
- Tags: tooling
- Supersedes: LRN-20261120-new

---
"""
NEW_AFTER = """## [LRN-20261120-new] correction

**Logged**: 2026-10-30T10:00:00Z
**Priority**: high
**Status**: pending

### Summary
这个仓库用 pnpm 装依赖，别用 npm

### Details


### Suggested Action
pnpm add, never npm i.

### Metadata
- Source: conversation
- Tags: tooling
- Pattern-Key: tooling.pnpm
- Recurrence-Count: 2
- First-Seen: 2026-10-30
- Last-Seen: 2026-11-20
- Occurrences: 2026-10-30/cccc3333, 2026-11-20/dddd4444
- Superseded-By: LRN-20261101-old

---
"""


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    s.init()
    (tmp_path / ".learnings/LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + OLD + "\n" + OTHER + "\n" + NEW, encoding="utf-8")
    (tmp_path / ".learnings/ERRORS.md").write_text(HEADERS["error"] + "\n" + ERR, encoding="utf-8")
    return s


def test_merge_keeps_every_occurrence_count_date_and_fix(store: Store) -> None:
    outcome = merge_entries(store, "LRN-20261120-new", "LRN-20261101-old")
    assert (outcome.kept.id, outcome.absorbed.id, outcome.recurrence_count, outcome.tasks) == ("LRN-20261101-old", "LRN-20261120-new", 4, 4)
    assert (store.dir / "LEARNINGS.md").read_text(encoding="utf-8") == (
        HEADERS["learning"] + "\n" + OLD_AFTER + "\n" + OTHER + "\n" + NEW_AFTER
    )


def test_a_later_log_matching_the_merged_entry_lands_in_the_one_that_kept_it(store: Store) -> None:
    merge_entries(store, "LRN-20261120-new", "LRN-20261101-old")
    same_key = store.log(LogRequest(kind="learning", summary="anything", pattern_key="tooling.pnpm", session="s9"))
    assert (same_key.entry_id, same_key.created, same_key.recurrence_count) == ("LRN-20261101-old", False, 5)
    merge_entries(store, "LRN-20261105-oth", "LRN-20261101-old")
    # OLD has NEW's Pattern-Key now; a summary without a key that matches OTHER still lands there
    # (a person said they are one lesson), one with another key does not (another mistake).
    unkeyed = store.log(LogRequest(kind="learning", summary="Run the tests with make test", session="s10"))
    assert (unkeyed.entry_id, unkeyed.created, unkeyed.recurrence_count) == ("LRN-20261101-old", False, 7)
    other_key = store.log(LogRequest(kind="learning", summary="Run the tests with make test", pattern_key="tests.make", session="s11"))
    assert other_key.created
    assert [store.get(i).recurrence_count for i in ("LRN-20261120-new", "LRN-20261105-oth")] == [2, 1]  # never counted again


def test_without_keys_the_same_words_land_in_the_entry_that_kept_them(tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.init()
    (tmp_path / ".learnings/LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + OLD + "\n" + OTHER, encoding="utf-8")
    merge_entries(s, "LRN-20261105-oth", "LRN-20261101-old")
    again = s.log(LogRequest(kind="learning", summary="Run the tests with make test", session="s9"))
    assert (again.entry_id, again.created, again.recurrence_count) == ("LRN-20261101-old", False, 4)


def test_the_bound_on_occurrences_holds_and_the_count_keeps_them_all(tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.init()
    (tmp_path / ".learnings/config.toml").write_text("[log]\nmax_occurrences = 5\n", encoding="utf-8")
    many = ", ".join(f"2026-11-{d:02d}/t{d}" for d in range(1, 5))
    more = ", ".join(f"2026-11-{d:02d}/t{d}" for d in range(10, 14))
    (tmp_path / ".learnings/LEARNINGS.md").write_text(
        HEADERS["learning"] + "\n" + entry("LRN-20261101-aaa", "A", many, "2026-11-01", "2026-11-04", 4) + "\n"
        + entry("LRN-20261110-bbb", "B", more, "2026-11-10", "2026-11-13", 4), encoding="utf-8")
    kept = merge_entries(s, "LRN-20261110-bbb", "LRN-20261101-aaa").kept
    assert kept.meta("Occurrences") == "2026-11-04/t4, 2026-11-10/t10, 2026-11-11/t11, 2026-11-12/t12, 2026-11-13/t13"
    assert (kept.recurrence_count, kept.first_seen, kept.last_seen) == (8, "2026-11-01", "2026-11-13")
    assert s.get("LRN-20261110-bbb").meta("Occurrences") == more  # and the merged entry still lists its own


@pytest.mark.parametrize(
    ("new", "old", "error", "message"),
    [
        ("LRN-20261101-old", "lrn-20261101-OLD", UsageError, "cannot merge LRN-20261101-old into itself: name two entries"),
        ("LRN-20261101-zzz", "LRN-20261101-old", SelfImproveError, "unknown ID 'LRN-20261101-zzz' (see `self-improve list`)"),
        ("LRN-20261120-new", "LRN-20261101-nope", SelfImproveError, "unknown ID 'LRN-20261101-nope' (see `self-improve list`)"),
        ("ERR-20261102-err", "LRN-20261101-old", UsageError,
         "ERR-20261102-err is an error and LRN-20261101-old a learning: only entries of one kind merge"),
    ],
)
def test_refusals_write_nothing(store: Store, new: str, old: str, error: type[Exception], message: str) -> None:
    before = tree_hash(store.root)
    with pytest.raises(error) as caught:
        merge_entries(store, new, old)
    assert str(caught.value) == message
    assert tree_hash(store.root) == before


def test_refusals_after_a_merge_and_between_keys_write_nothing(store: Store) -> None:
    merge_entries(store, "LRN-20261120-new", "LRN-20261101-old")
    before = tree_hash(store.root)
    refusals = {
        ("LRN-20261120-new", "LRN-20261105-oth"): "LRN-20261120-new is already superseded by LRN-20261101-old: nothing to merge",
        ("LRN-20261105-oth", "LRN-20261120-new"): "LRN-20261120-new is superseded by LRN-20261101-old: merge into that one "
        "(`self-improve merge LRN-20261105-oth LRN-20261101-old`)",
    }
    for (new, old), message in refusals.items():
        with pytest.raises(SelfImproveError) as caught:
            merge_entries(store, new, old)
        assert str(caught.value) == message
    store.update("LRN-20261105-oth", lambda e: e.with_metadata("Pattern-Key", "tests.make"))
    before = tree_hash(store.root)
    with pytest.raises(SelfImproveError) as caught:
        merge_entries(store, "LRN-20261105-oth", "LRN-20261101-old")
    assert str(caught.value) == (
        "LRN-20261105-oth (tests.make) and LRN-20261101-old (tooling.pnpm) have different Pattern-Keys: different mistakes "
        "never merge (`self-improve supersede LRN-20261105-oth --by LRN-20261101-old` records that one replaces the other)"
    )
    store.update("LRN-20261101-old", lambda e: e.with_status("retired"))
    before = tree_hash(store.root)
    with pytest.raises(SelfImproveError) as caught:
        merge_entries(store, "LRN-20261105-oth", "LRN-20261101-old")
    assert str(caught.value) == "LRN-20261101-old is retired: merge it into LRN-20261105-oth instead, or restore it first"
    assert tree_hash(store.root) == before


def test_once_the_entry_that_kept_the_lesson_is_closed_its_key_starts_a_new_entry(store: Store) -> None:
    merge_entries(store, "LRN-20261120-new", "LRN-20261101-old")
    store.update("LRN-20261101-old", lambda e: e.with_status("wont_fix"))
    first = store.log(LogRequest(kind="learning", summary="pnpm again", pattern_key="tooling.pnpm", session="s1"))
    second = store.log(LogRequest(kind="learning", summary="pnpm again", pattern_key="tooling.pnpm", session="s2"))
    assert first.created and (second.entry_id, second.created, second.recurrence_count) == (first.entry_id, False, 2)
    assert store.get("LRN-20261120-new").recurrence_count == 2
