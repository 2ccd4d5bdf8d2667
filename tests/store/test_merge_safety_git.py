"""The merge driver never drops data, inside real git merges, rebases and cherry-picks.

A side that emptied, reset, garbled, truncated or gutted ERRORS.md is a conflict (git status shows
the path unmerged) with both versions kept byte for byte; entries moved to the archive by
``review`` on either side still merge cleanly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from self_improve.commands.merge_driver import guarded_merge, merge_file
from self_improve.review.managed_block import list_rules, remove_rule, upsert_rule
from self_improve.store import archive
from self_improve.store.entry import parse_text
from self_improve.store.store import HEADERS, Store
from tests.helpers import BASE_DAY, commit_all, git, log, make_repo, register_driver_by_hand

ERRORS = Path(".learnings") / "ERRORS.md"
ERRORS_PATH = ERRORS.as_posix()
SHARED = 10
CONFLICT_LINE = f"CONFLICT (content): Merge conflict in {ERRORS_PATH}"


@pytest.fixture()
def project(tmp_path: Path) -> tuple[Path, Store]:
    repo = make_repo(tmp_path)
    store = Store(repo)
    store.init()
    for k in range(SHARED):
        log(store, "error", f"shared failure number {k}", f"shared.{k}", f"base-{k}", BASE_DAY)
    register_driver_by_hand(repo)
    commit_all(repo, "base")
    return repo, store


def shared_ids(store: Store) -> list[str]:
    return [e.id for e in store.entries("error")]


def other_work(store: Store) -> None:
    """What the untouched side does meanwhile: two new failures and one more occurrence of shared.0."""
    day = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    log(store, "error", "other side failure one", "other.1", "o-1", day)
    log(store, "error", "other side failure two", "other.2", "o-2", day)
    log(store, "error", "shared failure number 0", "shared.0", "o-bump", day)


# ---- ways to lose ERRORS.md ----------------------------------------------------------------------


def empty(text: bytes, _ids: list[str]) -> bytes:
    return b""


def reset_to_header(text: bytes, _ids: list[str]) -> bytes:
    return HEADERS["error"].encode()


def random_bytes(text: bytes, _ids: list[str]) -> bytes:
    return random.Random(9).randbytes(3000)


def truncated(text: bytes, _ids: list[str]) -> bytes:
    return text[: len(text) * 2 // 3]  # inside an entry (the store's entries are ~400 bytes)


def with_conflict_markers(text: bytes, _ids: list[str]) -> bytes:
    # A conflict resolved badly and committed as is.
    return text.replace(b"shared failure number 4\n", b"<<<<<<< HEAD\nshared failure number 4\n=======\nfour\n>>>>>>> b\n")


def most_entries_deleted(text: bytes, ids: list[str]) -> bytes:
    kept = parse_text(text.decode())
    gone = set(ids[2:9])  # 7 of 10, none of them touched by the other side
    return ("".join(kept.preamble) + "".join(e.text for e in kept.entries if e.id not in gone)).encode()


DAMAGES: dict[str, Callable[[bytes, list[str]], bytes]] = {
    "empty": empty,
    "reset": reset_to_header,
    "random-bytes": random_bytes,
    "truncated": truncated,
    "conflict-markers": with_conflict_markers,
    "most-deleted": most_entries_deleted,
}
NOTES = {
    "empty": "has no entries (the base has 10, {other} has 12)",
    "reset": "has no entries (the base has 10, {other} has 12)",
    "random-bytes": "has no entries (the base has 10, {other} has 12)",
    "truncated": "ends inside entry",
    "conflict-markers": "holds conflict markers",
    "most-deleted": "removed 7 of the base's 10 entries",
}


def both_kept(ours: bytes, theirs: bytes) -> bytes:
    def ended(data: bytes) -> bytes:
        return data if not data or data.endswith(b"\n") else data + b"\n"

    return b"<<<<<<< ours\n" + ended(ours) + b"=======\n" + ended(theirs) + b">>>>>>> theirs\n"


@pytest.mark.parametrize("damaged_side", ["ours", "theirs"])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_side_is_a_conflict_that_keeps_both_versions(project: tuple[Path, Store], damage: str, damaged_side: str) -> None:
    repo, store = project
    ids = shared_ids(store)
    errors = repo / ERRORS
    git(repo, "checkout", "-q", "-b", "damaged")
    errors.write_bytes(DAMAGES[damage](errors.read_bytes(), ids))
    commit_all(repo, f"damage: {damage}")
    damaged = errors.read_bytes()
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "other")
    other_work(store)
    commit_all(repo, "other work")
    untouched = errors.read_bytes()
    assert len(parse_text(untouched.decode()).entries) == SHARED + 2

    ours_branch, theirs_branch = ("damaged", "other") if damaged_side == "ours" else ("other", "damaged")
    git(repo, "checkout", "-q", ours_branch)
    merged = git(repo, "merge", "--no-edit", theirs_branch, check=False)

    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert CONFLICT_LINE in merged.stdout
    assert f"UU {ERRORS_PATH}" in git(repo, "status", "--porcelain").stdout.splitlines()
    ours, theirs = (damaged, untouched) if damaged_side == "ours" else (untouched, damaged)
    result = errors.read_bytes()
    assert result == both_kept(ours, theirs)
    for entry in parse_text(untouched.decode()).entries:  # the other side's entries, byte for byte
        assert entry.text.encode() in result
    other = "theirs" if damaged_side == "ours" else "ours"
    note = f"self-improve: {ERRORS_PATH}: {damaged_side} {NOTES[damage].format(other=other)}"
    assert note in merged.stderr


def test_without_the_guard_the_same_merge_drops_entries(project: tuple[Path, Store]) -> None:
    # The control: the plain entry merge of the "reset" histories is clean and keeps only what the
    # other side changed (shared.0 bumped, shared.9 given a separator line by the append) or added.
    repo, store = project
    errors = repo / ERRORS
    base = errors.read_text()
    ids = shared_ids(store)
    other_work(store)
    other = errors.read_text()
    result = merge_file(ERRORS_PATH, base, HEADERS["error"], other)
    kept = [e.id for e in parse_text(result.text).entries]
    assert result.clean and kept[:2] == [ids[0], ids[9]] and len(kept) == 4
    assert guarded_merge(ERRORS_PATH, base, HEADERS["error"], other).text == both_kept(HEADERS["error"].encode(), other.encode()).decode()


# ---- legitimate removals: the archive ------------------------------------------------------------


def archive_most(store: Store) -> list[str]:
    ids = shared_ids(store)[2:9]  # 7 of 10, none touched by the other side
    archive.archive(store, ids, date(2026, 3, 5))
    return ids


def diverge_with_archive(repo: Path, store: Store) -> list[str]:
    git(repo, "checkout", "-q", "-b", "arch")
    archived = archive_most(store)
    commit_all(repo, "review: archive 7")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "other")
    other_work(store)
    commit_all(repo, "other work")
    return archived


def assert_archive_merged(repo: Path, store: Store, archived: list[str]) -> None:
    assert git(repo, "status", "--porcelain").stdout == ""
    present = [e.id for e in store.entries("error")]
    assert len(present) == SHARED - len(archived) + 2
    assert not set(present) & set(archived)
    assert {e.entry.id for e in archive.archived_entries(store)} == set(archived)


@pytest.mark.parametrize("archiving_side", ["ours", "theirs"])
def test_archiving_most_entries_on_either_side_merges_cleanly(project: tuple[Path, Store], archiving_side: str) -> None:
    repo, store = project
    archived = diverge_with_archive(repo, store)
    ours_branch, theirs_branch = ("arch", "other") if archiving_side == "ours" else ("other", "arch")
    git(repo, "checkout", "-q", ours_branch)
    merged = git(repo, "merge", "--no-edit", theirs_branch, check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert_archive_merged(repo, store, archived)


@pytest.mark.parametrize("rebased", ["arch", "other"])
def test_archiving_survives_a_rebase_in_either_direction(project: tuple[Path, Store], rebased: str) -> None:
    repo, store = project
    archived = diverge_with_archive(repo, store)
    git(repo, "checkout", "-q", rebased)
    done = git(repo, "rebase", "other" if rebased == "arch" else "arch", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_archive_merged(repo, store, archived)


def test_a_cherry_picked_archive_cannot_be_verified_so_it_conflicts(project: tuple[Path, Store]) -> None:
    # A single cherry-pick leaves git no trace of the picked commit while the driver runs:
    # theirs' archive cannot be read, so the removal of 7 entries takes the safe side.
    repo, store = project
    diverge_with_archive(repo, store)
    errors = repo / ERRORS
    picked = git(repo, "show", f"arch:{ERRORS_PATH}").stdout.encode()
    ours = errors.read_bytes()
    done = git(repo, "cherry-pick", "arch", check=False)
    assert done.returncode != 0
    assert f"UU {ERRORS_PATH}" in git(repo, "status", "--porcelain").stdout.splitlines()
    assert errors.read_bytes() == both_kept(ours, picked)
    assert "theirs removed 7 of the base's 10 entries" in done.stderr and "its store could not be read" in done.stderr


def test_archiving_an_entry_the_other_side_bumped_conflicts(project: tuple[Path, Store]) -> None:
    repo, store = project
    first = shared_ids(store)[0]
    git(repo, "checkout", "-q", "-b", "arch")
    archive.archive(store, [first], date(2026, 3, 5))
    commit_all(repo, "archive shared.0")
    git(repo, "checkout", "-q", "main")
    other_work(store)  # bumps shared.0
    commit_all(repo, "other work")
    ours = (repo / ERRORS).read_bytes()
    merged = git(repo, "merge", "--no-edit", "arch", check=False)
    assert merged.returncode == 1 and CONFLICT_LINE in merged.stdout
    theirs = git(repo, "show", f"arch:{ERRORS_PATH}").stdout.encode()
    assert (repo / ERRORS).read_bytes() == both_kept(ours, theirs)
    assert f"theirs removed {first}, which ours changed" in merged.stderr


def test_an_archive_symlink_does_not_vouch_for_removed_entries(project: tuple[Path, Store]) -> None:
    # The witness reads git's objects, where a link is a mode-120000 blob holding its target's
    # name: it is skipped, and never followed to the decoy that lists every ID.
    repo, store = project
    ids = shared_ids(store)
    errors = repo / ERRORS
    git(repo, "checkout", "-q", "-b", "gutted")
    decoy = repo / "decoy.md"
    decoy.write_text(errors.read_text())  # holds every ID
    (repo / ".learnings" / "archive").mkdir(exist_ok=True)
    (repo / ".learnings" / "archive" / "2026.md").symlink_to("../../decoy.md")
    errors.write_bytes(most_entries_deleted(errors.read_bytes(), ids))
    commit_all(repo, "gut")
    git(repo, "checkout", "-q", "main")
    other_work(store)
    commit_all(repo, "other work")
    merged = git(repo, "merge", "--no-edit", "gutted", check=False)
    assert merged.returncode == 1 and CONFLICT_LINE in merged.stdout
    assert "theirs removed 7 of the base's 10 entries" in merged.stderr and "no other file of its store holds them" in merged.stderr


# ---- managed blocks ------------------------------------------------------------------------------


def test_a_rules_block_deleted_on_one_side_and_extended_on_the_other_conflicts(project: tuple[Path, Store]) -> None:
    repo, store = project
    ids = shared_ids(store)
    claude = repo / "CLAUDE.md"
    claude.write_text(upsert_rule(upsert_rule("# Project\n\nUse make.\n", ids[0], "Rule zero"), ids[1], "Rule one"))
    commit_all(repo, "rules")
    git(repo, "checkout", "-q", "-b", "a")
    claude.write_text("# Project\n\nUse make. No rules here.\n")  # the block deleted by hand
    commit_all(repo, "a: no block")
    git(repo, "checkout", "-q", "main")
    claude.write_text(upsert_rule(claude.read_text(), ids[2], "Rule two"))
    commit_all(repo, "main: a rule")
    ours = claude.read_bytes()
    merged = git(repo, "merge", "--no-edit", "a", check=False)
    assert merged.returncode == 1 and "CONFLICT (content): Merge conflict in CLAUDE.md" in merged.stdout
    assert "UU CLAUDE.md" in git(repo, "status", "--porcelain").stdout.splitlines()
    assert claude.read_bytes() == both_kept(ours, b"# Project\n\nUse make. No rules here.\n")
    assert "self-improve: CLAUDE.md: theirs removed the rules block, while ours changed it" in merged.stderr


def test_a_retired_rule_and_a_new_one_still_merge(project: tuple[Path, Store]) -> None:
    repo, store = project
    ids = shared_ids(store)
    claude = repo / "CLAUDE.md"
    claude.write_text(upsert_rule(upsert_rule("# Project\n", ids[0], "Rule zero"), ids[1], "Rule one"))
    commit_all(repo, "rules")
    git(repo, "checkout", "-q", "-b", "a")
    claude.write_text(remove_rule(claude.read_text(), ids[0]))
    commit_all(repo, "a: retire")
    git(repo, "checkout", "-q", "main")
    claude.write_text(upsert_rule(claude.read_text(), ids[2], "Rule two"))
    commit_all(repo, "main: promote")
    merged = git(repo, "merge", "--no-edit", "a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert [rule.entry_id for rule in list_rules(claude.read_text())] == [ids[1], ids[2]]
