"""The merge driver inside real git merges, and its registration (``git_setup``)."""

from __future__ import annotations

import argparse
import shlex
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from self_improve.store import git_setup
from self_improve.commands import merge_driver
from self_improve.errors import SelfImproveError
from self_improve.review.managed_block import list_rules, upsert_rule
from self_improve.store import archive
from self_improve.store.entry import Entry, Occurrence, parse_text
from self_improve.store.store import Store, task_hash
from tests.helpers import BASE_DAY, commit_all, config_value, git, log, make_repo, register_driver_by_hand, run_cli

A_DAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
B_DAY = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
KINDS = ("learning", "error", "feature")
SHARED = 10


def entries_by_key(store: Store) -> dict[str, Entry]:
    return {e.pattern_key: e for e in store.entries()}


@pytest.fixture()
def project(tmp_path: Path) -> tuple[Path, Store]:
    repo = make_repo(tmp_path)
    store = Store(repo)
    store.init()
    for k in range(SHARED):
        log(store, KINDS[k % 3], f"shared problem number {k}", f"shared.{k}", f"base-{k}", BASE_DAY)
    return repo, store


def branch_work(store: Store, branch: str, day: datetime, bumps: dict[int, int]) -> None:
    for i in range(50):
        log(store, KINDS[i % 3], f"{branch} side finding {i}", f"{branch}.{i}", f"{branch}-{i}", day)
    for k, times in bumps.items():
        for j in range(times):
            log(store, KINDS[k % 3], f"shared problem number {k}", f"shared.{k}", f"{branch}-bump-{k}-{j}", day)


def test_fifty_entries_per_branch_and_shared_bumps_merge_exactly(project: tuple[Path, Store]) -> None:
    repo, store = project
    register_driver_by_hand(repo)
    commit_all(repo, "base")
    a_bumps = {k: k % 3 + 1 for k in range(SHARED)}
    b_bumps = {k: k % 2 + 1 for k in range(SHARED)}

    git(repo, "checkout", "-q", "-b", "a")
    branch_work(store, "a", A_DAY, a_bumps)
    commit_all(repo, "a: 50 entries, bumps")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    branch_work(store, "b", B_DAY, b_bumps)
    commit_all(repo, "b: 50 entries, bumps")
    git(repo, "checkout", "-q", "a")

    merged = git(repo, "merge", "--no-edit", "b", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    assert git(repo, "status", "--porcelain").stdout == ""

    by_key = entries_by_key(store)
    assert len(store.entries()) == SHARED + 100
    assert len(by_key) == SHARED + 100
    assert {k for k in by_key if k.startswith("a.")} == {f"a.{i}" for i in range(50)}
    assert {k for k in by_key if k.startswith("b.")} == {f"b.{i}" for i in range(50)}
    for k in range(SHARED):
        entry = by_key[f"shared.{k}"]
        assert entry.recurrence_count == 1 + a_bumps[k] + b_bumps[k]
        expected = [Occurrence("2026-03-01", task_hash(f"base-{k}"))]
        expected += [Occurrence("2026-03-02", task_hash(f"a-bump-{k}-{j}")) for j in range(a_bumps[k])]
        expected += [Occurrence("2026-03-03", task_hash(f"b-bump-{k}-{j}")) for j in range(b_bumps[k])]
        assert list(entry.occurrences) == expected
        assert (entry.first_seen, entry.last_seen) == ("2026-03-01", "2026-03-03")
    # Ours' entries keep their order and theirs' follow, in every file.
    for kind in KINDS:
        keys = [e.pattern_key.split(".")[0] for e in store.entries(kind)]
        assert keys == sorted(keys, key=["shared", "a", "b"].index)
    assert run_cli("lint", cwd=repo).returncode == 0


def test_a_free_text_edit_on_both_branches_is_a_conflict_inside_the_entry(project: tuple[Path, Store]) -> None:
    repo, store = project
    register_driver_by_hand(repo)
    commit_all(repo, "base")
    target = entries_by_key(store)["shared.0"].id

    def set_details(text: str) -> None:
        store.update(target, lambda e: e.with_section("Details", [text]))

    git(repo, "checkout", "-q", "-b", "a")
    set_details("ours: it is the lockfile")
    log(store, "learning", "shared problem number 0", "shared.0", "a-x", A_DAY)
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    set_details("theirs: it is the cache")
    log(store, "learning", "shared problem number 0", "shared.0", "b-x", B_DAY)
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "a")

    merged = git(repo, "merge", "--no-edit", "b", check=False)
    assert merged.returncode != 0
    assert "CONFLICT (content): Merge conflict in .learnings/LEARNINGS.md" in merged.stdout
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split() == [".learnings/LEARNINGS.md"]
    text = (repo / ".learnings" / "LEARNINGS.md").read_text()
    entry = next(e for e in parse_text(text).entries if e.id == target)
    assert "<<<<<<< ours\nours: it is the lockfile\n=======\ntheirs: it is the cache\n>>>>>>> theirs\n" in entry.text
    assert entry.recurrence_count == 3  # the counts merged anyway
    assert text.count("<<<<<<<") == 1  # nothing else conflicts


def test_archive_on_one_branch_and_rules_on_both(project: tuple[Path, Store]) -> None:
    repo, store = project
    register_driver_by_hand(repo)
    claude = repo / "CLAUDE.md"
    first = entries_by_key(store)["shared.0"].id
    claude.write_text(upsert_rule("# Project\n\nUse make.\n\nDeploy with care.\n", first, "Rule zero"))
    commit_all(repo, "base")
    ids = {key: e.id for key, e in entries_by_key(store).items()}

    git(repo, "checkout", "-q", "-b", "a")
    archive.archive(store, [ids["shared.3"]], date(2026, 3, 2))  # a deletion here, an addition there
    claude.write_text(upsert_rule(claude.read_text(), ids["shared.1"], "Rule one"))
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    archive.archive(store, [ids["shared.6"]], date(2026, 3, 3))
    log(store, "learning", "shared problem number 0", "shared.0", "b-x", B_DAY)
    claude.write_text(upsert_rule(claude.read_text(), ids["shared.2"], "Rule two").replace("Use make.", "Use just."))
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "a")

    merged = git(repo, "merge", "--no-edit", "b", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    present = {e.id for e in store.entries()}
    assert ids["shared.3"] not in present and ids["shared.6"] not in present
    assert {e.entry.id for e in archive.archived_entries(store)} == {ids["shared.3"], ids["shared.6"]}
    assert len(present) == SHARED - 2
    assert [rule.entry_id for rule in list_rules(claude.read_text())] == [first, ids["shared.1"], ids["shared.2"]]
    assert "Use just." in claude.read_text()


def test_the_installed_driver_runs_through_bin_self_improve(project: tuple[Path, Store]) -> None:
    repo, store = project
    result = git_setup.install_git(repo)
    assert result.changed
    assert "bin/self-improve" in git(repo, "config", "merge.self-improve.driver").stdout
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "a")
    log(store, "error", "shared problem number 1", "shared.1", "a-1", A_DAY)
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    log(store, "error", "shared problem number 1", "shared.1", "m-1", B_DAY)
    commit_all(repo, "main")
    merged = git(repo, "merge", "--no-edit", "a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert entries_by_key(store)["shared.1"].recurrence_count == 3


# ---- the driver on its own ------------------------------------------------------------------------


def test_driver_cli_exit_codes(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.write_text("# Learnings\n")
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.write_text("# Learnings\n\nours\n")
    theirs.write_text("# Learnings\n\ntheirs\n")
    done = run_cli("merge-driver", str(base), str(ours), str(theirs), "NOTES.md", cwd=tmp_path)
    assert done.returncode == 1
    assert "<<<<<<< ours" in ours.read_text() and "theirs" in ours.read_text()
    ours.write_text("# Learnings\n\nours\n")
    theirs.write_text("# Learnings\n")
    assert run_cli("merge-driver", str(base), str(ours), str(theirs), "NOTES.md", cwd=tmp_path).returncode == 0


def test_driver_never_crashes_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ours = tmp_path / "ours"
    ours.write_bytes(b"ours\n")
    missing = run_cli("merge-driver", str(tmp_path / "nope"), str(ours), str(tmp_path / "nope2"), "x.md", cwd=tmp_path)
    assert missing.returncode == 1
    assert len(missing.stderr.splitlines()) == 1 and missing.stderr.startswith("self-improve: error: merge-driver")
    assert ours.read_bytes() == b"ours\n"

    base, theirs = tmp_path / "base", tmp_path / "theirs"
    base.write_text("a\nb\nc\n")
    ours.write_text("A\nb\nc\n")
    theirs.write_text("a\nb\nC\n")

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(merge_driver, "guarded_merge", broken)
    args = argparse.Namespace(base=str(base), ours=str(ours), theirs=str(theirs), path=".learnings/LEARNINGS.md")
    assert merge_driver.run(args) == 1
    assert ours.read_text() == "A\nb\nC\n"  # git's own line merge of the three files
    assert capsys.readouterr().err.count("\n") == 1


def test_driver_keeps_undecodable_bytes(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    base.write_bytes(b"x\xff\n")
    ours.write_bytes(b"x\xff\nours\n")
    theirs.write_bytes(b"top\nx\xff\n")
    assert run_cli("merge-driver", str(base), str(ours), str(theirs), "NOTES.md", cwd=tmp_path).returncode == 0
    assert ours.read_bytes() == b"top\nx\xff\nours\n"


# ---- registration -------------------------------------------------------------------------------


def test_install_creates_everything_and_is_idempotent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    first = git_setup.install_git(repo)
    assert first.changed and len(first.changes) == 3
    attributes = (repo / ".gitattributes").read_text()
    assert attributes == "".join(line + "\n" for line in git_setup.ATTRIBUTE_LINES)
    assert config_value(repo, "merge.self-improve.driver") == git_setup.driver_command()
    assert config_value(repo, "merge.self-improve.name") == git_setup.DRIVER_NAME
    again = git_setup.install_git(repo)
    assert not again.changed
    assert (repo / ".gitattributes").read_text() == attributes
    assert git_setup.is_installed(repo)
    git_setup.uninstall_git(repo)
    assert not (repo / ".gitattributes").exists()
    assert git(repo, "config", "--local", "--get-regexp", "^merge[.]", check=False).stdout == ""
    assert not git_setup.is_installed(repo)


def test_existing_gitattributes_keep_every_byte(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    original = b"*.png binary\r\n# keep me  \r\n*.sh text eol=lf"  # CRLF, no final newline
    (repo / ".gitattributes").write_bytes(original)
    git_setup.install_git(repo)
    after = (repo / ".gitattributes").read_bytes()
    assert after.startswith(original + b"\r\n")
    assert after[len(original) + 2 :] == b"".join(line.encode() + b"\r\n" for line in git_setup.ATTRIBUTE_LINES)
    assert not git_setup.install_git(repo).changed
    git_setup.uninstall_git(repo)
    assert (repo / ".gitattributes").read_bytes() == original


def test_partial_lines_and_user_lines_after_ours(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    original = f"*.md text\n{git_setup.ATTRIBUTE_LINES[2]}\n".encode()
    (repo / ".gitattributes").write_bytes(original)
    git_setup.install_git(repo)
    text = (repo / ".gitattributes").read_text()
    assert text.count(git_setup.ATTRIBUTE_LINES[2]) == 1
    assert all(line in text.splitlines() for line in git_setup.ATTRIBUTE_LINES)
    (repo / ".gitattributes").write_text(text + "*.txt text\n")
    git_setup.uninstall_git(repo)
    assert (repo / ".gitattributes").read_text() == "*.md text\n*.txt text\n"


def test_dry_run_writes_nothing_and_refusals(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    plan = git_setup.install_git(repo, dry_run=True)
    assert plan.changed and not (repo / ".gitattributes").exists()
    assert config_value(repo, "merge.self-improve.driver") is None
    git_setup.install_git(repo)
    assert git_setup.uninstall_git(repo, dry_run=True).changed
    assert git_setup.is_installed(repo)
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(SelfImproveError, match="not inside a git repository"):
        git_setup.install_git(outside)


def test_uninstall_leaves_a_file_we_did_not_create(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / ".gitattributes").write_text("".join(line + "\n" for line in git_setup.ATTRIBUTE_LINES))
    assert git_setup.install_git(repo).changes == (
        f"git config merge.self-improve.name {shlex.quote(git_setup.DRIVER_NAME)}",
        f"git config merge.self-improve.driver {shlex.quote(git_setup.driver_command())}",
    )
    git_setup.uninstall_git(repo)
    assert (repo / ".gitattributes").read_text() == ""


def test_control_without_the_driver_the_same_histories_conflict(project: tuple[Path, Store]) -> None:
    # Proves the tests above measure the driver: git's own merge loses to appends on both sides.
    repo, store = project
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "a")
    branch_work(store, "a", A_DAY, {0: 1})
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    branch_work(store, "b", B_DAY, {0: 1})
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "a")
    merged = git(repo, "merge", "--no-edit", "b", check=False)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout


def test_driver_bounds_occurrences_with_the_projects_setting(project: tuple[Path, Store]) -> None:
    # 5: the lowest bound a project's config may set (store/settings.py clamps it); the default is 20.
    repo, store = project
    assert run_cli("config", "set", "log.max_occurrences", "5", cwd=repo).returncode == 0
    store = Store(repo)  # re-read the config
    register_driver_by_hand(repo)
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "a")
    branch_work(store, "a", A_DAY, {0: 4})
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    branch_work(store, "b", B_DAY, {0: 4})
    commit_all(repo, "b")
    assert git(repo, "merge", "--no-edit", "a", check=False).returncode == 0
    entry = entries_by_key(store)["shared.0"]
    assert entry.recurrence_count == 9
    assert len(entry.occurrences) == 5
    # 9 occurrences sorted by date, 9 distinct tasks: the store's rule drops the four oldest.
    assert list(entry.occurrences) == [
        Occurrence("2026-03-02", task_hash("a-bump-0-3")),
        *(Occurrence("2026-03-03", task_hash(f"b-bump-0-{j}")) for j in range(4)),
    ]


def test_rules_added_on_both_branches_to_a_scoped_rules_file_merge_with_its_frontmatter(project: tuple[Path, Store]) -> None:
    """``.claude/rules/self-improve*.md`` (the default Claude Code target) goes through the block
    merge too: both branches' rules are kept, the ``paths:`` frontmatter byte for byte."""
    repo, store = project
    register_driver_by_hand(repo)
    rules = repo / ".claude" / "rules" / "self-improve-app.md"
    rules.parent.mkdir(parents=True)
    frontmatter = '---\npaths:\n  - "app/**"\n---\n'
    ids = {key: e.id for key, e in entries_by_key(store).items()}
    rules.write_text(upsert_rule(frontmatter, ids["shared.0"], "Rule zero"))
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "a")
    rules.write_text(upsert_rule(rules.read_text(), ids["shared.1"], "Rule one"))
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    rules.write_text(upsert_rule(rules.read_text(), ids["shared.2"], "Rule two"))
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "a")
    merged = git(repo, "merge", "--no-edit", "b", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = rules.read_text()
    assert text.startswith(frontmatter)
    assert [rule.entry_id for rule in list_rules(text)] == [ids["shared.0"], ids["shared.1"], ids["shared.2"]]
