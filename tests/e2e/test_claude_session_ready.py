"""End-to-end: our ``session-ready`` hook (SessionStart) in the real Claude Code 2.1.328.

With two lessons ready for review, the client runs the hook at start-up, validates its
``{"systemMessage": …}`` and keeps it from the model: it is the raw stdout of the
``hook_response`` event in ``--output-format stream-json --verbose``, and in no model request
(``tests/e2e/test_claude_rules.py`` shows the TUI prints it under the prompt box). With nothing
ready, the hook prints nothing at all.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_session_ready.py -rs
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import MockAnthropic
from tests.e2e.scenario import REPO, RunTurn, why
from tests.helpers import entry_text, write_project

pytestmark = pytest.mark.e2e

HOOK = REPO / "hooks" / "session-ready"
MESSAGE = "self-improve: 2 lessons ready, run `self-improve review`"


def _ready(entry_id: str, summary: str, action: str) -> str:
    return entry_text(entry_id, summary, action=action, occurrences=[(20, "t1"), (10, "t2"), (2, "t3")])


def _project(tmp_path: Path, ready: bool) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    texts = [entry_text("ERR-20260212-ccc", "docker needs sudo")]
    if ready:
        texts += [
            _ready("ERR-20260210-aaa", "pytest fails with ImportError from the root", "Run `python -m pytest` so the root is on sys.path."),
            _ready("ERR-20260211-bbb", "make test fails without the deps", "Run `make deps` before `make test`."),
        ]
    write_project(root, texts)
    (root / ".claude").mkdir()
    settings = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": str(HOOK)}]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    return root


def _hook_responses(run: ClaudeRun) -> list[tuple[str, str, str]]:
    events = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return [(e["hook_event"], e["outcome"], e["stdout"]) for e in events if e.get("subtype") == "hook_response"]


def test_ready_lessons_reach_the_user_and_not_the_model(
    tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic
) -> None:
    project = _project(tmp_path, ready=True)
    run = claude(project, "hello", extra_args=["--output-format", "stream-json", "--verbose"],
                 env_extra={"SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"})
    assert _hook_responses(run) == [("SessionStart", "success", json.dumps({"systemMessage": MESSAGE}) + "\n")], why(run, mock_anthropic)
    assert mock_anthropic.requests, why(run, mock_anthropic)
    for request in mock_anthropic.requests:
        assert "lessons ready" not in request.raw_body.decode(errors="replace"), why(run, mock_anthropic)


def test_nothing_ready_prints_nothing(tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic) -> None:
    project = _project(tmp_path, ready=False)
    run = claude(project, "hello", extra_args=["--output-format", "stream-json", "--verbose"],
                 env_extra={"SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"})
    assert _hook_responses(run) == [("SessionStart", "success", "")], why(run, mock_anthropic)
