"""One entry per lesson, however it is worded: what `log` merges by itself, what it only proposes,
and what it keeps apart (``store/duplicates.py``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from self_improve.store import duplicates
from self_improve.store.profile import profile
from self_improve.store.store import LogRequest, LogResult, Store

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    s.init()
    return s


def log(store: Store, summary: str, n: int = 0, **kw: object) -> LogResult:
    return store.log(LogRequest(kind="learning", summary=summary, session=f"s{n}", now=NOW + timedelta(minutes=n), **kw))  # type: ignore[arg-type]


# ---- certain: merged by itself ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Use pnpm, not npm, to install dependencies in this repo", "Always run pnpm install instead of npm install"),
        ("Use pnpm, not npm, to install dependencies in this repo", "这个仓库用 pnpm 装依赖，别用 npm"),
        ("Ask the user before deleting any files", "Always confirm with me before you remove files"),
        ("Store all timestamps in UTC", "时间戳统一用 UTC 存储"),
    ],
)
def test_a_certain_paraphrase_merges(store: Store, first: str, second: str) -> None:
    a = log(store, first, 1)
    b = log(store, second, 2)
    assert a.created and not b.created and b.entry_id == a.entry_id
    assert (b.recurrence_count, b.tasks) == (2, 2)
    assert [e.summary for e in store.entries("learning")] == [first]  # the first wording stays


# ---- likely: created, and named ------------------------------------------------------------------------


def test_a_likely_paraphrase_is_created_and_names_the_entry(store: Store) -> None:
    a = log(store, "Ask the user before deleting any files", 1)
    b = log(store, "删除文件之前先问我", 2)
    assert b.created and b.entry_id != a.entry_id
    assert b.candidates == ((a.entry_id, "Ask the user before deleting any files", 0.71),)
    assert b.as_json()["candidates"] == [{"id": a.entry_id, "summary": "Ask the user before deleting any files", "score": 0.71}]


def test_at_most_three_candidates_best_first(store: Store) -> None:
    ids = [
        log(store, text, n).entry_id
        for n, text in enumerate([
            "Keep the .env file out of version control",
            ".env holds secrets and is not versioned",
            ".env is local only: never add it to git",
            "Secrets in .env stay out of the repository",
            "Add .env to .gitignore",
        ])
    ]
    assert len(set(ids)) == 5
    result = log(store, "The .env file must not be committed to git", 9)
    assert result.created  # similar to all five, certain of none: a negation that the first lacks
    assert [(c[0], c[2]) for c in result.candidates] == [(ids[0], 0.88), (ids[2], 0.66), (ids[3], 0.64)]


# ---- hard negatives: kept apart ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Base Docker images on alpine to keep them small", "Never use alpine for Python images: musl breaks wheels"),
        ("Use yarn, not npm", "Pin yarn's version in CI"),
        ("Keep each module under 400 lines", "Keep functions shorter than 50 lines"),
        ("Use yarn, not npm", "Use npm, not yarn"),  # the same words: the old summary match would merge them
    ],
)
def test_a_hard_negative_is_never_merged(store: Store, first: str, second: str) -> None:
    a = log(store, first, 1)
    b = log(store, second, 2)
    assert b.created and b.entry_id != a.entry_id
    assert len(store.entries("learning")) == 2


def test_a_hard_negative_sharing_one_tool_is_not_even_proposed(store: Store) -> None:
    log(store, "Use yarn, not npm", 1)
    assert log(store, "Pin yarn's version in CI", 2).candidates == ()
    log(store, "npm test runs everything", 3)
    assert log(store, "User: use npm now", 4).candidates == ()


def test_opposites_are_proposed_at_most(store: Store) -> None:
    a = log(store, "Use yarn, not npm", 1)
    b = log(store, "Use npm, not yarn", 2)
    assert b.created and [c[0] for c in b.candidates] == [a.entry_id]


# ---- what stays as it was --------------------------------------------------------------------------------


def test_keys_still_decide_and_hooks_get_no_candidates(store: Store) -> None:
    a = log(store, "Use pnpm, not npm, to install dependencies in this repo", 1, pattern_key="tooling.pnpm")
    other_key = log(store, "Always run pnpm install instead of npm install", 2, pattern_key="tooling.other")
    assert other_key.created and other_key.candidates == ()  # a different Pattern-Key is another mistake
    same_key = log(store, "Something else entirely", 3, pattern_key="tooling.pnpm")
    assert same_key.entry_id == a.entry_id
    hook = log(store, "这个仓库用 pnpm 装依赖，别用 npm", 4, pattern_key="tooling.hooked", logged_by="hook")
    assert hook.created and hook.candidates == ()


def test_closed_entries_are_no_candidates(store: Store) -> None:
    a = log(store, "Ask the user before deleting any files", 1)
    store.update(a.entry_id, lambda e: e.with_status("wont_fix"))
    again = log(store, "删除文件之前先问我", 2)
    assert again.created and again.candidates == ()


# ---- the scorer ---------------------------------------------------------------------------------------


def test_scores_are_symmetric_and_bounded() -> None:
    texts = ["Use pnpm, not npm", "用 pnpm，别用 npm", "Never use alpine for Python images", "", "!!!", "Use npm, not pnpm"]
    for a in texts:
        for b in texts:
            score = duplicates.similarity(profile(a), profile(b))
            assert 0.0 <= score <= 1.0 + 1e-9
            assert score == pytest.approx(duplicates.similarity(profile(b), profile(a)))


def test_review_groups_are_capped_and_never_mix_keys() -> None:
    items = [(f"LRN-{n}", f"Never commit the .env file, variant {n}") for n in range(8)]
    found = duplicates.groups(items)
    assert [len(members) for members, _ in found] == [5, 3]
    keyed = duplicates.groups(items[:2], keys=["a.b", "c.d"])
    assert keyed == []
