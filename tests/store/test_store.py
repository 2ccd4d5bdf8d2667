"""The store: the delta operation, byte preservation, IDs, concurrency and crash safety."""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from self_improve.errors import SelfImproveError, UsageError
from self_improve.store.entry import parse_text
from self_improve.store.grammar import is_template_id
from self_improve.store.lint import lint_texts
from self_improve.store.store import LogRequest, Store, task_hash
from self_improve.store.trust import StoreDir
from tests.helpers import FIXTURES, REPO

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    s.init()
    return s


def log(store: Store, kind: str = "error", summary: str = "Python module not found", **kw: object) -> object:
    kw.setdefault("now", NOW)
    return store.log(LogRequest(kind=kind, summary=summary, **kw))  # type: ignore[arg-type]


def test_init_creates_headers_and_gitignore(tmp_path: Path) -> None:
    store = Store(tmp_path)
    created = store.init()
    assert [p.name for p in created] == [".learnings", "LEARNINGS.md", "ERRORS.md", "FEATURE_REQUESTS.md", ".gitignore"]
    assert (tmp_path / ".learnings/ERRORS.md").read_text() == "# Errors\n\nCommand failures and integration errors.\n\n---\n"
    assert (tmp_path / ".learnings/FEATURE_REQUESTS.md").read_text() == "# Feature Requests\n\nCapabilities requested by the user.\n\n---\n"
    learnings = (tmp_path / ".learnings/LEARNINGS.md").read_text()
    assert learnings.startswith("# Learnings\n") and "correction | insight | knowledge_gap | best_practice" in learnings
    assert learnings.endswith("---\n")
    assert ".lock" in (tmp_path / ".learnings/.gitignore").read_text().splitlines()
    assert store.init() == []


def test_a_store_uses_the_directory_its_caller_already_opened(tmp_path: Path) -> None:
    Store(tmp_path).init()
    opened = StoreDir(str(tmp_path / ".learnings"), owner_ok=True)
    store = Store(tmp_path, fs=opened)
    assert store.fs is opened  # its trust setting (owner_ok) is the caller's, not re-derived
    log(store)
    assert [e.summary for e in store.entries("error")] == ["Python module not found"]
    assert Store(tmp_path).fs is not opened and Store(tmp_path).fs.owner_ok is False


def test_init_only_creates_missing_files(tmp_path: Path) -> None:
    (tmp_path / ".learnings").mkdir()
    (tmp_path / ".learnings/ERRORS.md").write_bytes(b"mine\r\nno header")
    created = Store(tmp_path).init()
    assert (tmp_path / ".learnings/ERRORS.md").read_bytes() == b"mine\r\nno header"
    assert [p.name for p in created] == ["LEARNINGS.md", "FEATURE_REQUESTS.md", ".gitignore"]


def test_log_creates_then_merges_by_pattern_key(store: Store) -> None:
    first = log(store, pattern_key="deps.module-not-found", session="s1")
    second = log(store, summary="Something else entirely", pattern_key="deps.module-not-found", session="s2",
                 now=NOW + timedelta(days=2))
    assert first.created and not second.created
    assert second.entry_id == first.entry_id
    assert (second.recurrence_count, second.tasks) == (2, 2)
    entry = store.get(first.entry_id)
    assert entry.meta("Occurrences") == f"2026-11-29/{task_hash('s1')}, 2026-12-01/{task_hash('s2')}"
    assert (entry.first_seen, entry.last_seen, entry.recurrence_count) == ("2026-11-29", "2026-12-01", 2)
    assert entry.summary == "Python module not found"  # the merge never rewrites the summary


def test_same_summary_twice_never_gives_two_entries(store: Store) -> None:
    a = log(store, kind="learning", summary="Use pnpm, not npm, in this repo")
    b = log(store, kind="learning", summary="use PNPM not npm in this repo!")
    c = log(store, kind="learning", summary="Use pnpm, not npm, in this repo", pattern_key="tooling.pm")
    assert a.created and not b.created and not c.created
    assert len(store.entries("learning")) == 1
    assert store.get(a.entry_id).pattern_key == "tooling.pm"
    different = log(store, kind="learning", summary="Run the integration tests with docker up")
    assert different.created


def test_casefolding_is_full_unicode(store: Store) -> None:
    a = log(store, kind="learning", summary="Die Straße heißt Hauptstraße")
    b = log(store, kind="learning", summary="DIE STRASSE HEISST HAUPTSTRASSE")
    assert not b.created and b.entry_id == a.entry_id


def test_kinds_and_closed_entries_do_not_merge(store: Store) -> None:
    err = log(store, pattern_key="a.b")
    lrn = log(store, kind="learning", pattern_key="a.b")
    assert lrn.created and lrn.entry_id != err.entry_id
    store.update(err.entry_id, lambda e: e.with_status("wont_fix"))
    again = log(store, pattern_key="a.b")
    assert again.created and again.entry_id != err.entry_id


def test_resolved_entries_still_count_recurrences(store: Store) -> None:
    first = log(store, pattern_key="a.b", session="s1")
    store.update(first.entry_id, lambda e: e.with_status("resolved"))
    again = log(store, pattern_key="a.b", session="s2")
    assert again.entry_id == first.entry_id and again.recurrence_count == 2


def test_fix_for_the_incident_just_recorded_does_not_count_twice(store: Store) -> None:
    first = log(store, pattern_key="deps.module-not-found", session="s1")
    fix = log(store, pattern_key="deps.module-not-found", session="s1", action="pip install the module first")
    assert not fix.created and fix.recurrence_count == 1
    entry = store.get(first.entry_id)
    assert entry.suggested_action == "pip install the module first"
    # A later fix adds a line; the newest is last.
    log(store, pattern_key="deps.module-not-found", session="s1", action="use the project's venv")
    assert store.get(first.entry_id).suggested_action == "pip install the module first\nuse the project's venv"
    # In another session it is a new occurrence.
    assert log(store, pattern_key="deps.module-not-found", session="s2", action="x").recurrence_count == 2


def test_occurrences_are_bounded_and_keep_task_diversity(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.init()
    for n in range(30):
        log(store, pattern_key="a.b", session="busy", now=NOW + timedelta(days=n))
    last = log(store, pattern_key="a.b", session="other", now=NOW + timedelta(days=31))
    entry = store.get(last.entry_id)
    assert len(entry.occurrences) == 20
    assert entry.recurrence_count == 31
    assert {o.task for o in entry.occurrences} == {task_hash("busy"), task_hash("other")}
    assert entry.first_seen == "2026-11-29" and entry.last_seen == "2026-12-30"
    for n in range(25):
        log(store, pattern_key="a.b", session=f"s{n}", now=NOW + timedelta(days=40 + n))
    entry = store.get(last.entry_id)
    assert len(entry.occurrences) == 20 and entry.recurrence_count == 56
    assert entry.occurrences[-1].task == task_hash("s24")


def test_append_does_not_rewrite_the_file(store: Store) -> None:
    path = store.file_for("error")
    log(store, summary="first one")
    before = path.read_bytes()
    inode = path.stat().st_ino
    log(store, summary="a completely different failure")
    after = path.read_bytes()
    assert path.stat().st_ino == inode  # same file: appended, not replaced
    assert after.startswith(before)


def test_log_into_reference_files_keeps_every_other_byte(tmp_path: Path) -> None:
    learnings = tmp_path / ".learnings"
    shutil.copytree(FIXTURES / "reference", learnings)
    for name in ("LEARNINGS.md", "ERRORS.md"):  # CRLF variants
        path = learnings / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    store = Store(tmp_path)
    originals = {p.name: p.read_bytes() for p in learnings.iterdir()}
    merged = log(store, kind="learning", summary="x", pattern_key="tooling.package-manager", session="s9")
    assert merged.entry_id == "LRN-20250115-001" and merged.recurrence_count == 3
    after = (learnings / "LEARNINGS.md").read_bytes()
    diff = set(after.split(b"\r\n")) - set(originals["LEARNINGS.md"].split(b"\r\n"))
    assert diff == {b"- Recurrence-Count: 3", b"- Last-Seen: 2026-11-29", f"- Occurrences: 2026-11-29/{task_hash('s9')}".encode()}
    assert b"\n" not in after.replace(b"\r\n", b"")  # CRLF kept everywhere
    created = log(store, kind="feature", summary="Dark mode for the dashboard")
    features = (learnings / "FEATURE_REQUESTS.md").read_bytes()
    assert features.startswith(originals["FEATURE_REQUESTS.md"] + b"\n\n## [FEAT-")
    assert parse_text(features.decode()).entries[-1].id == created.entry_id
    assert (learnings / "ERRORS.md").read_bytes() == originals["ERRORS.md"]


def test_ids_are_random_base36_and_unique(store: Store) -> None:
    ids = {log(store, summary=f"failure number {n} of fifty").entry_id for n in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"ERR-20261129-[0-9a-z]{3}", i) for i in ids)


def test_a_random_id_is_never_the_template_lint_reports(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # One suffix in 36**3 is "xxx": LRN-20261202-xxx read as the skill's leftover example, so
    # lint told the user to delete a real lesson (a CI run drew it). The draw is made again.
    draws = iter(["xxx", "xxx", "b7q"])
    monkeypatch.setattr("self_improve.store.ids._random_suffix", lambda length: next(draws))
    created = log(store, kind="learning", summary="A lesson whose first draw was the template")
    assert created.entry_id == "LRN-20261129-b7q"
    text = store.file_for("learning").read_text()
    assert lint_texts([("LEARNINGS.md", text, "LRN")]) == []


@pytest.mark.parametrize(
    ("entry_id", "template"),
    [
        ("LRN-YYYYMMDD-XXX", True),
        ("ERR-yyyymmdd-001", True),
        ("LRN-20261202-XXX", True),  # the placeholder with only the date filled in
        ("FEAT-20261202-Xxx", True),
        ("LRN-20261202-xxx", False),  # an older release drew it: a lesson, never "delete it"
        ("LRN-20261202-xxxx", False),
        ("LRN-20261202-0xx", False),
    ],
)
def test_which_ids_are_the_skills_placeholder(entry_id: str, template: bool) -> None:
    assert is_template_id(entry_id) is template


def test_refusals(store: Store, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown kind"):
        log(store, kind="bogus")
    with pytest.raises(UsageError, match="one line"):
        log(store, summary="two\nlines")
    with pytest.raises(SelfImproveError, match="unknown ID"):
        store.get("ERR-20990101-zzz")
    with pytest.raises(SelfImproveError, match="run `self-improve init`"):
        log(Store(tmp_path / "elsewhere"))


def test_a_symlink_in_the_store_is_refused_wherever_it_points(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ERRORS.md").write_text("# mine\n")
    project = tmp_path / "project"
    (project / ".learnings").mkdir(parents=True)
    (project / ".learnings/ERRORS.md").symlink_to(outside / "ERRORS.md")
    refusal = "refusing to use .learnings/: .learnings/ERRORS.md is a symlink (see README, Trust)"
    with pytest.raises(SelfImproveError) as refused:
        Store(project).init()
    assert str(refused.value) == refusal
    with pytest.raises(SelfImproveError) as refused:
        log(Store(project))
    assert str(refused.value) == refusal
    assert (outside / "ERRORS.md").read_text() == "# mine\n"
    (project / ".learnings/ERRORS.md").unlink()
    (project / "CLAUDE.md").write_text("# rules\n")
    (project / ".learnings/ERRORS.md").symlink_to("../CLAUDE.md")  # inside the project: refused too
    with pytest.raises(SelfImproveError, match="ERRORS.md is a symlink"):
        log(Store(project))
    assert (project / "CLAUDE.md").read_text() == "# rules\n"
    (project / ".learnings/ERRORS.md").unlink()
    (project / ".learnings").rmdir()
    (project / ".learnings").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SelfImproveError) as refused:
        Store(project).init()
    assert str(refused.value) == "refusing to use .learnings/: .learnings is a symlink (see README, Trust)"
    assert sorted(p.name for p in outside.iterdir()) == ["ERRORS.md"]


# ---- concurrency -------------------------------------------------------------------------------

SHARED_KEYS = [f"shared.key-{n}" for n in range(10)]


def _writer(root: str, worker: int, calls: int) -> list[str]:
    store = Store(root)
    created = []
    rng = random.Random(worker)
    for n in range(calls):
        if n % 2 == 0:
            key = rng.choice(SHARED_KEYS)
            result = store.log(LogRequest(kind="error", summary=f"shared failure {key}", pattern_key=key, session=f"w{worker}"))
        else:
            result = store.log(LogRequest(kind="error", summary=f"unique {uuid.uuid4().hex[:12]}", session=f"w{worker}"))
        if result.created:
            created.append(result.entry_id)
    return created


def test_eight_processes_two_hundred_logs_each(store: Store) -> None:
    workers, calls = 8, 200
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        created = pool.starmap(_writer, [(str(store.root), w, calls) for w in range(workers)])
    entries = store.entries("error")
    ids = [e.id for e in entries]
    assert len(ids) == len(set(ids))  # 0 duplicate IDs
    shared = [e for e in entries if e.pattern_key in SHARED_KEYS]
    unique = [e for e in entries if not e.pattern_key]
    assert len(shared) == 10
    assert len(unique) == workers * calls // 2
    assert sum(e.recurrence_count for e in shared) == workers * calls // 2
    assert len(entries) == 10 + workers * calls // 2
    assert sorted(sum(created, [])) == sorted(ids)
    text = store.file_for("error").read_text()
    assert lint_texts([("ERRORS.md", text, "ERR")]) == []


# ---- crash safety -----------------------------------------------------------------------------

CRASH_WRITER = """
import sys, uuid
sys.path.insert(0, sys.argv[2])
from self_improve.store.store import LogRequest, Store
store = Store(sys.argv[1])
n = 0
while True:
    n += 1
    if n % 3 == 0:
        r = store.log(LogRequest(kind="error", summary="recurring", pattern_key="crash.key", session=str(n)))
    else:
        r = store.log(LogRequest(kind="learning", summary="entry " + uuid.uuid4().hex[:12], details="x" * 3000))
    print(r.entry_id, flush=True)
"""


def test_sigkill_at_random_moments_loses_nothing_written_before(store: Store) -> None:
    rng = random.Random(1234)
    confirmed: set[str] = set()
    for _ in range(12):
        procs = [
            subprocess.Popen([sys.executable, "-c", CRASH_WRITER, str(store.root), str(REPO)], stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        time.sleep(rng.uniform(0.15, 0.6))
        for proc in procs:
            os.kill(proc.pid, signal.SIGKILL)
        for proc in procs:
            out, _ = proc.communicate()
            # Every ID a writer printed was durably written before it was printed.
            confirmed.update(line for line in out.split() if line)
        texts = [
            (name, store.file_for(kind).read_text(), prefix)
            for kind, name, prefix in (("learning", "LEARNINGS.md", "LRN"), ("error", "ERRORS.md", "ERR"))
        ]
        assert lint_texts(texts) == []
        present = {e.id for e in store.entries()}
        assert confirmed <= present
    assert len(confirmed) > 10
    # A kill may leave temp files behind: each is one of our random-named dotfiles, which the
    # store's .gitignore covers, and none of them is read as a learnings file.
    leftovers = [p.name for p in store.dir.iterdir() if p.name.endswith(".tmp")]
    assert all(re.fullmatch(r"\.(LEARNINGS|ERRORS)\.md\.[0-9a-f]{12}\.tmp", name) for name in leftovers), leftovers
    assert "*.tmp" in (store.dir / ".gitignore").read_text().splitlines()


# ---- the agent's summary replaces the hook's generic title ----------------------------------------

GENERIC = "Module or package not found"  # rules.toml's title of deps.module-not-found


def test_the_agents_summary_replaces_the_hooks_generic_title(store: Store) -> None:
    log(store, summary=GENERIC, pattern_key="deps.module-not-found", session="s1")  # what the hook records
    log(store, summary="yaml missing: pip install pyyaml", pattern_key="deps.module-not-found", session="s1",
        action="pip install pyyaml")
    (entry,) = store.entries("error")
    assert (entry.summary, entry.recurrence_count) == ("yaml missing: pip install pyyaml", 1)
    log(store, summary=GENERIC, pattern_key="deps.module-not-found", session="s2")  # the hook, next time
    (entry,) = store.entries("error")
    assert (entry.summary, entry.recurrence_count) == ("yaml missing: pip install pyyaml", 2)


def test_a_summary_somebody_wrote_is_never_replaced(store: Store) -> None:
    log(store, summary="PyYAML is not in the venv", pattern_key="deps.module-not-found", session="s1")
    log(store, summary="another wording", pattern_key="deps.module-not-found", session="s2")
    (entry,) = store.entries("error")
    assert (entry.summary, entry.recurrence_count) == ("PyYAML is not in the venv", 2)


# ---- the store's paths, kept as text so that the hooks need no pathlib ---------------------------


@pytest.mark.parametrize("given", ["/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "//a/b", "/", "rel/x", ".", Path("/p/q")])
def test_the_paths_are_what_pathlib_makes_of_them(given: str | Path) -> None:
    for learnings_dir in (None, "/x/y/", "/a/b/inner"):
        store = Store(given, learnings_dir=learnings_dir)
        root = Path(given).absolute()
        assert store.root == root
        assert store.dir == (root / ".learnings" if learnings_dir is None else Path(learnings_dir).absolute())
        assert store.state_dir == store.dir / ".state"
        for kind in ("learning", "error", "feature"):
            name = store._file_name(kind)
            assert store._relative_name(name) == store.relative(store.file_for(kind)) == store.relative(store.dir / name)


def test_logged_entries_name_their_file_relative_to_the_root(store: Store) -> None:
    result = store.log(LogRequest(kind="error", summary="boom", pattern_key="x.y", now=NOW))
    assert result.file == ".learnings/ERRORS.md"
    assert [entry.file for entry in store.with_pattern_key("error", "x.y")] == [".learnings/ERRORS.md"]
