"""The ``session-ready`` hook (Claude Code's SessionStart): one line for the user when review has
proposals waiting, ``{"systemMessage": …}`` and nothing else; silent otherwise; the count kept in
``.learnings/.state/ready.json`` until a learnings file changes (``hooks/ready.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import TODAY, debug_lines, entry_text, payload, run_hook, write_project

NOW = {"SELF_IMPROVE_NOW": f"{TODAY.isoformat()}T12:00:00Z"}
READY = ("ERR-20260210-aaa", "ERR-20260211-bbb")


def _ready_entry(entry_id: str, summary: str, action: str) -> str:
    # Three occurrences in three sessions, with a fix: what review proposes to promote.
    return entry_text(entry_id, summary, action=action, occurrences=[(20, "t1"), (10, "t2"), (2, "t3")])


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        _ready_entry(READY[0], "pytest fails with ImportError from the root", "Run `python -m pytest` so the root is on sys.path."),
        _ready_entry(READY[1], "make test fails without the deps", "Run `make deps` before `make test`."),
        entry_text("ERR-20260212-ccc", "docker needs sudo"),  # seen once: nothing to propose
    ])
    return tmp_path


def start(project: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = run_hook("session-ready", payload("SessionStart", cwd=str(project)), env={**NOW, **(env or {})})
    return done.returncode, done.stdout.decode()


def test_waiting_proposals_make_one_system_message_for_the_user(project: Path) -> None:
    code, out = start(project)
    assert code == 0
    assert json.loads(out) == {"systemMessage": "self-improve: 2 lessons ready, run `self-improve review`"}
    assert out == '{"systemMessage": "self-improve: 2 lessons ready, run `self-improve review`"}\n'


def test_from_the_plugin_it_names_the_slash_command(project: Path) -> None:
    _, out = start(project, {"CLAUDE_PLUGIN_ROOT": str(Path(__file__).resolve().parents[2])})
    assert json.loads(out) == {"systemMessage": "self-improve: 2 lessons ready, run /self-improve:review"}


def test_nothing_waiting_prints_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text("ERR-20260212-ccc", "docker needs sudo")])
    assert start(tmp_path) == (0, "")


def test_no_store_prints_nothing_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert start(tmp_path) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git"]


def test_other_events_are_ignored(project: Path) -> None:
    done = run_hook("session-ready", payload("UserPromptSubmit", cwd=str(project)), env=NOW)
    assert (done.returncode, done.stdout) == (0, b"")


def test_the_count_is_kept_until_a_learnings_file_changes(project: Path) -> None:
    start(project)
    ready = project / ".learnings" / ".state" / "ready.json"
    kept = json.loads(ready.read_text())
    assert kept["count"] == 2
    # The cached count is what the next session reads while nothing changed...
    ready.write_text(json.dumps({**kept, "count": 5}))
    assert json.loads(start(project)[1]) == {"systemMessage": "self-improve: 5 lessons ready, run `self-improve review`"}
    # ... and an edit of a learnings file makes it count again.
    errors = project / ".learnings" / "ERRORS.md"
    text = errors.read_text()
    errors.write_text(text[: text.index(f"## [{READY[1]}]")])  # one of the two ready entries goes
    os.utime(errors, ns=(1, 1))  # a different mtime even on a coarse clock
    assert start(project) == (0, '{"systemMessage": "self-improve: 1 lesson ready, run `self-improve review`"}\n')
    assert json.loads(ready.read_text())["count"] == 1


def test_a_garbage_cache_is_recounted_and_a_broken_config_reads_as_the_defaults(project: Path, tmp_path: Path) -> None:
    state = project / ".learnings" / ".state"
    state.mkdir(exist_ok=True)
    (state / "ready.json").write_bytes(b"\xff\x00 not json")
    assert json.loads(start(project)[1])["systemMessage"] == "self-improve: 2 lessons ready, run `self-improve review`"
    home = tmp_path / "home"
    home.mkdir()
    (project / ".learnings" / "config.toml").write_text("this is [not toml\n")
    # A config.toml that is not TOML: the hooks read it as empty (the defaults), as for every hook.
    code, out = start(project, {"HOME": str(home), "XDG_STATE_HOME": str(home / "state")})
    assert (code, out) == (0, '{"systemMessage": "self-improve: 2 lessons ready, run `self-improve review`"}\n')
    assert debug_lines(home) == []


def test_a_new_day_counts_again(project: Path) -> None:
    """Review's windows age entries out: a count kept yesterday is not trusted today."""
    start(project)
    ready = project / ".learnings" / ".state" / "ready.json"
    ready.write_text(json.dumps({**json.loads(ready.read_text()), "count": 5}))
    later = {"SELF_IMPROVE_NOW": "2026-03-02T12:00:00Z"}
    assert start(project, later) == (0, '{"systemMessage": "self-improve: 2 lessons ready, run `self-improve review`"}\n')
