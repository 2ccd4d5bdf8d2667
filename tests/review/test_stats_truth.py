"""``stats`` tells the truth: what the hooks recorded is not what the agent or user logged.

A project where only the hooks ran once read ``Learnings logged: 1 entries, 3 occurrences``,
while nobody had logged anything. The split comes from this machine's provenance ledger
(``store/provenance.py``); what it does not hold is "from elsewhere", never guessed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.detect.classify import Detection
from self_improve.events import ToolResult
from self_improve.hooks.state import Context
from self_improve.review.stats_figures import plural
from self_improve.store.store import Store
from tests.helpers import entry_text, run_cli

NOW = "2026-11-29T10:30:00Z"
DETECTION = Detection("deps.module-not-found", "Module or package not found", "ModuleNotFoundError: No module named 'x'")


def hooks_record(project: Path, sessions: tuple[str, ...]) -> None:
    """The post-bash hook's path, in-process: one failed command a session."""
    for session in sessions:
        context = Context.for_cwd(str(project), session)
        assert context is not None
        result = ToolResult("python3 main.py", "Traceback ...\nModuleNotFoundError: No module named 'x'", 1, session, str(project))
        context.record_error(DETECTION, result)


@pytest.fixture()
def hooks_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SELF_IMPROVE_NOW", NOW)
    (tmp_path / ".git").mkdir()
    Store(tmp_path).init()
    hooks_record(tmp_path, ("session-1", "session-2", "session-3"))
    return tmp_path


def test_only_the_hooks_ran(hooks_only: Path) -> None:
    result = run_cli("stats", cwd=hooks_only, env={"SELF_IMPROVE_NOW": NOW, "PYTHONIOENCODING": "utf-8"})
    assert result.returncode == 0, result.stderr
    (entry,) = Store(hooks_only).entries("error")
    assert result.stdout == (
        "Entries: 1\n"
        "  learnings            0\n"
        "  errors               1  pending 1\n"
        "  feature requests     0\n"
        "\n"
        "Top recurring Pattern-Keys\n"
        f"  {entry.pattern_key}  {'█' * 20}  3\n"
        "\n"
        "Nudges fired: reminders 0, error nudges 0, recalls 0, preventions 0, correction nudges 0\n"
        "Recorded by the hooks:        1 entry, 3 occurrences (errors recorded: 3)\n"
        "Logged by the agent or user:  0 entries, 0 occurrences\n"
        "From elsewhere:               0 entries, 0 occurrences (arrived in a commit, imported, or older than this machine's ledger)\n"
        "Rules: 0 promoted, 0 retired, 0 extracted to skills (actions counted: n/a)\n"
        "\n"
        "Efficacy per promoted rule\n"
        "  no promoted rule\n"
        "\n"
        "Oldest pending\n"
        f"  {entry.id}  2026-11-29  Module or package not found\n"
    )


def test_the_agent_and_the_user_are_told_apart_from_the_hooks(hooks_only: Path) -> None:
    agent = {"SELF_IMPROVE_NOW": NOW, "CLAUDECODE": "1"}
    logged = run_cli("log", "learning", "Install deps first", "--session", "mine", cwd=hooks_only, env=agent)
    assert logged.returncode == 0, logged.stderr
    by_user = run_cli("log", "feature", "CSV export", cwd=hooks_only, env={"SELF_IMPROVE_NOW": NOW})
    assert by_user.returncode == 0, by_user.stderr
    # A teammate's entry, pulled in a commit: no line of this machine's ledger.
    learnings = Store(hooks_only).file_for("learning")
    teammate = entry_text("LRN-20260201-aaa", "From a teammate", occurrences=[(20, "t1"), (10, "t2")])
    learnings.write_text(learnings.read_text(encoding="utf-8") + "\n" + teammate, encoding="utf-8")
    data = json.loads(run_cli("stats", "--json", cwd=hooks_only, env={"SELF_IMPROVE_NOW": NOW}).stdout)
    assert data["logged"] == {"entries": 4, "occurrences": 7}  # every entry, as before
    assert data["origin"] == {
        "hooks": {"entries": 1, "occurrences": 3},
        # The agent named its own session: still its lesson, though no evidence.
        "agent_or_user": {"entries": 2, "occurrences": 2},
        "elsewhere": {"entries": 1, "occurrences": 2},
        "by_writer": {
            "hook": {"entries": 1, "occurrences": 3},
            "cli": {"entries": 1, "occurrences": 1},
            "agent": {"entries": 1, "occurrences": 1},
            "import": {"entries": 0, "occurrences": 0},
        },
    }


def test_plural() -> None:
    assert [plural(0, "entry", "entries"), plural(1, "entry", "entries"), plural(2, "occurrence"), plural(1, "session")] == [
        "0 entries", "1 entry", "2 occurrences", "1 session",
    ]
