"""``export`` and ``import``: entries travel between stores, merge like ``log``, never duplicate."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import date, datetime, UTC
from pathlib import Path

import pytest

from self_improve.errors import SelfImproveError
from self_improve.store import archive
from self_improve.store.bulk import entry_digest, import_entries, provenance
from self_improve.store.entry import Entry, Occurrence, parse_text
from self_improve.store.store import LogRequest, Store, task_hash
from tests.helpers import CLI, REPO, run_cli, tree_hash

DAY1 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DAY2 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY3 = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)


def make_store(path: Path) -> Store:
    path.mkdir()
    (path / ".git").mkdir()
    store = Store(path)
    store.init()
    return store


def log(store: Store, summary: str, key: str = "", session: str = "s", now: datetime = DAY1, kind: str = "error", **kw: str) -> str:
    return store.log(LogRequest(kind=kind, summary=summary, pattern_key=key, session=session, now=now, **kw)).entry_id


def export(store: Store, *args: str) -> bytes:
    # Bytes, not text: universal newlines would hide a CRLF.
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    done = subprocess.run(
        [*CLI, "--root", str(store.root), "export", *args], capture_output=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def exported_entries(store: Store) -> list[Entry]:
    return list(parse_text(export(store).decode()).entries)


@pytest.fixture()
def source(tmp_path: Path) -> Store:
    store = make_store(tmp_path / "source")
    log(store, "npm install fails", "deps.npm", "s1")
    log(store, "npm install fails", "deps.npm", "s2", DAY2, action="use pnpm")
    log(store, "prefer ripgrep over grep here", session="s2", kind="learning")
    log(store, "dark mode for the report", session="s3", kind="feature")
    return store


# ---- export ----------------------------------------------------------------------------------------


def test_markdown_export_is_the_raw_entries(source: Store) -> None:
    raw = export(source)
    assert raw.decode() == "".join(e.text for e in source.entries())
    assert export(source, "--kind", "error").decode() == "".join(e.text for e in source.entries("error"))


def test_markdown_export_keeps_crlf(source: Store) -> None:
    path = source.file_for("error")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    raw = export(source, "--kind", "error")
    assert b"\r\n" in raw and raw.count(b"\n") == raw.count(b"\r\n")


def test_json_export_has_the_fields_and_the_raw_text(source: Store) -> None:
    items = json.loads(export(source, "--json"))
    assert [item["id"] for item in items] == [e.id for e in source.entries()]
    error = next(item for item in items if item["kind"] == "error")
    assert error["pattern_key"] == "deps.npm"
    assert error["recurrence_count"] == 2
    assert error["occurrences"] == 2  # a number, as everywhere; the dated list is "history"
    assert error["history"] == [f"2026-03-01/{task_hash('s1')}", f"2026-03-02/{task_hash('s2')}"]
    assert error["text"] == source.entries("error")[0].text
    assert [item["kind"] for item in json.loads(export(source, "--json", "--kind", "feature"))] == ["feature"]


# ---- import ----------------------------------------------------------------------------------------


def test_import_into_an_empty_store_appends_verbatim_and_twice_changes_nothing(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    (tmp_path / "export.md").write_bytes(export(source))
    first = run_cli("--root", str(target.root), "import", str(tmp_path / "export.md"))
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1] == "3 entries: 3 appended, 0 merged, 0 unchanged"
    assert [e.text for e in target.entries()] == [e.text for e in source.entries()]
    assert target.file_for("error").read_text() == source.file_for("error").read_text()
    before = tree_hash(target.dir)
    second = run_cli("--root", str(target.root), "import", str(tmp_path / "export.md"))
    assert second.stdout.splitlines()[-1] == "3 entries: 0 appended, 0 merged, 3 unchanged"
    assert tree_hash(target.dir) == before


def test_json_and_markdown_imports_are_the_same(source: Store, tmp_path: Path) -> None:
    by_markdown, by_json = make_store(tmp_path / "md"), make_store(tmp_path / "json")
    (tmp_path / "export.md").write_bytes(export(source))
    (tmp_path / "export.json").write_bytes(export(source, "--json"))
    assert run_cli("--root", str(by_markdown.root), "import", str(tmp_path / "export.md")).returncode == 0
    assert run_cli("--root", str(by_json.root), "import", str(tmp_path / "export.json")).returncode == 0
    for kind in ("learning", "error", "feature"):
        assert by_markdown.file_for(kind).read_bytes() == by_json.file_for(kind).read_bytes()
    again = run_cli("--root", str(by_json.root), "import", str(tmp_path / "export.md"), "--json")
    assert json.loads(again.stdout)["unchanged"] == 3


def test_import_reads_stdin(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    done = run_cli("--root", str(target.root), "import", "-", input=export(source).decode())
    assert done.returncode == 0 and len(target.entries()) == 3


def test_the_same_id_merges_as_a_union_in_both_directions(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    import_entries(target, exported_entries(source))
    error_id = source.entries("error")[0].id
    log(target, "npm install fails", "deps.npm", "target-session", DAY3)  # a recurrence over there
    log(source, "npm install fails", "deps.npm", "source-session", DAY3)  # and one here
    outcomes = import_entries(target, exported_entries(source))
    assert [o.action for o in outcomes] == ["unchanged", "merged", "unchanged"]  # learning, error, feature
    merged = target.get(error_id)
    assert merged.recurrence_count == 4  # s1, s2, and one new occurrence on each side
    assert sorted(o.task for o in merged.occurrences) == sorted(
        task_hash(s) for s in ("s1", "s2", "target-session", "source-session")
    )
    assert provenance(merged) == (f"{error_id}@{entry_digest(source.get(error_id))}",)
    # ... and back: the source learns the target's occurrence, still without double counting.
    import_entries(source, exported_entries(target))
    assert source.get(error_id).recurrence_count == 4
    before = tree_hash(target.dir)
    assert {o.action for o in import_entries(target, exported_entries(source))} == {"unchanged"}
    assert tree_hash(target.dir) == before


def test_a_matching_pattern_key_or_summary_absorbs_the_import(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    local_error = log(target, "npm is broken", "deps.npm", "t1", DAY3)
    local_learning = log(target, "Prefer ripgrep over grep here!", session="t1", kind="learning")
    outcomes = import_entries(target, exported_entries(source))
    assert [(o.action, o.entry_id, o.reason) for o in outcomes[:2]] == [
        ("merged", local_learning, "similar summary"),
        ("merged", local_error, "same Pattern-Key"),
    ]
    merged = target.get(local_error)
    assert merged.recurrence_count == 3
    assert merged.suggested_action == "use pnpm"
    assert (merged.first_seen, merged.last_seen) == ("2026-03-01", "2026-03-03")
    assert len(target.entries("error")) == 1
    before = tree_hash(target.dir)
    assert {o.action for o in import_entries(target, exported_entries(source))} == {"unchanged"}
    assert tree_hash(target.dir) == before


def test_closed_entries_do_not_absorb(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    closed = log(target, "npm is broken", "deps.npm", "t1")
    target.update(closed, lambda e: e.with_status("wont_fix"))
    outcomes = import_entries(target, exported_entries(source))
    assert outcomes[1].action == "appended"
    assert len(target.entries("error")) == 2


def test_importing_is_idempotent_even_when_the_bound_trims(tmp_path: Path) -> None:
    source, target = make_store(tmp_path / "source"), make_store(tmp_path / "target")
    for n in range(20):
        log(source, "flaky test", "tests.flaky", f"source-{n}", DAY1)
        log(target, "flaky test", "tests.flaky", f"target-{n}", DAY2)
    import_entries(target, exported_entries(source))
    merged = target.entries("error")[0]
    assert merged.recurrence_count == 40
    assert len(merged.occurrences) == 20
    before = tree_hash(target.dir)
    assert {o.action for o in import_entries(target, exported_entries(source))} == {"unchanged"}
    assert tree_hash(target.dir) == before


def test_an_entry_archived_here_is_not_brought_back(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    import_entries(target, exported_entries(source))
    error_id = source.entries("error")[0].id
    archive.archive(target, [error_id], date(2026, 3, 5))
    assert import_entries(target, exported_entries(source))[1].reason == "archived here"
    assert len(target.entries("error")) == 0
    # A recurrence after the archive is new: it comes in under a new ID, once.
    log(source, "npm install fails", "deps.npm", "later", DAY3)
    appended = import_entries(target, exported_entries(source))[1]
    assert appended.action == "appended" and appended.entry_id != error_id
    assert appended.reason == f"ID {error_id} is taken"
    assert target.entries("error")[0].recurrence_count == 3
    before = tree_hash(target.dir)
    assert import_entries(target, exported_entries(source))[1].action == "unchanged"
    assert tree_hash(target.dir) == before


def test_a_bad_entry_refuses_the_whole_import(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    bad = export(source).decode() + "## [not-an-id] oops\n\n### Summary\nx\n"
    (tmp_path / "bad.md").write_text(bad)
    before = tree_hash(target.dir)
    done = run_cli("--root", str(target.root), "import", str(tmp_path / "bad.md"))
    assert done.returncode == 1
    assert done.stderr == "self-improve: error: cannot import entry 'not-an-id': expected an ID like LRN-20260301-a7b (LRN, ERR or FEAT)\n"
    assert tree_hash(target.dir) == before
    (tmp_path / "bad.json").write_text('[{"id": "x"}]')
    assert run_cli("--root", str(target.root), "import", str(tmp_path / "bad.json")).returncode == 1
    with pytest.raises(SelfImproveError, match="run `self-improve init`"):
        import_entries(Store(tmp_path), exported_entries(source))


def test_dry_run_writes_nothing(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    (tmp_path / "export.md").write_bytes(export(source))
    before = tree_hash(target.dir)
    done = run_cli("--root", str(target.root), "import", str(tmp_path / "export.md"), "--dry-run")
    assert done.stdout.splitlines()[-1] == "3 entries: 3 appended, 0 merged, 0 unchanged (dry run: nothing was written)"
    assert tree_hash(target.dir) == before


def test_one_file_holding_the_same_entry_twice_imports_it_once(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    twice = exported_entries(source) * 2
    outcomes = import_entries(target, twice)
    assert [o.action for o in outcomes] == ["appended"] * 3 + ["unchanged"] * 3
    assert len(target.entries()) == 3


def test_imported_occurrences_keep_their_dates(source: Store, tmp_path: Path) -> None:
    target = make_store(tmp_path / "target")
    local = log(target, "npm is broken", "deps.npm", "t1", DAY3)
    import_entries(target, exported_entries(source))
    assert target.get(local).occurrences == (
        Occurrence("2026-03-01", task_hash("s1")),
        Occurrence("2026-03-02", task_hash("s2")),
        Occurrence("2026-03-03", task_hash("t1")),
    )
