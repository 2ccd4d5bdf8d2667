"""One way to record a detection (``store.detections``) and one file of counters
(``store.counters``), whoever writes them: the hooks, the OpenClaw watcher, the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from self_improve.detect.classify import Detection
from self_improve.events import ToolResult
from self_improve.harnesses.openclaw.sweep import Hit, store_recorder
from self_improve.hooks.state import Context
from self_improve.store import counters
from self_improve.store import store as store_module
from self_improve.store.store import Store
from self_improve.store.trust import UntrustedStore

WHEN = datetime(2026, 11, 29, 10, 30, tzinfo=UTC)
DETECTION = Detection("deps.module-not-found", "Module or package not found", "ModuleNotFoundError: No module named 'x'")
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def result(cwd: Path, command: str = "cd app && python3 main.py") -> ToolResult:
    return ToolResult(command, "Traceback ...\nModuleNotFoundError: No module named 'x'", 1, "session-1", str(cwd))


def errors_md(project: Path) -> str:
    return (project / ".learnings" / "ERRORS.md").read_text(encoding="utf-8")


def without_ids(project: Path) -> str:
    """ERRORS.md with each entry's ID (random past the date) replaced."""
    text = errors_md(project)
    for entry in Store(project).entries("error"):
        text = text.replace(entry.id, "ERR-ID")
    return text


def test_the_hooks_and_the_watcher_record_the_same_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    by_hook, by_watcher = tmp_path / "hook", tmp_path / "watcher"
    for project in (by_hook, by_watcher):
        project.mkdir()
        Store(project).init()
    monkeypatch.setattr(store_module, "utcnow", lambda: WHEN)  # the hooks record at the store's clock
    context = Context.for_cwd(str(by_hook), "session-1")
    assert context is not None
    seen = context.record_error(DETECTION, result(by_hook))
    assert (seen.count, seen.sessions) == (1, 1)
    hit = Hit(by_watcher, "session-1", tmp_path / "db.sqlite", 7, WHEN, result(by_watcher), DETECTION)
    assert store_recorder(hit) is True
    assert without_ids(by_hook) == without_ids(by_watcher)
    (entry,) = Store(by_hook).entries("error")
    assert entry.text.startswith(f"## [{entry.id}] python3\n")  # the program, not the Pattern-Key
    assert "Command: `cd app && python3 main.py` (exit 1)" in entry.text


def test_a_recorded_command_is_redacted(project: Path) -> None:
    context = Context.for_cwd(str(project), "s")
    assert context is not None
    context.record_error(DETECTION, result(project, f"curl -H 'Authorization: token {TOKEN}' https://x.test"))
    assert TOKEN not in errors_md(project)
    assert "Command: `curl -H" in errors_md(project)


def test_record_errors_off_records_nothing_on_either_path(project: Path) -> None:
    (project / ".learnings" / "config.toml").write_text("[hooks]\nrecord_errors = false\n", encoding="utf-8")
    context = Context.for_cwd(str(project), "s")
    assert context is not None
    assert context.record_error(DETECTION, result(project)).count == 0
    assert store_recorder(Hit(project, "s", project / "db", 1, WHEN, result(project), DETECTION)) is False
    assert Store(project).entries("error") == []


def test_the_hooks_and_the_cli_share_one_counters_file(project: Path) -> None:
    from self_improve.commands._common import bump_actions
    from self_improve.commands.stats import read_action_counters

    context = Context.for_cwd(str(project), "s")
    assert context is not None
    context.note_error_nudge(recall=True)
    bump_actions(Store(project), rules_promoted=2)
    context.bump("errors_recorded")
    path = project / ".learnings" / ".state" / counters.FILE
    assert json.loads(path.read_text()) == {"error_nudges": 1, "errors_recorded": 1, "recalls": 1, "rules_promoted": 2}
    assert read_action_counters(Store(project)) == {
        "rules_promoted": 2, "rules_retired": 0, "entries_archived": 0, "entries_restored": 0,
    }


def test_the_counters_file_keeps_whole_numbers_of_plain_names_only(project: Path) -> None:
    path = project / ".learnings" / ".state" / counters.FILE
    path.parent.mkdir(exist_ok=True)
    path.write_text('{"reminders": 2, "note": "x", "flag": true, "we\\"ird": 1}', encoding="utf-8")
    fs = Store(project).fs
    assert counters.read(fs) == {"reminders": 2, 'we"ird': 1}
    counters.bump(fs, {"reminders": 1})
    assert json.loads(path.read_text()) == {"reminders": 3}


def test_a_missing_or_broken_counters_file_reads_as_none(project: Path) -> None:
    fs = Store(project).fs
    assert counters.read(fs) is None
    path = project / ".learnings" / ".state" / counters.FILE
    path.parent.mkdir(exist_ok=True)
    path.write_text("[1, 2]", encoding="utf-8")
    assert counters.read(fs) is None


def test_claude_codex_and_the_openclaw_watcher_record_the_same_fingerprint(tmp_path: Path) -> None:
    from self_improve.harnesses.openclaw.sweep import default_detector
    from tests.helpers import FIXTURES, payload, run_hook

    claude, codex, openclaw = (tmp_path / name for name in ("claude", "codex", "openclaw"))
    for project in (claude, codex, openclaw):
        project.mkdir()
        Store(project).init()
    assert run_hook("post-bash", payload("PostToolUseFailure", cwd=str(claude))).returncode == 0
    codex_payload = {**json.loads((FIXTURES / "codex" / "PostToolUse-failure.json").read_text()), "cwd": str(codex)}
    assert run_hook("post-bash", codex_payload).returncode == 0
    output = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'nosuchmod'\n"
    watched = ToolResult("python3 -c 'import nosuchmod'", output, 1, "session-1", str(openclaw))
    detection = default_detector(watched, openclaw)
    assert detection is not None
    assert store_recorder(Hit(openclaw, "session-1", tmp_path / "db.sqlite", 7, WHEN, watched, detection)) is True
    keys = [[entry.pattern_key for entry in Store(project).entries("error")] for project in (claude, codex, openclaw)]
    assert keys == [["deps.module-not-found/python:nosuchmod"]] * 3


def test_post_bash_writes_the_error_and_its_nudge_in_one_count_and_never_loses_one(project: Path) -> None:
    context = Context.for_cwd(str(project), "s")
    assert context is not None
    path = project / ".learnings" / ".state" / counters.FILE
    context.hold_counts()
    context.bump("errors_recorded")
    assert not path.exists()  # held for the nudge's write
    context.note_error_nudge(recall=True)
    context.release_counts()  # nothing left to write
    assert json.loads(path.read_text()) == {"error_nudges": 1, "errors_recorded": 1, "recalls": 1}
    context.bump("errors_recorded")  # holding ended with that write
    assert json.loads(path.read_text())["errors_recorded"] == 2
    # The nudge's write fails (its session file is a directory): the held count is written anyway.
    session = project / ".learnings" / ".state" / "sessions" / "s.json"
    session.unlink()
    session.mkdir()
    context.hold_counts()
    context.bump("errors_recorded")
    with pytest.raises(UntrustedStore):
        context.note_error_nudge(recall=False)
    context.release_counts()
    assert json.loads(path.read_text()) == {"error_nudges": 1, "errors_recorded": 3, "recalls": 1}


def test_the_quoted_command_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    from self_improve.store.detections import command_context, quoted_command

    for command in ("make test", "echo `date` && make", "python3 -c 'import x'"):
        written = command_context(ToolResult(command, "", 2, "s", str(tmp_path)))
        assert quoted_command(f"Some text\n{written}\n") == command
    assert quoted_command("no command here") == ""
