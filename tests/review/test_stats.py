"""``self-improve stats``: counts by kind and status, Pattern-Keys, nudges, rules, oldest pending."""

from __future__ import annotations

import io
import json
from datetime import date
from pathlib import Path

import pytest

from self_improve.commands import stats
from self_improve.store import archive as archive_mod
from self_improve.store.store import Store
from tests.helpers import entry_text, run_cli, write_project


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(
        tmp_path,
        [
            entry_text("LRN-20260201-aaa", "Use pnpm", action="Use pnpm.", pattern_key="tooling.pm", occurrences=[(20, "t1"), (10, "t2"), (2, "t1")]),
            entry_text("LRN-20260202-bbb", "Old rule", status="retired", occurrences=[(200, "t1")]),
            entry_text("ERR-20260210-ccc", "make fails", pattern_key="build.deps", occurrences=[(40, "t1"), (9, "t2")]),
            entry_text("ERR-20260215-ddd", "docker sudo", pattern_key="docker.sudo", occurrences=[(50, "t3")]),
            entry_text("FEAT-20260220-eee", "CSV export", occurrences=[(30, "t1")]),
        ],
    )
    return tmp_path


def stats_json(project: Path) -> dict:
    result = run_cli("stats", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_counts_keys_and_oldest_pending(project: Path) -> None:
    data = stats_json(project)
    assert data["entries"] == {
        "learning": {"pending": 1, "retired": 1},
        "error": {"pending": 2},
        "feature": {"pending": 1},
    }
    assert data["total"] == 5
    # docker.sudo occurred once: it does not recur, so it is not listed.
    assert [(k["pattern_key"], k["occurrences"], k["entries"]) for k in data["pattern_keys"]] == [("tooling.pm", 3, 1), ("build.deps", 2, 1)]
    assert data["hooks"] is None
    assert data["logged"] == {"entries": 5, "occurrences": 8}
    assert data["rules"] == {"promoted": 0, "retired": 1, "skills": 0, "actions": None}
    assert [item["id"] for item in data["oldest_pending"]] == ["ERR-20260215-ddd", "ERR-20260210-ccc", "FEAT-20260220-eee", "LRN-20260201-aaa"]


def test_text_says_n_a_when_nothing_was_counted(project: Path) -> None:
    text = run_cli("stats", cwd=project).stdout
    assert "Nudges fired: n/a\n" in text
    # Hand-written entries: nothing on this machine's ledger, so nobody here is credited with them.
    assert (
        "Recorded by the hooks:        0 entries, 0 occurrences\n"
        "Logged by the agent or user:  0 entries, 0 occurrences\n"
        "From elsewhere:               5 entries, 8 occurrences (arrived in a commit, imported, or older than this machine's ledger)\n"
    ) in text
    assert "Rules: 0 promoted, 1 retired, 0 extracted to skills (actions counted: n/a)\n" in text
    assert text.startswith("Entries: 5\n  learnings            2  pending 1, retired 1\n")


def test_our_actions_are_counted_and_hook_counters_shown(project: Path) -> None:
    assert run_cli("promote", "LRN-20260201-aaa", "--yes", cwd=project).returncode == 0
    assert run_cli("retire", "LRN-20260201-aaa", "--yes", cwd=project).returncode == 0
    data = stats_json(project)
    assert data["rules"]["actions"] == {"rules_promoted": 1, "rules_retired": 1, "entries_archived": 0, "entries_restored": 0}
    assert data["hooks"] is None  # our counters share the file, but no hook counted anything
    counters = project / ".learnings" / ".state" / "counters.json"
    counters.write_text(json.dumps({**json.loads(counters.read_text()), "reminders": 4, "error_nudges": 2}), encoding="utf-8")
    data = stats_json(project)
    assert data["hooks"] == {"reminders": 4, "error_nudges": 2, "recalls": 0, "preventions": 0, "correction_nudges": 0, "errors_recorded": 0, "errors_scanned": 0}
    assert data["rules"]["actions"]["rules_promoted"] == 1  # the hooks' keys did not clobber ours
    text = run_cli("stats", cwd=project).stdout
    assert "Nudges fired: reminders 4, error nudges 2, recalls 0, preventions 0, correction nudges 0\n" in text
    assert "Recorded by the hooks:        0 entries, 0 occurrences (errors recorded: 0)\n" in text
    assert "(actions counted: promote 1, retire 1, archive 0, restore 0)\n" in text


def test_archived_entries_are_counted(project: Path) -> None:
    store = Store(project)
    archive_mod.archive(store, ["LRN-20260202-bbb"], date(2026, 3, 1))
    data = stats_json(project)
    assert data["entries"]["learning"] == {"pending": 1, "archived": 1}
    assert data["rules"]["retired"] == 1  # retired before it was archived
    assert data["total"] == 5


def test_bar_chart_scales_and_falls_back_to_ascii(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert stats.bar(10, 10) == "█" * 20
    assert stats.bar(1, 10) == "██"
    assert stats.bar(1, 1000) == "█"  # never invisible
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert stats.bar(5, 10) == "#" * 10


def test_counter_failures_never_fail_the_action(project: Path) -> None:
    state = project / ".learnings" / ".state"
    state.mkdir(exist_ok=True)
    (state / "counters.json").mkdir()  # unreadable and unwritable as a file
    assert run_cli("promote", "LRN-20260201-aaa", "--yes", cwd=project).returncode == 0
    assert stats_json(project)["rules"]["actions"] is None


def test_stats_needs_learnings(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    result = run_cli("stats", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, f"self-improve: error: no .learnings/ in {tmp_path}: run `self-improve init` first\n")
